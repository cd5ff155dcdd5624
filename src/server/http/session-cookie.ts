/**
 * The dashboard's session cookie: its name and flags. When the public URL is https, the cookie is
 * `Secure` and named with the `__Host-` prefix (which browsers accept only on a Secure cookie of path /
 * with no Domain, so no subdomain or plain-http page can set or overwrite it), whether or not
 * TRUST_PROXY lets the service see that the request came over TLS. On plain http (development) it is
 * `refkit_session`, and Secure only on a request that arrived over https.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface SessionCookie {
  name: string;
  /** Secure whatever the request's protocol looks like from here. */
  alwaysSecure: boolean;
}

export const SESSION_COOKIE = 'refkit_session';

export function sessionCookie(publicUrl: string | undefined): SessionCookie {
  const https = publicUrl !== undefined && new URL(publicUrl).protocol === 'https:';
  return https ? { name: `__Host-${SESSION_COOKIE}`, alwaysSecure: true } : { name: SESSION_COOKIE, alwaysSecure: false };
}

declare module 'fastify' {
  interface FastifyInstance {
    sessionCookie: SessionCookie;
  }
}

/**
 * The session cookie's value, if the request has one. Parsed here, when a route can use it, rather than
 * for every request by @fastify/cookie's hook (registered without it: ../app.ts).
 */
export function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : request.server.parseCookie(header)[request.server.sessionCookie.name];
}

function sendSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, lifetime: { maxAge: number; expires?: Date }): void {
  const { name, alwaysSecure } = request.server.sessionCookie;
  // Strict: the cookie never rides on a request another site starts, which is the first line against CSRF.
  const options = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: alwaysSecure || request.protocol === 'https' };
  reply.header('set-cookie', request.server.serializeCookie(name, value, { ...options, ...lifetime }));
}

export const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, token: string, lifetimeMs: number) =>
  sendSessionCookie(request, reply, token, { maxAge: lifetimeMs / 1000 });

/** Clears the cookie: an empty value that expired in 1970. */
export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) => sendSessionCookie(request, reply, '', { expires: new Date(0), maxAge: 0 });
