/** The shapes of sales from beyond Stripe (src/server/billing/domain/payment-sources.ts): the providers, their events, matching by hand. */
import { Type, type Static } from '@sinclair/typebox';

/** What became of a payment event, from any source (Stripe's included). */
export const PAYMENT_EVENT_STATUSES = ['applied', 'unmatched', 'ignored', 'held'] as const;

/** The providers whose webhooks Refkit receives besides Stripe, each at POST /api/v1/integrations/<provider>/{campaignId}. */
export const PAYMENT_PROVIDERS = ['paddle', 'lemonsqueezy', 'shopify', 'chargebee', 'segment'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** The campaign field holding each provider's write-only secret. */
export const PROVIDER_SECRET_FIELDS = {
  paddle: 'paddleWebhookSecret',
  lemonsqueezy: 'lemonSqueezyWebhookSecret',
  shopify: 'shopifyWebhookSecret',
  chargebee: 'chargebeeWebhookAuth',
  segment: 'segmentSharedSecret',
} as const satisfies Record<PaymentProvider, string>;

const Secret = (what: string) => Type.Optional(Type.String({ format: 'line', maxLength: 500, description: `${what}; write-only (settings show paymentSourcesConfigured); '' removes it` }));

/** The write-only campaign fields of the providers' secrets. */
export const PaymentSecretFields = {
  paddleWebhookSecret: Secret("The secret key of the campaign's Paddle notification destination (pdl_ntfset_...)"),
  lemonSqueezyWebhookSecret: Secret("The signing secret of the campaign's Lemon Squeezy webhook"),
  shopifyWebhookSecret: Secret("The Shopify app's client secret (or the store's webhook signing key) its webhooks are signed with"),
  chargebeeWebhookAuth: Type.Optional(
    Type.String({ format: 'line', pattern: '^([^:]{1,200}:.{1,200})?$', description: "\"user:password\": the basic auth of the campaign's Chargebee webhook; write-only; '' removes it" }),
  ),
  segmentSharedSecret: Secret("The shared secret of the campaign's Segment webhook destination"),
};

export const PaymentEventView = Type.Object({
  id: Type.String({ description: "`<provider>:<the provider's event id>`: what matchPaymentEvent takes" }),
  provider: Type.String({ description: `stripe, ${PAYMENT_PROVIDERS.join(', ')}` }),
  type: Type.String({ description: "The provider's event type" }),
  status: Type.Union(PAYMENT_EVENT_STATUSES.map((s) => Type.Literal(s)), {
    description: '`applied`, `unmatched` (match it by hand), `ignored` (see reason), `held` (another currency, no rate to convert it: see reason)',
  }),
  action: Type.Optional(Type.String({ description: 'payment, refund, dispute, dispute_won or dispute_lost' })),
  amount: Type.Optional(Type.String({ description: 'In the event\'s currency, two decimals' })),
  currency: Type.Optional(Type.String()),
  convertedAmount: Type.Optional(Type.String({ description: "In the campaign's rewardCurrency, when the event was in another: what was applied" })),
  rate: Type.Optional(Type.String({ description: 'How it was converted' })),
  email: Type.Optional(Type.String()),
  code: Type.Optional(Type.String({ description: "The participant's own referral code it carried" })),
  referrerCode: Type.Optional(Type.String({ description: "A participant's code used as the discount code: its owner is the buyer's referrer" })),
  participantEmail: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  receivedOn: Type.String({ format: 'date-time' }),
});
export type PaymentEventView = Static<typeof PaymentEventView>;

export const ListPaymentEventsQuery = Type.Object({
  id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
  provider: Type.Optional(Type.Union(['stripe', ...PAYMENT_PROVIDERS].map((p) => Type.Literal(p)))),
  status: Type.Optional(Type.Union(PAYMENT_EVENT_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-finite': true, default: 50 })),
});
export type ListPaymentEventsQuery = Static<typeof ListPaymentEventsQuery>;

export const MatchPaymentEventBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' }),
    eventId: Type.String({ format: 'line', minLength: 1, maxLength: 300, description: 'The id listPaymentEvents shows (`<provider>:<id>`)' }),
    email: Type.String({ format: 'line', minLength: 1, maxLength: 320, description: 'The participant to apply it to' }),
  },
  { additionalProperties: false },
);
export type MatchPaymentEventBody = Static<typeof MatchPaymentEventBody>;

const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'An ISO 4217 code in capitals' });

export const SetExchangeRatesBody = Type.Object(
  {
    base: CurrencyCode,
    rates: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number({ exclusiveMinimum: 0, maximum: 1e9, 'x-finite': true }), {
      description: 'Units of base per one unit of each currency: {"EUR": 1.08} with base USD says 1 EUR = 1.08 USD',
      maxProperties: 200,
    }),
    asOf: Type.String({ format: 'date-time', description: 'When the rates were true (shown beside them)' }),
  },
  { additionalProperties: false },
);
export type SetExchangeRatesBody = Static<typeof SetExchangeRatesBody>;

export const ExchangeRates = Type.Object({
  base: Type.String(),
  rates: Type.Record(Type.String(), Type.Number()),
  asOf: Type.String({ format: 'date-time' }),
  updatedOn: Type.String({ format: 'date-time' }),
});
export type ExchangeRates = Static<typeof ExchangeRates>;

export const ExchangeRatesAnswer = Type.Composite([ExchangeRates, Type.Object({ applied: Type.Integer({ description: 'Events held for their currency that these rates converted and applied' }) })]);
