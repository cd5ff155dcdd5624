/** The reward engine's admin routes: refunds, the program's liability and its ledger as CSV. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CampaignQuery, KeyedParticipant, RefundPaymentBody, RewardLiability } from '../../../api/schemas.js';
import { BacktestAnswer, BacktestRulesBody } from '../../../api/backtest-schemas.js';
import { backtestRules } from '../domain/backtest.js';
import { exportRewardEntries, rewardLiability } from '../domain/liability.js';
import { presentView } from '../../referrals/domain/present.js';
import { refundPayment } from '../domain/refunds.js';
import { requireActor } from '../../http/access.js';
import { bulkExport, participantChange } from '../../http/audit-specs.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { CsvStream } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('admin');

export const rewardAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/admin/refundPayment',
    {
      config: { access: 'secret' as const, idempotent: true, audit: participantChange },
      schema: {
        ...common,
        summary: "Record a refund of a referee's payment, and take back what it earned",
        description:
          'The refund is taken from the payment given (paymentId) or from the latest payments first. The commission each payment earned ' +
          'its referrer is reversed in proportion: a pending one cancelled, an available one taken back from the balance (never below zero; ' +
          'the rest is owed and netted from later credits). A full refund of the qualifying payment while the fixed rewards are pending (or ' +
          'never credited) undoes the referral. 409 refund_exceeds_payments when more is refunded than is left to refund; 409 dispute_open when more ' +
          'is refunded than is neither refunded nor under an open dispute (the dispute settles its amount when it closes).',
        body: RefundPaymentBody,
        response: { 200: KeyedParticipant, ...errors },
      },
    },
    async (request) => presentView(await refundPayment(request.ctx, requireActor(request), request.body)),
  );

  app.post(
    '/api/v1/admin/backtestRules',
    {
      // It changes nothing, so a viewer may run it and nothing is recorded in the audit log.
      config: { access: 'secret' as const, permission: 'read' as const },
      schema: {
        ...common,
        summary: 'What would this offer have cost? Replays the campaign under proposed rules, beside its current ones',
        description:
          "Replays the campaign's recorded referral credits, payments and refunds from its start to the end of `to` under the current " +
          'rules and under `rules` (each field given replaces the current one, as updateCampaign would), and answers per month (UTC) ' +
          'what each would have credited, paid, held and reversed, the ceiling and milestone hits and the reward codes used, and the ' +
          'difference. Reads only: it writes nothing, not even the audit log. `limitations` says what it cannot know (behaviour ' +
          'the new offer would change, facts the service does not record). 400 for bad rules or a period that ends before it begins ' +
          'or spans more than 120 months.',
        body: BacktestRulesBody,
        response: { 200: BacktestAnswer, ...errors },
      },
    },
    async (request) => backtestRules(request.ctx, requireActor(request), request.body),
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
    async (request) => rewardLiability(request.ctx, requireActor(request), request.query.id),
  );

  app.get(
    '/api/v1/admin/exportRewardEntries',
    {
      // A bulk read of the ledger: who took it, and when, is recorded (../../http/audit-trail.ts).
      config: { access: 'secret' as const, audit: bulkExport },
      schema: {
        ...common,
        summary: "Every entry of a campaign's reward ledger as CSV, oldest first",
        querystring: CampaignQuery,
        produces: ['text/csv'],
        response: { 200: CsvStream, ...errors },
      },
    },
    async (request, reply) => {
      const { campaign, csv } = await exportRewardEntries(request.ctx, requireActor(request), request.query.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="reward-ledger-${campaign.id}.csv"`)
        .send(csv);
    },
  );
};
