/**
 * What the widget reads beyond the interface: its settings (currency, per-channel share messages) and
 * the participant's own standing with their referrals. Public like getCampaign: origin-checked and rate
 * limited; getMyReferrals answers only to proof of being the participant.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiErrorBody, CampaignQuery, Leaderboard, ProofHeaders } from '../../../api/schemas.js';
import { MyReferrals, MyReferralsBody, WidgetSettings } from '../../../api/widget-schemas.js';
import { getLeaderboard } from '../../engagement/domain/leaderboard.js';
import { myReferrals } from '../domain/my-referrals.js';
import { widgetSettings } from '../../campaigns/domain/widget-settings.js';
import { proofOf } from './signup-answer.js';

const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody };
const tags = ['browser'];

export const widgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.options('/api/v1/getWidgetSettings', { schema: { hide: true } }, app.corsPreflight);
  app.options('/api/v1/getMyReferrals', { schema: { hide: true } }, app.corsPreflight);
  app.options('/api/v1/getLeaderboard', { schema: { hide: true } }, app.corsPreflight);

  app.get(
    '/api/v1/getLeaderboard',
    {
      config: { access: 'public', campaignOf: (r) => (r.query as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: "The campaign's leaderboard: its top participants by qualified referrals, ties to whoever got there first",
        description:
          'Public, like getCampaign. Each entry is a rank, a display name (first name and last initial, else a masked email) and the count; ' +
          'participants held for review are left out. 404 not_found when the campaign has no leaderboard.',
        querystring: CampaignQuery,
        response: { 200: Leaderboard, ...errors },
      },
    },
    async (request) => getLeaderboard(request.ctx, request.query.id),
  );

  app.get(
    '/api/v1/getWidgetSettings',
    {
      config: { access: 'public', campaignOf: (r) => (r.query as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: "What the widget needs beyond the Campaign: the reward's currency or unit, and per-channel share messages",
        querystring: CampaignQuery,
        response: { 200: WidgetSettings, ...errors },
      },
    },
    async (request) => widgetSettings(request.ctx, request.query.id),
  );

  app.post(
    '/api/v1/getMyReferrals',
    {
      config: { access: 'public', campaignOf: (r) => (r.body as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: "The proven participant's own record and referrals, in any campaign state",
        description:
          'Public, with proof: Refkit-Participant-Token (the token this browser was given), or email with Refkit-Email-Signature. ' +
          '401 without. The participant comes without fraudScore; referrals show a first name or a masked email, and a status.',
        headers: ProofHeaders,
        body: MyReferralsBody,
        response: { 200: MyReferrals, ...errors },
      },
    },
    async (request) => myReferrals(request.ctx, request.body.id, request.body.email, proofOf(request)),
  );
};
