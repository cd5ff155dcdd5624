/** Disputes' admin routes: open one (billing outside Stripe), close it, list a payer's (../domain/disputes.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CloseDisputeBody, DisputeList, DisputePaymentBody, DisputeView, ListDisputesQuery } from '../../../api/dispute-schemas.js';
import { closeDispute, disputePayment, listDisputes } from '../domain/disputes.js';
import { requireActor } from '../../http/access.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('admin');

export const disputeAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/admin/disputePayment',
    {
      config: { access: 'secret' as const, idempotent: true },
      schema: {
        ...common,
        summary: "Record a dispute (chargeback) of a referee's payment: what it earned is not paid out while it is open",
        description:
          'The payment given (paymentId), or the latest with something left to refund. While open, the pending credits it earned (its ' +
          'commission inside the hold, and for a dispute of all that is left of the qualifying payment the referral\'s fixed rewards) stay ' +
          'pending past their date, and an available commission is reversed in the disputed share. Idempotent on disputeId. 409 ' +
          'dispute_exceeds_payment when the amount is more than is left of the payment, dispute_open when the payment has an open dispute.',
        body: DisputePaymentBody,
        response: { 200: DisputeView, ...errors },
      },
    },
    async (request) => disputePayment(request.ctx, requireActor(request), request.body),
  );

  app.post(
    '/api/v1/admin/closeDispute',
    {
      config: { access: 'secret' as const, idempotent: true, audit: { target: (f) => String(f.disputeId) } },
      schema: {
        ...common,
        summary: 'Close a dispute: won gives back what it held or reversed, lost is a refund of its amount',
        description: 'Closing it again with the same outcome changes nothing; 409 invalid_transition with the other outcome.',
        body: CloseDisputeBody,
        response: { 200: DisputeView, ...errors },
      },
    },
    async (request) => closeDispute(request.ctx, requireActor(request), request.body),
  );

  app.get(
    '/api/v1/admin/listDisputes',
    {
      config: { access: 'secret' as const },
      schema: { ...common, summary: "A participant's disputes as the payer, newest first", querystring: ListDisputesQuery, response: { 200: DisputeList, ...errors } },
    },
    async (request) => listDisputes(request.ctx, requireActor(request), request.query.id, request.query.email),
  );
};
