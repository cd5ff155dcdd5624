/**
 * Dashboard sign-in: a session cookie for an owner's email and password, the session, sign-out, and
 * the owner's own account (password change, sign out everywhere).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiErrorBody, ChangePasswordBody, Ok, OwnerSession, SessionsEnded, SignInBody } from '../../../api/schemas.js';
import { AppError } from '../../kernel/errors.js';
import { changePassword, checkCredentials, endSessions } from '../domain/owners.js';
import { closeSession, openSession, SESSION_TTL_MS } from '../domain/sessions.js';
import { DEVICE_TTL_MS } from '../domain/trusted-devices.js';
import { clearSessionCookie, deviceToken, setDeviceCookie, setSessionCookie, sessionToken } from '../../http/session-cookie.js';
import { clientKey } from '../../http/rate-limit.js';

const tags = ['auth'];
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody };
const session = [{ sessionCookie: [] }];

function requireSession(request: FastifyRequest) {
  if (!request.ownerSession) throw new AppError(401, 'unauthorized', 'Not signed in');
  return request.ownerSession;
}

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/auth/signIn',
    {
      schema: {
        tags,
        summary: 'Sign an owner in to the dashboard',
        description:
          'Sets an httpOnly, SameSite=Strict session cookie, and a trusted-device cookie that lets this browser sign in again whatever others tried. ' +
          'Failed attempts are throttled (429 rate_limited with Retry-After): from a trusted browser on that browser alone, with growing delays; ' +
          'otherwise per client and email with growing delays, per client, and per email for clients that have failed on it.',
        body: SignInBody,
        response: { 200: OwnerSession, ...errors },
      },
    },
    async (request, reply) => {
      const owner = await checkCredentials(request.ctx, request.body.email, request.body.password, clientKey(request.ip), deviceToken(request));
      const { token, view } = await openSession(request.ctx, owner);
      setSessionCookie(request, reply, token, SESSION_TTL_MS);
      setDeviceCookie(request, reply, owner.device, DEVICE_TTL_MS);
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
      await closeSession(request.ctx, sessionToken(request)!);
      clearSessionCookie(request, reply);
      return { ok: true as const };
    },
  );

  app.post(
    '/api/v1/auth/changePassword',
    {
      config: { access: 'session' },
      schema: {
        tags,
        security: session,
        summary: "Change the signed-in owner's password",
        description:
          'Needs the current password (a wrong one is 403 wrong_password and counts as a failed sign-in). ' +
          'The new one must be at least 10 characters. Every other session of the owner ends; this one goes on.',
        body: ChangePasswordBody,
        response: { 200: SessionsEnded, ...errors },
      },
    },
    async (request, reply) => {
      const { id, ownerId, view } = requireSession(request);
      const { currentPassword, newPassword } = request.body;
      const changed = await changePassword(request.ctx, { id, ownerId, email: view.email }, currentPassword, newPassword, clientKey(request.ip), deviceToken(request));
      setDeviceCookie(request, reply, changed.device, DEVICE_TTL_MS);
      return { ok: true as const, sessionsEnded: changed.sessionsEnded };
    },
  );

  app.post(
    '/api/v1/auth/signOutEverywhere',
    {
      config: { access: 'session' },
      schema: {
        tags,
        security: session,
        summary: 'Sign out everywhere: every session of the owner ends, this one included',
        response: { 200: SessionsEnded, ...errors },
      },
    },
    async (request, reply) => {
      const ended = await endSessions(request.ctx, requireSession(request).ownerId);
      clearSessionCookie(request, reply);
      return { ok: true as const, sessionsEnded: ended };
    },
  );
};
