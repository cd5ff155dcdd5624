/**
 * Sales from beyond Stripe (../domain/payment-sources.ts): one webhook receiver per provider, each in a scope
 * that reads the raw body (the signature is over its bytes), and the owner's view of every source's events
 * with matching by hand.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { StripeReceived } from '../../../api/billing-schemas.js';
import { ListPaymentEventsQuery, MatchPaymentEventBody, PaymentEventView, PROVIDER_SECRET_FIELDS } from '../../../api/payment-source-schemas.js';
import { requireActor } from '../../http/access.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { listPaymentEvents, matchPaymentEvent, receivePaymentEvent, type PaymentSource } from '../domain/payment-sources.js';
import { paddleSource } from '../domain/paddle-source.js';

/** A provider's events are a few KB; this is far over any. */
const BODY_LIMIT = 1024 * 1024;

/** Each source, how its receiver is named and described in the OpenAPI document. */
const SOURCES: { source: PaymentSource; operationId: string; name: string; events: string; signed: string }[] = [
  {
    source: paddleSource,
    operationId: 'receivePaddleEvent',
    name: 'Paddle',
    events: 'transaction.completed, adjustment.created and adjustment.updated',
    signed: 'Paddle-Signature (ts and h1, HMAC-SHA256 of "ts:body")',
  },
];

const receivers: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  for (const { source, operationId, name, events, signed } of SOURCES) {
    app.post(
      `/api/v1/integrations/${source.provider}/:campaignId`,
      {
        config: { access: 'public' as const },
        schema: {
          operationId,
          tags: ['integrations'],
          summary: `Receive a campaign's ${name} webhook events`,
          description:
            `Add this URL in ${name} with the events ${events}, and set its secret as the campaign's ${PROVIDER_SECRET_FIELDS[source.provider]}. ` +
            `Verified with ${signed}; a bad or missing signature is 400 invalid_signature and changes nothing. Each event is applied once. ` +
            'Other types are answered 200 and ignored; an event for no participant is kept unmatched (listPaymentEvents, matchPaymentEvent); one in ' +
            "another currency than the campaign's rewardCurrency is converted with the amount the provider settled in it, else kept held. See docs/billing.md.",
          params: Type.Object({ campaignId: Type.String({ format: 'line', minLength: 1, maxLength: 64 }) }),
          response: { 200: StripeReceived, ...ownerErrors },
        },
      },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const { outcome, reason } = await receivePaymentEvent(request.ctx, source, request.params.campaignId, body, request.headers);
        return { received: true as const, outcome, ...(reason && { reason }) };
      },
    );
  }
};

export const paymentSourceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(receivers);

  app.get(
    '/api/v1/admin/listPaymentEvents',
    {
      config: { access: 'secret' as const },
      schema: {
        ...ownerRoute('admin'),
        summary: 'The payment events a campaign received from every source (Stripe and the others), newest first',
        description: 'provider and status filter; an unmatched one is matched by hand with matchPaymentEvent, by the id shown here (<provider>:<id>).',
        querystring: ListPaymentEventsQuery,
        response: { 200: Type.Array(PaymentEventView), ...ownerErrors },
      },
    },
    async (request) => listPaymentEvents(request.ctx, requireActor(request), request.query.id, request.query.provider, request.query.status, request.query.limit ?? 50),
  );

  app.post(
    '/api/v1/admin/matchPaymentEvent',
    {
      config: { access: 'secret' as const, idempotent: true },
      schema: {
        ...ownerRoute('admin'),
        summary: 'Apply an unmatched payment event (of any source) to a participant',
        body: MatchPaymentEventBody,
        response: { 200: PaymentEventView, ...ownerErrors },
      },
    },
    async (request) => matchPaymentEvent(request.ctx, requireActor(request), request.body.id, request.body.eventId, request.body.email),
  );
};
