/**
 * The seven operations of the Referral Program Service Interface, at exactly its paths. Handlers only
 * translate HTTP to domain calls and domain results to wire shapes; rules live in ../domain.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AddParticipantBody,
  AllParticipantsQuery,
  ApiErrorBody,
  Campaign,
  CampaignQuery,
  KeyedParticipant,
  Participant,
  ParticipantQuery,
  ProofHeaders,
  QualifyParticipantBody,
  ReferralsQuery,
  ValidateCodeQuery,
} from '../../../api/schemas.js';
import { findCampaign } from '../../campaigns/domain/campaigns.js';
import * as participants from '../domain/participants.js';
import { campaignView } from '../../campaigns/domain/campaign-views.js';
import { holdOf } from '../domain/holds.js';
import { presentPage, presentView } from '../domain/present.js';
import * as rewards from '../../rewards/domain/rewards.js';
import * as signups from '../domain/signups.js';
import { requireActor } from '../../http/access.js';
import { linkNext } from '../../http/link-next.js';
import { localeOf, presentSignup, proofOf, visitorOf } from './signup-answer.js';
import { countryHeader } from '../../fraud/domain/country.js';

const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody };
const bearer = [{ bearerAuth: [] }];
const tags = ['interface'];



/** Names a sign-up is sent with that mean the referrer's code (../../http/unknown-fields.ts): 400 naming it, not ignored. */
const MISNAMED_ON_SIGNUP = { referralCode: 'referredByCode', referrerCode: 'referredByCode', code: 'referredByCode' } as const;

export const referralApiRoutes: FastifyPluginAsyncTypebox = async (app) => {

  app.options('/api/v1/addParticipant', { schema: { hide: true } }, app.corsPreflight);
  app.options('/api/v1/getCampaign', { schema: { hide: true } }, app.corsPreflight);
  app.options('/api/v1/validateCode', { schema: { hide: true } }, app.corsPreflight);

  app.post(
    '/api/v1/addParticipant',
    {
      // Not one transaction with its key (../../http/change-unit.ts): a sign-up may wait on the mail server (a
      // confirmation link), and it is idempotent by itself (the same address twice is the same participant).
      config: { access: 'public', interfaceFields: { misnamed: MISNAMED_ON_SIGNUP }, idempotent: true, atomic: false, campaignOf: (r) => (r.body as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: 'Add a participant to a campaign, optionally as a referral',
        description:
          'Public. Idempotent per email: an existing participant is returned unchanged, and a referral is never re-assigned. ' +
          'Keyless calls are browser signups, scored for fraud; they read an existing participant\'s private fields only with proof ' +
          '(Refkit-Participant-Token or Refkit-Email-Signature), else only email, referralCode, shareLink and campaignId. ' +
          'Refkit-Signup tells created, existing or pending (waiting for email confirmation). ' +
          "Refkit-Locale (en, de, fr, es or ar) is the language of a new participant's emails. " +
          'With a secret key, a participant whose rewards are held back (held for review, or referred by one who is) comes with held and heldReason.',
        headers: ProofHeaders,
        body: AddParticipantBody,
        response: { 200: KeyedParticipant, ...errors },
      },
    },
    async (request, reply) => {
      const how: signups.SignupSource = request.actor
        ? { source: 'api', ip: null, actor: request.actor, locale: localeOf(request) }
        : { source: 'browser', ip: request.ip, proof: proofOf(request), admit: app.signupAdmission(request), locale: localeOf(request), countryHeader: countryHeader(request.ctx.fraud, request.headers) };
      const result = await signups.addParticipant(request.ctx, request.body, how);
      const body = presentSignup(reply, result);
      return request.actor && result.participant ? { ...body, ...(await holdOf(request.ctx, result.participant)) } : body;
    },
  );

  app.get(
    '/api/v1/getCampaign',
    {
      config: { interfaceFields: {}, access: 'public', campaignOf: (r) => (r.query as { id?: string }).id },
      preHandler: app.publicRateLimit,
      schema: { tags, summary: 'Read a campaign', querystring: CampaignQuery, response: { 200: Campaign, ...errors } },
    },
    async (request) => {
      return campaignView(request.ctx, await findCampaign(request.ctx, request.query.id));
    },
  );

  app.get(
    '/api/v1/validateCode',
    {
      config: { interfaceFields: {}, access: 'public', campaignOf: (r) => (r.query as { campaignId?: string }).campaignId },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: 'Check a referrer code',
        description: 'Public. A bare true or false. A keyless (browser) check of a valid code counts one impression per visitor and day.',
        querystring: ValidateCodeQuery,
        response: { 200: Type.Boolean(), ...errors },
      },
    },
    async (request) => participants.validateCode(request.ctx, request.query.campaignId, request.query.code, request.actor ? undefined : visitorOf(request)),
  );

  app.get(
    '/api/v1/getParticipant',
    {
      config: { interfaceFields: {}, access: 'secret' },
      schema: { tags, security: bearer, summary: 'Read one participant', querystring: ParticipantQuery, response: { 200: Participant, ...errors } },
    },
    async (request) => presentView(await participants.answerParticipant(request.ctx, requireActor(request), request.query.id, request.query.email)),
  );

  app.get(
    '/api/v1/getAllParticipants',
    {
      config: { interfaceFields: {}, access: 'secret' },
      schema: {
        tags,
        security: bearer,
        summary: 'List the participants of a campaign',
        description: 'Ordered by createdOn, then id. page/pageSize (20, at most 100; page reaches the first 10,000 rows) or cursor; the next page is in the Link header.',
        querystring: AllParticipantsQuery,
        response: { 200: Type.Array(Participant), ...errors },
      },
    },
    async (request, reply) => {
      const { id, ...paging } = request.query;
      const page = await participants.listParticipants(request.ctx, requireActor(request), id, paging);
      linkNext(request, reply, page.next);
      return presentPage(page);
    },
  );

  app.get(
    '/api/v1/getReferrals',
    {
      config: { interfaceFields: {}, access: 'secret' },
      schema: {
        tags,
        security: bearer,
        summary: 'List the referrals of a participant',
        description: 'Paged as getAllParticipants.',
        querystring: ReferralsQuery,
        response: { 200: Type.Array(Participant), ...errors },
      },
    },
    async (request, reply) => {
      const { id, email, ...paging } = request.query;
      const page = await participants.listReferrals(request.ctx, requireActor(request), id, email, paging);
      linkNext(request, reply, page.next);
      return presentPage(page);
    },
  );

  app.post(
    '/api/v1/qualifyParticipant',
    {
      config: { interfaceFields: {}, access: 'secret', idempotent: true, audit: { record: false } },
      schema: {
        tags,
        security: bearer,
        summary: 'Mark the qualifying event complete for a referred participant',
        description:
          'The first call credits both rewards once, unless they are held back: then the answer has held and heldReason, and they are ' +
          'credited when the owner approves. Every call with amountPaid adds a payment.',
        body: QualifyParticipantBody,
        response: { 200: KeyedParticipant, ...errors },
      },
    },
    async (request) => {
      const view = await rewards.qualifyParticipant(request.ctx, requireActor(request), request.body);
      return { ...presentView(view), ...(await holdOf(request.ctx, view.participant)) };
    },
  );
};
