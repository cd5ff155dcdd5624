/**
 * What the widget reads beyond the interface: its settings (currency, per-channel share messages) and
 * the participant's own standing with their referrals. Public like getCampaign: origin-checked and rate
 * limited; getMyReferrals answers only to proof of being the participant.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiErrorBody, CampaignQuery, Leaderboard, Participant, ProofHeaders } from '../../../api/schemas.js';
import { MyReferrals, MyReferralsBody, SetMyReferralCodeBody, WidgetSettings } from '../../../api/widget-schemas.js';
import { getLeaderboard } from '../../engagement/domain/leaderboard.js';
import { myReferrals, provenParticipant } from '../domain/my-referrals.js';
import { setReferralCode } from '../domain/vanity-codes.js';
import { presentParticipant } from '../domain/present.js';
import { findCampaign } from '../../campaigns/domain/campaigns.js';
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

  app.options('/api/v1/setMyReferralCode', { schema: { hide: true } }, app.corsPreflight);
  app.post(
    '/api/v1/setMyReferralCode',
    {
      config: { access: 'public', campaignOf: (r) => (r.body as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: 'The proven participant chooses their referral code (a vanity code)',
        description:
          'Public, with proof as getMyReferrals (401 without). 4 to 24 of A-Z, 0-9 and -, any case (kept in capitals); 400 code_not_allowed for a reserved ' +
          'or offensive word; 409 code_taken when another participant has it (or had it); 429 past three changes a day. The old code keeps working ' +
          '(links and codes already shared), and its promotion code stays active. Answers the participant as getMyReferrals shows them.',
        headers: ProofHeaders,
        body: SetMyReferralCodeBody,
        response: { 200: Participant, ...errors, 409: ApiErrorBody },
      },
    },
    async (request) => {
      const campaign = await findCampaign(request.ctx, request.body.id);
      const participant = await provenParticipant(request.ctx, campaign, request.body.email, proofOf(request));
      return presentParticipant(await setReferralCode(request.ctx, campaign, participant, request.body.code), campaign, 'self');
    },
  );
};
