/**
 * The portal's session cookie: `refkit_portal`, httpOnly, sent only to the portal's own routes
 * (Path=/api/v1/portal), SameSite=Lax, and Secure when the service's public address is https (or the
 * request came over https). Lax rather than Strict: the portal is opened from a link in an email, a
 * navigation from another site, and a session opened then must hold on that page; the CSRF token (a
 * header the page echoes, ../domain/portal-sessions.ts) is what guards every change.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const PORTAL_COOKIE = 'refkit_portal';
export const PORTAL_API = '/api/v1/portal';

/** The cookie's token, if the request has one (parsed here, not by a hook on every request: ../../app.ts). */
export function portalToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : request.server.parseCookie(header)[PORTAL_COOKIE] || undefined;
}

function send(request: FastifyRequest, reply: FastifyReply, publicUrl: string | undefined, value: string, lifetime: { maxAge: number; expires?: Date }): void {
  const secure = (publicUrl !== undefined && new URL(publicUrl).protocol === 'https:') || request.protocol === 'https';
  reply.header('set-cookie', request.server.serializeCookie(PORTAL_COOKIE, value, { path: PORTAL_API, httpOnly: true, sameSite: 'lax', secure, ...lifetime }));
}

export const setPortalCookie = (request: FastifyRequest, reply: FastifyReply, publicUrl: string | undefined, token: string, lifetimeMs: number) =>
  send(request, reply, publicUrl, token, { maxAge: lifetimeMs / 1000 });

/** Clears the cookie: an empty value that expired in 1970. */
export const clearPortalCookie = (request: FastifyRequest, reply: FastifyReply, publicUrl: string | undefined) =>
  send(request, reply, publicUrl, '', { maxAge: 0, expires: new Date(0) });
