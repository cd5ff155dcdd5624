/** The admin contract, in the interface's RPC style. The CLI calls these very routes, in process (cli.ts). */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AdvanceClockBody,
  CampaignClock,
  CampaignClockQuery,
  ApiKey,
  CampaignSettings,
  CampaignIdBody,
  CreateApiKeyBody,
  CreateCampaignBody,
  GrantAccessBody,
  GrantAccessResult,
  WaitlistQuery,
  WaitlistView,
  Ok,
  Participant,
  ParticipantQuery,
  RedeemRewardBody,
  RevokeApiKeyBody,
  RewardEntriesQuery,
  RewardEntry,
  RevokedTokens,
  SigningSecret,
  SetCampaignStatusBody,
  UpdateCampaignBody,
} from '../../../api/schemas.js';
import * as campaigns from '../domain/campaigns.js';
import * as keys from '../../accounts/domain/keys.js';
import * as ledger from '../../rewards/domain/ledger.js';
import * as proof from '../../referrals/domain/proof.js';
import * as rewards from '../../rewards/domain/rewards.js';
import { getWaitlist, grantAccess } from '../../engagement/domain/waitlist.js';
import { campaignSettingsView } from '../domain/campaign-views.js';
import { advanceClock, getClock } from '../domain/campaign-clock.js';
import { presentRewardEntry, presentView } from '../../referrals/domain/present.js';
import { requireActor } from '../../http/access.js';
import { linkNext } from '../../http/link-next.js';
import { byObjectId, campaignChange, keyChange, participantChange } from '../../http/audit-specs.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { BLOCKLIST_BODY_LIMIT } from '../../fraud/domain/blocklists.js';

const errors = ownerErrors;
const common = ownerRoute('admin');
const config = { access: 'secret' as const, idempotent: true };

