/**
 * Sales from beyond Stripe (../domain/payment-sources.ts): one webhook receiver per provider, each in a scope
 * that reads the raw body (the signature is over its bytes), and the owner's view of every source's events
 * with matching by hand.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { StripeReceived } from '../../../api/billing-schemas.js';
import {
  ExchangeRates,
  ExchangeRatesAnswer,
  ListPaymentEventsQuery,
  MatchPaymentEventBody,
  PaymentEventView,
  PROVIDER_SECRET_FIELDS,
  SetExchangeRatesBody,
} from '../../../api/payment-source-schemas.js';
import { getExchangeRates, setExchangeRates } from '../domain/exchange-rates.js';
import { requireActor } from '../../http/access.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { listPaymentEvents, matchPaymentEvent, receivePaymentEvent, type PaymentSource } from '../domain/payment-sources.js';
import { paddleSource } from '../domain/paddle-source.js';
import { lemonSqueezySource } from '../domain/lemonsqueezy-source.js';
import { shopifySource } from '../domain/shopify-source.js';
import { chargebeeSource } from '../domain/chargebee-source.js';
import { segmentSource } from '../domain/segment-source.js';

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
  {
    source: lemonSqueezySource,
    operationId: 'receiveLemonSqueezyEvent',
    name: 'Lemon Squeezy',
    events: 'order_created, subscription_payment_success and order_refunded',
    signed: 'X-Signature (hex HMAC-SHA256 of the body with the signing secret)',
  },
  {
    source: shopifySource,
    operationId: 'receiveShopifyEvent',
    name: 'Shopify',
    events: 'orders/paid and refunds/create (JSON)',
    signed: 'X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the body with the client secret)',
  },
  {
    source: chargebeeSource,
    operationId: 'receiveChargebeeEvent',
    name: 'Chargebee',
    events: 'payment_succeeded and payment_refunded (API version v2)',
    signed: 'basic authentication (Authorization: Basic, the username and password of the webhook as "user:password")',
  },
  {
    source: segmentSource,
    operationId: 'receiveSegmentEvent',
    name: 'Segment',
    events: 'the track calls Order Completed and Order Refunded (the V2 Ecommerce spec), as a Webhooks destination',
    signed: 'X-Signature (hex HMAC-SHA1 of the body with the shared secret)',
  },
];

const receivers: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  for (const { source, operationId, name, events, signed } of SOURCES) {
    app.post(
      `/api/v1/integrations/${source.provider}/:campaignId`,
      {
        // Chargebee authenticates its deliveries with Authorization: Basic, which the source verifies (not a Refkit key).
        config: { access: 'public' as const, ownAuthorization: true },
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

  // The account's rates hold for both modes' campaigns: no test key sets them (../../http/permissions.ts).
  app.get(
    '/api/v1/admin/getExchangeRates',
    {
      config: { access: 'secret' as const, accountWide: true as const },
      schema: {
        ...ownerRoute('admin'),
        summary: "The account's exchange rates (exchangeRates null: none set)",
        response: { 200: Type.Object({ exchangeRates: Type.Union([ExchangeRates, Type.Null()]) }), ...ownerErrors },
      },
    },
    async (request) => ({ exchangeRates: await getExchangeRates(request.ctx, requireActor(request)) }),
  );

  app.post(
    '/api/v1/admin/setExchangeRates',
    {
      config: { access: 'secret' as const, accountWide: true as const, idempotent: true },
      schema: {
        ...ownerRoute('admin'),
        summary: "Set the account's exchange rates: what converts a payment in another currency than its campaign's",
        description:
          'Units of base per one unit of each currency, dated by asOf: {"base":"USD","rates":{"EUR":1.08},"asOf":"..."}. Used when the provider gave no ' +
          "amount in the campaign's currency; events held for their currency that these rates convert are applied at once (applied says how many). " +
          '403 forbidden to test keys (the rates hold for the whole account).',
        body: SetExchangeRatesBody,
        response: { 200: ExchangeRatesAnswer, ...ownerErrors },
      },
    },
    async (request) => setExchangeRates(request.ctx, requireActor(request), request.body),
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
