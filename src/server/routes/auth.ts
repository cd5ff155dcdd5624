/** Dashboard sign-in: a session cookie for an owner's email and password, the session, and sign-out. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrorBody, Ok, OwnerSession, SignInBody } from '../../api/schemas.js';
import type { Ctx } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { checkCredentials } from '../domain/owners.js';
import { closeSession, openSession, SESSION_TTL_MS } from '../domain/sessions.js';
import { SESSION_COOKIE, sessionToken } from '../http/access.js';
import { clientKey } from '../http/rate-limit.js';

const tags = ['auth'];
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody };
const session = [{ sessionCookie: [] }];

function cookieOptions(request: FastifyRequest) {
  // Strict: the cookie never rides on a request another site starts, which is the first line against CSRF.
  return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: request.protocol === 'https' };
}

/** Sets the session cookie (or clears it, with an empty value that expired in 1970). */
function sendSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string | undefined): void {
  const lifetime = token === undefined ? { expires: new Date(0), maxAge: 0 } : { maxAge: SESSION_TTL_MS / 1000 };
  reply.header('set-cookie', request.server.serializeCookie(SESSION_COOKIE, token ?? '', { ...cookieOptions(request), ...lifetime }));
}

function requireSession(request: FastifyRequest) {
  if (!request.ownerSession) throw new AppError(401, 'unauthorized', 'Not signed in');
  return request.ownerSession;
}

export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/auth/signIn',
    {
      schema: {
        tags,
        summary: 'Sign an owner in to the dashboard',
        description:
          'Sets an httpOnly, SameSite=Strict session cookie. Failed attempts are throttled (429 rate_limited with Retry-After): per client and email with growing delays, per client, and per email for clients that have failed on it.',
        body: SignInBody,
        response: { 200: OwnerSession, ...errors },
      },
    },
    async (request, reply) => {
      const owner = await checkCredentials(ctx, request.body.email, request.body.password, clientKey(request.ip));
      const { token, view } = await openSession(ctx, owner);
      sendSessionCookie(request, reply, token);
      return view;
    },
  );

  app.get(
    '/api/v1/auth/session',
    {
      config: { access: 'session' },
      schema: { tags, security: session, summary: 'The signed-in owner and the CSRF token of the session', response: { 200: OwnerSession, ...errors } },
    },
    async (request) => requireSession(request).view,
  );

  app.post(
    '/api/v1/auth/signOut',
    {
      config: { access: 'session' },
      schema: { tags, security: session, summary: 'Sign out: the session ends on the server, the cookie is cleared', response: { 200: Ok, ...errors } },
    },
    async (request, reply) => {
      requireSession(request);
      await closeSession(ctx, sessionToken(request)!);
      sendSessionCookie(request, reply, undefined);
      return { ok: true as const };
    },
  );
};
