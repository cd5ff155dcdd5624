/**
 * The unsubscribe link of every lifecycle email (../domain/unsubscribe.ts). GET shows a page that asks
 * (mail scanners and link previews fetch links, and must not unsubscribe anyone); POST unsubscribes at
 * once: the page's button, and RFC 8058's one-click POST (`List-Unsubscribe=One-Click`) that mail
 * clients send from their own Unsubscribe button. Pages are in the participant's language.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import escapeHtml from 'escape-html';
import { directionOf, supportedLocale, type Locale } from '../../../api/locales.js';
import { ApiErrorBody } from '../../../api/schemas.js';
import type { Ctx } from '../../kernel/context.js';
import { checkUnsubscribeLink, unsubscribe, UNSUBSCRIBE_PATH } from '../domain/unsubscribe.js';
import { FRAME_WORDS } from '../domain/email-texts.js';
import { fill } from '../domain/render.js';
import type { CampaignRow } from '../../campaigns/domain/campaigns.js';

const LinkQuery = Type.Object({
  c: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' }),
  p: Type.String({ pattern: '^[0-9]{1,15}$', description: 'The participant' }),
  t: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The signature' }),
});

/** The answer is a page (HTML), in the participant's language; refusals are JSON, in the error envelope. */
const answers = (page: string) => ({ 200: { description: page, content: { 'text/html': { schema: Type.String() } } }, 400: ApiErrorBody, 404: ApiErrorBody });
const schema = { tags: ['emails'], querystring: LinkQuery };

function page(lang: Locale, campaign: CampaignRow, sentence: string, form?: string): string {
  const text = escapeHtml(fill(sentence, { campaign: campaign.name }));
  const button = form === undefined ? '' : `<form method="post" action="${escapeHtml(form)}"><button type="submit">${escapeHtml(FRAME_WORDS[lang].unsubscribeButton)}</button></form>`;
  return `<!doctype html><html lang="${lang}" dir="${directionOf(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(campaign.name)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2937}button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#4f46e5;color:#fff;cursor:pointer}button:focus-visible{outline:3px solid #1e1b4b;outline-offset:2px}</style></head>
<body><main><h1>${escapeHtml(campaign.name)}</h1><p>${text}</p>${button}</main></body></html>`;
}

export const unsubscribeRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  // RFC 8058's POST is a form (urlencoded, or multipart from some clients): its one field is fixed, and
  // nothing in it is read. Only this plugin's routes take forms.
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 1024 }, (_request, _body, done) => done(null, undefined));

  const localeOf = async (id: number) => supportedLocale((await ctx.store.findParticipant(id))?.locale);

  app.get(
    UNSUBSCRIBE_PATH,
    { config: { access: 'public' }, preHandler: app.publicRateLimit, schema: { ...schema, summary: 'The unsubscribe page of a lifecycle email (asks first)', response: answers('The page that asks before unsubscribing, with its button') } },
    async (request, reply) => {
      const { campaign, participantId } = await checkUnsubscribeLink(request.ctx, request.query);
      const form = `${UNSUBSCRIBE_PATH}?${new URLSearchParams(request.query).toString()}`;
      const locale = await localeOf(participantId);
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      return page(locale, campaign, FRAME_WORDS[locale].unsubscribeQuestion, form);
    },
  );

  app.post(
    UNSUBSCRIBE_PATH,
    {
      config: { access: 'public' },
      preHandler: app.publicRateLimit,
      schema: {
        ...schema,
        summary: 'Unsubscribe from a campaign\'s lifecycle emails at once (RFC 8058 one-click: body List-Unsubscribe=One-Click)',
        response: answers('The page saying the address is unsubscribed'),
      },
    },
    async (request, reply) => {
      const campaign = await unsubscribe(request.ctx, request.query);
      const locale = await localeOf(Number(request.query.p));
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      return page(locale, campaign, FRAME_WORDS[locale].unsubscribed);
    },
  );
};
