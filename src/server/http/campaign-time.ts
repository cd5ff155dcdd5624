/**
 * Runs a request about a test campaign in that campaign's time (../kernel/campaign-time.ts): the
 * campaign is the one its `id` names (body, query or path), as on every campaign route. A live campaign
 * (almost every request) costs a read of the cached campaign row and nothing more.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Ctx } from '../kernel/context.js';
import { enterCampaignTime, offsetOf } from '../kernel/campaign-time.js';

/** The campaign a request is about: the one its `id` names (body, query or path), if any (it may name something else). */
export function campaignIdOf(request: FastifyRequest): string | undefined {
  for (const source of [request.body, request.query, request.params]) {
    const id = (source as { id?: unknown } | undefined | null)?.id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

async function campaignTime(app: FastifyInstance, { ctx }: { ctx: Ctx }) {
  // Callback style: the scope entered before done() is the one the handler runs in.
  app.addHook('preHandler', (request, _reply, done) => {
    const id = campaignIdOf(request);
    if (id === undefined) return done();
    ctx.store
      .findCampaign(id)
      .then(async (c) => {
        const offset = c ? await offsetOf(ctx, c) : 0;
        if (offset !== 0) enterCampaignTime(offset);
        done();
      })
      .catch(done);
  });
}

export default fp(campaignTime, { name: 'refkit-campaign-time' });
