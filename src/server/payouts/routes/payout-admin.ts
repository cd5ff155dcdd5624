/** The owner's routes of cash payouts (docs/payouts.md): payout methods, runs, approval, the list and a run's CSV. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminSetPayoutMethodBody,
  ApprovePayoutsBody,
  CancelPayoutsBody,
  CashPayout,
  CreatePayoutsAnswer,
  CreatePayoutsBody,
  ListPayoutsQuery,
  PayoutMethodView,
  PayoutsAnswer,
  TaxReportQuery,
} from '../../../api/payout-schemas.js';
import { bulkExport, participantChange } from '../../http/audit-specs.js';

/** A run, an approval or a cancellation: recorded with its campaign; the payouts are in the answer, not copied. */
const payoutRun = bulkExport;
import { exportTaxReport } from '../domain/tax-report.js';
import { requireActor } from '../../http/access.js';
import { linkNext } from '../../http/link-next.js';
import { CsvStream, ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import { getParticipant } from '../../referrals/domain/participants.js';
import { setPayoutMethod } from '../domain/payout-methods.js';
import { approvePayouts, cancelPayouts, createPayouts, listPayouts, presentPayout } from '../domain/payout-runs.js';

const errors = ownerErrors;
const common = ownerRoute('admin');

export const payoutAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/admin/setPayoutMethod',
    {
      config: { access: 'secret' as const, idempotent: true, audit: participantChange },
      schema: {
        ...common,
        summary: "Set where a participant's cash payouts go: PayPal (with their PayPal address) or their Stripe Connect account",
        description:
          "The method must be one of the campaign's cashPayouts.methods (400; 409 cash_payouts_off without cashPayouts). For stripe_connect the " +
          'participant connects their account from the portal (connectStripe); until Stripe says it can be paid, runs skip them.',
        body: AdminSetPayoutMethodBody,
        response: { 200: PayoutMethodView, ...errors },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      const campaign = await ownCampaign(request.ctx, actor, request.body.id);
      const { participant } = await getParticipant(request.ctx, actor, campaign.id, request.body.email);
      return setPayoutMethod(request.ctx, campaign, participant.id, request.body);
    },
  );

  app.post(
    '/api/v1/admin/createPayouts',
    {
      config: { access: 'secret' as const, idempotent: true, audit: payoutRun },
      schema: {
        ...common,
        summary: 'Make a payout run: one cash payout per participant whose available balances reach the minimum',
        description:
          "Each payout takes the participant's available referral and referee balances together and reserves them (no redemption takes them " +
          'meanwhile). Skipped, with the reason: under the minimum, no payout method (or a Stripe account not yet payable), tax details missing ' +
          "past the year's threshold. With cashPayouts.approval the payouts wait in pending_approval for approvePayouts; otherwise they are sent at once.",
        body: CreatePayoutsBody,
        response: { 200: CreatePayoutsAnswer, ...errors },
      },
    },
    async (request) => createPayouts(request.ctx, requireActor(request), request.body.id),
  );

  app.post(
    '/api/v1/admin/approvePayouts',
    {
      config: { access: 'secret' as const, idempotent: true, audit: payoutRun },
      schema: {
        ...common,
        summary: 'Approve payouts waiting for approval: they are sent (PayPal ones in one batch)',
        description: 'A payout not in pending_approval is left as it is; every payout is answered as it is now. 404 payout_not_found for an id the campaign does not have (nothing is approved).',
        body: ApprovePayoutsBody,
        response: { 200: PayoutsAnswer, ...errors },
      },
    },
    async (request) => approvePayouts(request.ctx, requireActor(request), request.body.id, request.body.payoutIds),
  );

  app.post(
    '/api/v1/admin/cancelPayouts',
    {
      config: { access: 'secret' as const, idempotent: true, audit: payoutRun },
      schema: {
        ...common,
        summary: 'Cancel payouts waiting for approval: their amounts are back on the balances',
        body: CancelPayoutsBody,
        response: { 200: PayoutsAnswer, ...errors },
      },
    },
    async (request) => cancelPayouts(request.ctx, requireActor(request), request.body.id, request.body.payoutIds),
  );

  app.get(
    '/api/v1/admin/exportTaxReport',
    {
      // Across the account's live campaigns: no test key reads it (../../http/permissions.ts).
      config: { access: 'secret' as const, accountWide: true as const, audit: bulkExport },
      schema: {
        ...common,
        summary: "The year's 1099-NEC candidates as CSV: people paid by PayPal in USD past the year's threshold (not tax advice)",
        description:
          "One row per person paid by PayPal in USD from the account's live campaigns in the calendar year (UTC), at least the year's threshold " +
          '(tax.thresholds) in all, who did not give a W-8BEN: their tax details (TIN masked), payouts and total. Stripe Connect payouts are not ' +
          'listed: Stripe collects its connected accounts\' tax details and files their forms itself.',
        querystring: TaxReportQuery,
        produces: ['text/csv'],
        response: { 200: CsvStream, ...errors },
      },
    },
    async (request, reply) => {
      const csv = await exportTaxReport(request.ctx, requireActor(request), request.query.year);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="tax-report-${request.query.year}.csv"`)
        .send(csv);
    },
  );

  app.get(
    '/api/v1/admin/listPayouts',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "A campaign's cash payouts, newest first",
        description: 'Paged as getAllParticipants (page/pageSize, or the cursor of the Link header); status and runId filter.',
        querystring: ListPayoutsQuery,
        response: { 200: Type.Array(CashPayout), ...errors },
      },
    },
    async (request, reply) => {
      const page = await listPayouts(request.ctx, requireActor(request), request.query);
      linkNext(request, reply, page.next);
      return page.rows.map(presentPayout);
    },
  );
};
