/**
 * Who may call what. Protected routes need `Authorization: Bearer sk_...`, or the session cookie of a
 * signed-in dashboard owner (then every change must also carry the session's CSRF token). Public routes (getCampaign,
 * validateCode, addParticipant) may be called without a key; a keyless call that carries an `Origin`
 * must come from one of the campaign's allowed origins (or the service's own), and only those origins
 * get CORS headers on answers (any origin may read the error answers of public routes). A key that is present but wrong is refused everywhere, never silently ignored.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { EMAIL_LINK_REQUEST, LOCALE_HEADER, OUTCOME_HEADERS, PROOF_HEADERS } from '../../api/headers.js';
import { campaignAllowsOrigin, someCampaignAllowsOrigin } from '../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../kernel/context.js';
import { AppError } from '../kernel/errors.js';
import { authenticate } from '../accounts/domain/keys.js';
import { csrfMatches, findSession, type LiveSession } from '../accounts/domain/sessions.js';
import { sessionToken } from './session-cookie.js';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type RouteAccess = 'public' | 'secret' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `secret`: a secret key or an owner's session is required. `public`: keyless browser calls allowed,
     * origin-checked (a session cookie is not looked at). `session`: the auth routes, which read the
     * session themselves.
     */
    access?: RouteAccess;
    /** For public routes: where the request names its campaign (query or body), for the origin check. */
    campaignOf?: (request: FastifyRequest) => string | undefined;
    /** A route that reads the Authorization header itself (a provider's basic authentication): it is never taken for a Refkit key. */
    ownAuthorization?: boolean;
  }
  interface FastifyRequest {
    /** Who acts (a secret key, a session's user or the CLI), for which account, with which role; undefined on keyless calls. */
    actor: Actor | undefined;
    /** The owner's session when the call came with a live session cookie (and no Authorization). */
    ownerSession: LiveSession | undefined;
  }
}

export interface AccessOptions {
  ctx: Ctx;
  secretKeyHash: string | undefined;
  /** Who the key of secretKeyHash acts as: REFKIT_SECRET_KEY's actor, or the CLI's for its one-command key. */
  envKeyActor?: Actor;
}

const unauthorized = () =>
  new AppError(401, 'unauthorized', 'A valid secret key is required: Authorization: Bearer sk_... (or a signed-in dashboard session)');
const csrfFailed = () => new AppError(403, 'csrf_failed', `Changes made with the session cookie need the session's ${CSRF_HEADER} header`);
const forbiddenOrigin = (origin: string) =>
  new AppError(403, 'forbidden_origin', `The origin ${origin} is not allowed to use this campaign`);

const ownOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Response headers a page's script may read: the sign-up outcome, a new token, and rate-limit waits. */
const EXPOSED = [OUTCOME_HEADERS.signup, OUTCOME_HEADERS.emailLink, PROOF_HEADERS.token, 'retry-after'].join(', ');

function allowCors(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED).header('vary', 'Origin');
}

/** The actor of a secret-key call; throws 401 for a bad key, and for no key on a secret route. */
export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized();
  return request.actor;
}

async function access(app: FastifyInstance, { ctx, secretKeyHash, envKeyActor }: AccessOptions) {
  app.decorateRequest('actor', undefined);
  app.decorateRequest('ownerSession', undefined);

  /** Who is calling: a secret key, or the owner's dashboard session (which must carry the CSRF token to change anything). */
  const identify = async (request: FastifyRequest, kind: RouteAccess | undefined) => {
    const header = request.headers.authorization;
    if (header === undefined) {
      const token = sessionToken(request);
      const session = token ? await findSession(ctx, token) : undefined;
      if (session) {
        const csrf = request.headers[CSRF_HEADER];
        if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, typeof csrf === 'string' ? csrf : undefined)) throw csrfFailed();
        request.ownerSession = session;
        request.actor = { ...session.actor, ip: request.ip };
        return;
      }
      if (kind === 'secret') throw unauthorized();
      return;
    }
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const actor = await app.throttleKeyChecks(request, async () => (m?.[1] ? authenticate(ctx, m[1], secretKeyHash, envKeyActor) : undefined));
    if (!actor) throw unauthorized();
    request.actor = { ...actor, ip: request.ip };
  };
  // Callback-style hooks that return at once on the common keyless path: an async hook costs every
  // request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => {
    const { access: kind, ownAuthorization } = request.routeOptions.config;
    if (ownAuthorization || (request.headers.authorization === undefined && kind !== 'secret' && kind !== 'session')) return done();
    identify(request, kind).then(() => done(), done);
  });

  const allowOrigin = async (reply: FastifyReply, id: string, origin: string) => {
    // An unknown campaign falls through to the handler, which answers 404 campaign_not_found.
    const allowed = await campaignAllowsOrigin(ctx, id, origin);
    if (allowed === undefined) return;
    if (!allowed) throw forbiddenOrigin(origin);
    allowCors(reply, origin);
  };
  // After validation, so the campaign id in the body can be read.
  app.addHook('preHandler', (request, reply, done) => {
    const { access: kind, campaignOf } = request.routeOptions.config;
    const origin = request.headers.origin;
    if (kind !== 'public' || request.actor || origin === undefined || origin === ownOrigin(request)) return done();
    const id = campaignOf?.(request);
    if (id === undefined) return done();
    allowOrigin(reply, id, origin).then(() => done(), done);
  });

  // The error answers of public routes are readable by any page (no credentials, nothing private in an
  // error envelope), so an embedding on a refused origin or with a mistyped campaign id can tell the
  // developer `forbidden_origin` or `campaign_not_found` instead of an unreadable network failure.
  app.addHook('onError', async (request, reply) => {
    const origin = request.headers.origin;
    if (request.routeOptions.config.access !== 'public' || origin === undefined || reply.hasHeader('access-control-allow-origin')) return;
    allowCors(reply, origin);
  });

  /** Answers CORS preflights of the public routes for any origin that some campaign allows. */
  app.decorate('corsPreflight', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return reply.status(204).send();
    if (origin !== ownOrigin(request) && !(await someCampaignAllowsOrigin(ctx, origin))) throw forbiddenOrigin(origin);
    allowCors(reply, origin);
    return reply
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', ['content-type', PROOF_HEADERS.token, PROOF_HEADERS.emailSignature, EMAIL_LINK_REQUEST.header, LOCALE_HEADER].join(', '))
      .header('access-control-max-age', '600')
      .status(204)
      .send();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    corsPreflight: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  }
}

export default fp(access, { name: 'refkit-access' });
