/**
 * Whether a webhook endpoint the CLI adds (`webhook add`, `apply`) may send to loopback and private
 * addresses: as the service on the same database, in the same environment, allows. WEBHOOK_ALLOW_PRIVATE
 * decides when set. Otherwise demo mode allows them (REFKIT_DEMO, NODE_ENV=development), and so does a
 * demo database: the one `npm start` (`serve --demo`) seeded, which holds the demo campaign; the service
 * serving it runs in demo mode and delivers to loopback, so the CLI accepts what that service would.
 * Elsewhere a URL must resolve to public addresses only, as the service checks it.
 */
import type { Config } from '../config.js';
import type { Ctx } from '../kernel/context.js';
import { DEMO_CAMPAIGN_ID } from '../seed.js';

export async function privateWebhooksAllowed(env: NodeJS.ProcessEnv, config: Pick<Config, 'demo' | 'webhookAllowPrivate'>, ctx: Ctx): Promise<boolean> {
  if (env.WEBHOOK_ALLOW_PRIVATE) return config.webhookAllowPrivate;
  return config.demo || (await ctx.store.findCampaign(DEMO_CAMPAIGN_ID)) !== undefined;
}