export const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const campaignEdit = { ...config, audit: campaignChange };
  const participantEdit = { ...config, audit: participantChange };
  app.post(
    '/api/v1/admin/createCampaign',
    { config, bodyLimit: BLOCKLIST_BODY_LIMIT, schema: { ...common, summary: 'Create a campaign', body: CreateCampaignBody, response: { 200: CampaignSettings, ...errors } } },
    async (request) => campaignSettingsView(request.ctx, await campaigns.createCampaign(request.ctx, requireActor(request), request.body)),
  );

  app.post(
    '/api/v1/admin/updateCampaign',
    { config: campaignEdit, bodyLimit: BLOCKLIST_BODY_LIMIT, schema: { ...common, summary: 'Change fields of a campaign', body: UpdateCampaignBody, response: { 200: CampaignSettings, ...errors } } },
    async (request) => campaignSettingsView(request.ctx, await campaigns.updateCampaign(request.ctx, requireActor(request), request.body)),
  );

  app.post(
    '/api/v1/admin/setCampaignStatus',
    {
      config: campaignEdit,
      schema: {
        ...common,
        summary: 'Pause, resume or end a campaign',
        description: 'Active <-> Pause, Active or Pause -> End. End is final: 409 invalid_transition.',
        body: SetCampaignStatusBody,
        response: { 200: CampaignSettings, ...errors },
      },
    },
    async (request) => campaignSettingsView(request.ctx, await campaigns.setCampaignStatus(request.ctx, requireActor(request), request.body.id, request.body.status)),
  );

  app.post(
    '/api/v1/admin/advanceClock',
    {
      config,
      schema: {
        ...common,
        summary: "Move a test campaign's time forward, as if the time had passed",
        description:
          'Steps through what falls due on the way in time order (held credits released, reminders), each in the campaign time it was due at, ' +
          'writing its webhooks and emails through the outboxes; monthly boards, caps and `end` follow the new time. ' +
          '400 invalid_request for a live campaign, a `to` not after the campaign\'s time or more than 5 years ahead of the real time; ' +
          '409 clock_moved when another advance moved the clock meanwhile. Test mode: docs/testing-mode.md.',
        body: AdvanceClockBody,
        response: { 200: CampaignClock, ...errors },
      },
    },
    async (request) => advanceClock(request.ctx, requireActor(request), request.body),
  );

  app.get(
    '/api/v1/admin/getCampaignClock',
    {
      config: { access: 'secret' as const },
      schema: { ...common, summary: "A test campaign's time now, and how far ahead of the real time it is", querystring: CampaignClockQuery, response: { 200: CampaignClock, ...errors } },
    },
    async (request) => getClock(request.ctx, requireActor(request), request.query.id),
  );

  app.post(
    '/api/v1/admin/grantAccess',
    {
      config,
      schema: {
        ...common,
        summary: 'Let participants in from the waitlist: the first `count` in queue order, or those with these `emails`',
        description:
          'Each one let in gets an access_granted event and the widget shows them in. Someone let in before is not let in again (nor listed); ' +
          'emails of no participant are answered in `unknown`. 404 not_found when the campaign is not in waitlist mode.',
        body: GrantAccessBody,
        response: { 200: GrantAccessResult, ...errors },
      },
    },
    async (request) => grantAccess(request.ctx, requireActor(request), request.body),
  );

  app.get(
    '/api/v1/admin/getWaitlist',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "The front of a campaign's waitlist with positions, and how many wait and were let in",
        description: '404 not_found when the campaign is not in waitlist mode.',
        querystring: WaitlistQuery,
        response: { 200: WaitlistView, ...errors },
      },
    },
    async (request) => getWaitlist(request.ctx, requireActor(request), request.query.id, request.query.limit),
  );

  app.post(
    '/api/v1/admin/redeemReward',
    {
      config: participantEdit,
      schema: { ...common, summary: 'Redeem from a reward balance', body: RedeemRewardBody, response: { 200: Participant, ...errors } },
    },
    async (request) => presentView(await rewards.redeemReward(request.ctx, requireActor(request), request.body)),
  );

  app.post(
    '/api/v1/admin/approveParticipant',
    {
      config: participantEdit,
      schema: {
        ...common,
        summary: 'Approve a participant held back by fraud scoring',
        description: 'Credits the rewards the participant had earned while unapproved.',
        body: ParticipantQuery,
        response: { 200: Participant, ...errors },
      },
    },
    async (request) => presentView(await rewards.approveParticipant(request.ctx, requireActor(request), request.body.id, request.body.email)),
  );

  app.get(
    '/api/v1/admin/listRewardEntries',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "List a participant's reward ledger",
        description:
          'Every credit, reversal and redemption, newest first (createdOn, then id). The reward fields of the participant are its ' +
          'sums: what was earned is the available entries but redemptions, what was redeemed the available redemptions (negative amounts). ' +
          'Paged as getAllParticipants.',
        querystring: RewardEntriesQuery,
        response: { 200: Type.Array(RewardEntry), ...errors },
      },
    },
    async (request, reply) => {
      const { id, email, ...paging } = request.query;
      const page = await ledger.listRewardEntries(request.ctx, requireActor(request), id, email, paging);
      linkNext(request, reply, page.next);
      return page.rows.map(presentRewardEntry);
    },
  );

  app.post(
    '/api/v1/admin/createApiKey',
    {
      // Not idempotent: its answer is the only copy of the new key (the service keeps a hash), and a
      // stored answer to replay would keep the key in the clear for a day. A retry makes a second key,
      // which listApiKeys shows and revokeApiKey removes.
      config: { access: 'secret' as const, permission: 'manage' as const, audit: byObjectId },
      schema: { ...common, summary: 'Create a secret key (shown once)', body: CreateApiKeyBody, response: { 200: ApiKey, ...errors } },
    },
    async (request) => keys.createApiKey(request.ctx, requireActor(request), request.body.name, request.body.test),
  );

  app.post(
    '/api/v1/admin/revokeApiKey',
    { config: { ...config, permission: 'manage' as const, audit: keyChange }, schema: { ...common, summary: 'Revoke a secret key', body: RevokeApiKeyBody, response: { 200: Ok, ...errors } } },
    async (request) => {
      await keys.revokeApiKey(request.ctx, requireActor(request), request.body.id);
      return { ok: true as const };
    },
  );

  app.get(
    '/api/v1/admin/listApiKeys',
    { config, schema: { ...common, summary: 'List secret keys (without the keys)', response: { 200: Type.Array(ApiKey), ...errors } } },
    async (request) => keys.listApiKeys(request.ctx, requireActor(request)),
  );

  app.post(
    '/api/v1/admin/getSigningSecret',
    {
      config,
      schema: {
        ...common,
        summary: "The campaign's email-signing secret",
        description: 'Your backend signs a signed-in visitor\'s email with it (HMAC-SHA256, hex) for the widget\'s email-signature attribute.',
        body: CampaignIdBody,
        response: { 200: SigningSecret, ...errors },
      },
    },
    async (request) => ({ secret: await proof.signingSecret(request.ctx, requireActor(request), request.body.id, false) }),
  );

  app.post(
    '/api/v1/admin/rotateSigningSecret',
    {
      config,
      schema: {
        ...common,
        summary: "Replace the campaign's email-signing secret",
        description: 'Signatures made with the old secret stop working at once.',
        body: CampaignIdBody,
        response: { 200: SigningSecret, ...errors },
      },
    },
    async (request) => ({ secret: await proof.signingSecret(request.ctx, requireActor(request), request.body.id, true) }),
  );

  app.post(
    '/api/v1/admin/revokeParticipantTokens',
    {
      config,
      schema: {
        ...common,
        summary: "Sign a participant out of every browser",
        description: 'Revokes the participant tokens the widget keeps; those browsers then see only the shared fields until proven again.',
        body: ParticipantQuery,
        response: { 200: RevokedTokens, ...errors },
      },
    },
    async (request) => ({ revoked: await proof.revokeTokens(request.ctx, requireActor(request), request.body.id, request.body.email) }),
  );
};
