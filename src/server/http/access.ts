/**
 * Who may call what. Protected routes need `Authorization: Bearer sk_...`. Public routes (getCampaign,
 * validateCode, addParticipant) may be called without a key; a keyless call that carries an `Origin`
 * must come from one of the campaign's allowed origins (or the service's own), and only those origins
 * get CORS headers. A key that is present but wrong is refused everywhere, never silently ignored.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { allowedOrigins } from '../domain/campaigns.js';
import type { Actor, Ctx } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { authenticate } from '../domain/keys.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `secret`: a secret key is required. `public`: keyless browser calls allowed, origin-checked. */
    access?: 'public' | 'secret';
    /** For public routes: where the request names its campaign (query or body), for the origin check. */
    campaignOf?: (request: FastifyRequest) => string | undefined;
  }
  interface FastifyRequest {
    /** The account a valid secret key acts for; undefined on keyless calls. */
    actor: Actor | undefined;
  }
}

export interface AccessOptions {
  ctx: Ctx;
  secretKeyHash: string | undefined;
}

const unauthorized = () => new AppError(401, 'unauthorized', 'A valid secret key is required: Authorization: Bearer sk_...');
const forbiddenOrigin = (origin: string) =>
  new AppError(403, 'forbidden_origin', `The origin ${origin} is not allowed to use this campaign`);

const ownOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

function allowCors(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
}

/** The actor of a secret-key call; throws 401 for a bad key, and for no key on a secret route. */
export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized();
  return request.actor;
}

async function access(app: FastifyInstance, { ctx, secretKeyHash }: AccessOptions) {
  app.decorateRequest('actor', undefined);

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) {
      if (request.routeOptions.config.access === 'secret') throw unauthorized();
      return;
    }
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const actor = await app.throttleKeyChecks(request, async () => (m?.[1] ? authenticate(ctx, m[1], secretKeyHash) : undefined));
    if (!actor) throw unauthorized();
    request.actor = actor;
  });

  // After validation, so the campaign id in the body can be read.
  app.addHook('preHandler', async (request, reply) => {
    const { access: kind, campaignOf } = request.routeOptions.config;
    const origin = request.headers.origin;
    if (kind !== 'public' || request.actor || origin === undefined || origin === ownOrigin(request)) return;
    const id = campaignOf?.(request);
    if (id === undefined) return;
    // An unknown campaign falls through to the handler, which answers 404 campaign_not_found.
    const campaign = await ctx.store.findCampaign(id);
    if (!campaign) return;
    if (!allowedOrigins(campaign).includes(origin)) throw forbiddenOrigin(origin);
    allowCors(reply, origin);
  });

  /** Answers CORS preflights of the public routes for any origin that some campaign allows. */
  app.decorate('corsPreflight', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return reply.status(204).send();
    if (origin !== ownOrigin(request)) {
      const campaigns = await ctx.store.campaignOrigins();
      if (!campaigns.some((c) => allowedOrigins(c).includes(origin))) throw forbiddenOrigin(origin);
    }
    allowCors(reply, origin);
    return reply
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', 'content-type')
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
