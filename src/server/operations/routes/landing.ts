/**
 * The demo landing page, served with an Open Graph preview of the campaign a share link names
 * (`?id=...&referralCode=...`), so that a link pasted into a chat or a social post shows the offer.
 * Hosts serving their own landing page put the same tags in it.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import escapeHtml from 'escape-html';
import type { CampaignRow } from '../../campaigns/domain/campaigns.js';
import { lookupCampaign } from '../../campaigns/domain/campaigns.js';
import type { Ctx } from '../../kernel/context.js';
import { DEMO_CAMPAIGN_ID } from '../../seed.js';

/** The tags for one campaign and the address the preview is for. */
export function openGraphTags(c: Pick<CampaignRow, 'name' | 'reward_header' | 'reward_description'>, url: string): string {
  const tags: [string, string][] = [
    ['og:type', 'website'],
    ['og:title', c.reward_header || c.name],
    ['og:description', c.reward_description],
    ['og:url', url],
    ['twitter:card', 'summary'],
  ];
  return tags
    .filter(([, content]) => content)
    .map(([property, content]) => `<meta property="${property}" content="${escapeHtml(content)}" />`)
    .join('\n    ');
}

export function landingPageRoutes(app: FastifyInstance, ctx: Ctx, file: string): void {
  const page = readFileSync(file, 'utf8');
  const serve = async (request: FastifyRequest<{ Querystring: { id?: string } }>, reply: FastifyReply) => {
    const id = typeof request.query.id === 'string' ? request.query.id : DEMO_CAMPAIGN_ID;
    const campaign = id.length <= 64 ? await lookupCampaign(ctx, id) : undefined;
    const url = `${request.protocol}://${request.host}${request.url}`;
    const html = campaign ? page.replace('</head>', `  ${openGraphTags(campaign, url)}\n  </head>`) : page;
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  };
  app.get('/demo/', { schema: { hide: true } }, serve);
  app.get('/demo/index.html', { schema: { hide: true } }, serve);
}
