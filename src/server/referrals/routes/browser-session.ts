/**
 * What a browser calls beyond the interface to hold a participant's proof: following an emailed link
 * (verifyEmail: confirms a pending sign-up or proves an existing participant, and issues a token) and
 * giving the token up (signOut). Public like addParticipant: origin-checked and rate limited.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiErrorBody, CampaignIdBody, LocaleTag, Ok, Participant, ProofHeaders, VerifyEmailBody } from '../../../api/schemas.js';
import { revokeToken } from '../domain/proof.js';
import * as signups from '../domain/signups.js';
import { localeOf, presentSignup, proofOf } from './signup-answer.js';

const errors = { 400: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody, 503: ApiErrorBody };
const tags = ['browser'];
const LocaleHeaders = Type.Object({ 'refkit-locale': Type.Optional(LocaleTag) });

const campaignOfBody = (r: { body: unknown }) => (r.body as { id?: string }).id;

export const browserSessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.options('/api/v1/verifyEmail', { schema: { hide: true } }, app.corsPreflight);
  app.options('/api/v1/signOut', { schema: { hide: true } }, app.corsPreflight);

  app.post(
    '/api/v1/verifyEmail',
    {
      config: { access: 'public', campaignOf: campaignOfBody },
      // Per client only: confirming a sign-up was counted by the sign-up limits when it was made.
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: 'Follow an emailed link',
        description:
          'Public. `token` is the refkit_verify parameter of a link the service emailed. Confirms a pending sign-up (the participant is ' +
          'created then, with the referrer the link was sent for) or proves an existing participant. Answers the participant without ' +
          'fraudScore, and a new participant token in the Refkit-Participant-Token header. A link works once, for 24 hours.',
        headers: LocaleHeaders,
        body: VerifyEmailBody,
        response: { 200: Participant, ...errors },
      },
    },
    async (request, reply) => presentSignup(reply, await signups.verifyEmail(request.ctx, request.body.id, request.body.token, request.ip, localeOf(request))),
  );

  app.post(
    '/api/v1/signOut',
    {
      config: { access: 'public', campaignOf: campaignOfBody },
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: "Give up this browser's participant token",
        description: 'Public. Revokes the token in Refkit-Participant-Token; answers ok whether or not it was valid.',
        headers: ProofHeaders,
        body: CampaignIdBody,
        response: { 200: Ok, ...errors },
      },
    },
    async (request) => {
      const { token } = proofOf(request);
      if (token !== undefined) await revokeToken(request.ctx, token);
      return { ok: true as const };
    },
  );
};
