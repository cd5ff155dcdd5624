/**
 * The payout providers' webhook receivers (../domain/payout-events.ts), one per Refkit account: PayPal's
 * Payouts events and Stripe's Connect events. In a scope of their own: each signature is over the raw
 * bytes, so JSON is not parsed here.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ownerErrors } from '../../http/owner-route-docs.js';
import { receivePayPalEvent, receiveStripeConnectEvent } from '../domain/payout-events.js';

/** Both providers' events are a few KB. */
const BODY_LIMIT = 1024 * 1024;

const Params = Type.Object({ accountId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true, description: "The account's id (getAccountSettings)" }) });
const Received = Type.Object(
  {
    received: Type.Literal(true),
    outcome: Type.Union([Type.Literal('applied'), Type.Literal('ignored')], { description: '`ignored`: verified, and nothing to do (with the reason)' }),
    reason: Type.Optional(Type.String()),
  },
  { description: 'The event was verified, and applied or ignored' },
);
const AnyEvent = Type.Object({}, { additionalProperties: true, description: "The provider's event, as its webhook reference shows it" });

export const payoutReceiverRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  const raw = (body: unknown) => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  app.post(
    '/api/v1/integrations/paypal/:accountId',
    {
      config: { access: 'public' as const, documentedBody: AnyEvent },
      schema: {
        operationId: 'receivePayPalEvent',
        tags: ['integrations'],
        summary: "Receive PayPal's Payouts webhook events (live and sandbox)",
        description:
          'Add this URL as a webhook of the PayPal REST app (live and sandbox alike) with the PAYMENT.PAYOUTS-ITEM.* and PAYMENT.PAYOUTSBATCH.* events, ' +
          "and set the webhook's id as paypal.webhookId (paypalSandbox.webhookId) in the account settings. Each delivery is verified by PayPal " +
          '(verify-webhook-signature): 400 invalid_signature when it does not verify, 503 when PayPal cannot be asked (PayPal sends it again). ' +
          'An item event ends its payout (paid, failed, returned, unclaimed) once.',
        params: Params,
        response: { 200: Received, ...ownerErrors },
      },
    },
    async (request) => receivePayPalEvent(request.ctx, request.params.accountId, raw(request.body), request.headers),
  );

  app.post(
    '/api/v1/integrations/stripe-connect/:accountId',
    {
      config: { access: 'public' as const, documentedBody: AnyEvent },
      schema: {
        tags: ['integrations'],
        summary: "Receive Stripe's Connect webhook events (live and test)",
        description:
          'Add this URL in Stripe as an endpoint that listens to events on connected accounts, with account.updated, and set its signing ' +
          "secret as stripe.connectWebhookSecret (stripeTest.connectWebhookSecret). account.updated keeps whether the participant's account can be paid.",
        params: Params,
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 4096 })) }),
        response: { 200: Received, ...ownerErrors },
      },
    },
    async (request) => receiveStripeConnectEvent(request.ctx, request.params.accountId, raw(request.body), request.headers['stripe-signature']),
  );
};
