/** The reward engine's admin routes: refunds, the program's liability and its ledger as CSV. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiErrorBody, CampaignQuery, KeyedParticipant, RefundPaymentBody, RewardLiability } from '../../api/schemas.js';
import type { Ctx } from '../domain/context.js';
import { exportRewardEntries, rewardLiability } from '../domain/liability.js';
import { presentView } from '../domain/present.js';
import { refundPayment } from '../domain/refunds.js';
import { requireActor } from '../http/access.js';
import { participantChange } from './audit-specs.js';

const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { sessionCookie: [] }];
const common = { tags: ['admin'], security };

export const rewardAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/admin/refundPayment',
    {
      config: { access: 'secret' as const, idempotent: true, audit: participantChange(ctx) },
      schema: {
        ...common,
        summary: "Record a refund of a referee's payment, and take back what it earned",
        description:
          'The refund is taken from the payment given (paymentId) or from the latest payments first. The commission each payment earned ' +
          'its referrer is reversed in proportion: a pending one cancelled, an available one taken back from the balance (never below zero; ' +
          'the rest is owed and netted from later credits). A full refund of the qualifying payment while the fixed rewards are pending (or ' +
          'never credited) undoes the referral. 409 refund_exceeds_payments when more is refunded than is left to refund.',
        body: RefundPaymentBody,
        response: { 200: KeyedParticipant, ...errors },
      },
    },
    async (request) => presentView(await refundPayment(ctx, requireActor(request), request.body)),
  );

  app.get(
    '/api/v1/admin/getRewardLiability',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "The program's reward liability: pending, available, redeemed and owed, per balance and in total",
        querystring: CampaignQuery,
        response: { 200: RewardLiability, ...errors },
      },
    },
    async (request) => rewardLiability(ctx, requireActor(request), request.query.id),
  );

  app.get(
    '/api/v1/admin/exportRewardEntries',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "Every entry of a campaign's reward ledger as CSV, oldest first",
        querystring: CampaignQuery,
        produces: ['text/csv'],
      },
    },
    async (request, reply) => {
      const { campaign, csv } = await exportRewardEntries(ctx, requireActor(request), request.query.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="reward-ledger-${campaign.id}.csv"`)
        .send(csv);
    },
  );
};
