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
  /** The trusted-device cookie's name (../accounts/domain/trusted-devices.ts), prefixed like the session's. */
  deviceName: string;
  /** Secure whatever the request's protocol looks like from here. */
  alwaysSecure: boolean;
}

export const SESSION_COOKIE = 'refkit_session';
/**
 * Beside the session cookie, readable by the dashboard's script: it says a session may be open (never
 * which: the value is `1`), so that the sign-in page asks the service only then, and a visit signed out
 * sends no request that is refused (a 401 on every visit, in the browser's console).
 */
export const SIGNED_IN_COOKIE = 'refkit_signed_in';
export const DEVICE_COOKIE = 'refkit_device';

export function sessionCookie(publicUrl: string | undefined): SessionCookie {
  const https = publicUrl !== undefined && new URL(publicUrl).protocol === 'https:';
  const prefix = https ? '__Host-' : '';
  return { name: `${prefix}${SESSION_COOKIE}`, deviceName: `${prefix}${DEVICE_COOKIE}`, alwaysSecure: https };
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
export const sessionToken = (request: FastifyRequest) => cookie(request, request.server.sessionCookie.name);

/** The trusted-device token the browser brought, if any. */
export const deviceToken = (request: FastifyRequest) => cookie(request, request.server.sessionCookie.deviceName);

function cookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : request.server.parseCookie(header)[name];
}

function sendCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, lifetime: { maxAge: number; expires?: Date }, httpOnly = true): void {
  const { alwaysSecure } = request.server.sessionCookie;
  // Strict: the cookie never rides on a request another site starts, which is the first line against CSRF.
  const options = { path: '/', httpOnly, sameSite: 'strict' as const, secure: alwaysSecure || request.protocol === 'https' };
  reply.header('set-cookie', request.server.serializeCookie(name, value, { ...options, ...lifetime }));
}

/** The name of the readable companion (SIGNED_IN_COOKIE), prefixed like the session's. */
const signedInName = (request: FastifyRequest) => request.server.sessionCookie.name.replace(SESSION_COOKIE, SIGNED_IN_COOKIE);

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, lifetimeMs: number): void {
  sendCookie(request, reply, request.server.sessionCookie.name, token, { maxAge: lifetimeMs / 1000 });
  sendCookie(request, reply, signedInName(request), '1', { maxAge: lifetimeMs / 1000 }, false);
}

/** Clears the cookie (and its companion): an empty value that expired in 1970. */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  sendCookie(request, reply, request.server.sessionCookie.name, '', { expires: new Date(0), maxAge: 0 });
  sendCookie(request, reply, signedInName(request), '', { expires: new Date(0), maxAge: 0 }, false);
}

/** Keeps the trusted-device token in the browser (it outlives sign-out: it is what lets the owner back in). */
export const setDeviceCookie = (request: FastifyRequest, reply: FastifyReply, token: string, lifetimeMs: number) =>
  sendCookie(request, reply, request.server.sessionCookie.deviceName, token, { maxAge: lifetimeMs / 1000 });
