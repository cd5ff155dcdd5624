/** The shapes of the Stripe integration's routes (src/server/billing/domain/stripe-events.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from './schemas.js';
import { PAYMENT_EVENT_STATUSES } from './payment-source-schemas.js';

/** The metadata key (on a Checkout Session, invoice, subscription or charge) that carries a referral code. */
export const REFKIT_CODE_METADATA = 'refkit_code';

/** The Stripe events Refkit acts on: those to select on the Stripe endpoint (README, the Billing page). */
export const STRIPE_EVENT_TYPES = ['invoice.paid', 'checkout.session.completed', 'charge.refunded', 'charge.dispute.created', 'charge.dispute.closed'] as const;

export const STRIPE_EVENT_STATUSES = PAYMENT_EVENT_STATUSES;

/** A Stripe event a campaign received, as the owner reviews it. */
export const StripeEventView = Type.Object({
  id: Type.String({ description: "Stripe's event id (evt_...)" }),
  type: Type.String({ description: STRIPE_EVENT_TYPES.join(', ') }),
  status: Type.Union(STRIPE_EVENT_STATUSES.map((s) => Type.Literal(s)), {
    description:
      '`applied`: it paid, refunded or linked a participant; `unmatched`: no participant found (match it by hand); `ignored`: nothing to do, see reason; ' +
      "`held`: its amount is in another currency than the campaign's rewardCurrency, kept unapplied (see reason), never taken 1:1",
  }),
  action: Type.Optional(Type.Union(['payment', 'refund', 'dispute', 'dispute_won', 'dispute_lost'].map((a) => Type.Literal(a)))),
  amount: Type.Optional(Type.String({ description: 'In the currency, two decimals (for charge.refunded: what was refunded of the charge in all)' })),
  currency: Type.Optional(Type.String()),
  email: Type.Optional(Type.String({ description: "The customer's email as Stripe sent it" })),
  code: Type.Optional(Type.String({ description: 'The referral code it carried (client_reference_id or metadata.refkit_code)' })),
  promotionCode: Type.Optional(Type.String({ description: "The Stripe promotion code (promo_...) its discount used: a participant's makes the buyer their referee" })),
  participantEmail: Type.Optional(Type.String({ description: 'The participant it was applied to' })),
  reason: Type.Optional(Type.String()),
  receivedOn: Type.String({ format: 'date-time' }),
});
export type StripeEventView = Static<typeof StripeEventView>;

export const ListStripeEventsQuery = Type.Object({
  id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
  status: Type.Optional(Type.Union(STRIPE_EVENT_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-finite': true, default: 50 })),
});
export type ListStripeEventsQuery = Static<typeof ListStripeEventsQuery>;

export const MatchStripeEventBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' }),
    eventId: Type.String({ format: 'line', minLength: 1, maxLength: 255 }),
    email: Type.String({ format: 'line', minLength: 1, maxLength: 320, description: 'The participant to apply it to' }),
  },
  { additionalProperties: false },
);
export type MatchStripeEventBody = Static<typeof MatchStripeEventBody>;

const StripeId = (description: string) => Type.Union([Type.String(), Type.Object({ id: Type.String() }, { additionalProperties: true }), Type.Null()], { description });

/**
 * What Stripe posts to the receiver: an Event object (Stripe's API reference, "The Event object"), of which
 * the fields Refkit reads are listed; Stripe sends more, and every field is taken as it comes. Documented for
 * clients and tools only: the route reads the raw bytes, as the Stripe-Signature is over them.
 */
export const StripeEventBody = Type.Object(
  {
    id: Type.String({ description: 'The event id (evt_...): each is applied once' }),
    object: Type.Literal('event'),
    type: Type.String({ description: `The event type; Refkit acts on ${STRIPE_EVENT_TYPES.join(', ')} and answers any other 200, ignored` }),
    api_version: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    created: Type.Integer({ description: 'Epoch seconds' }),
    livemode: Type.Boolean(),
    pending_webhooks: Type.Optional(Type.Integer()),
    account: Type.Optional(Type.String({ description: 'The connected account (acct_...), for Connect events' })),
    request: Type.Optional(Type.Union([Type.Object({ id: Type.Union([Type.String(), Type.Null()]), idempotency_key: Type.Union([Type.String(), Type.Null()]) }), Type.Null()])),
    data: Type.Object({
      object: Type.Object(
        {
          id: Type.String(),
          object: Type.String({ description: 'checkout.session, invoice, charge or dispute' }),
          amount_total: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'checkout.session.completed: the amount paid, in the smallest currency unit' })),
          amount_paid: Type.Optional(Type.Integer({ description: 'invoice.paid: the amount paid, in the smallest currency unit' })),
          amount_refunded: Type.Optional(Type.Integer({ description: "charge.refunded: the charge's refunds in all, in the smallest currency unit" })),
          amount: Type.Optional(Type.Integer({ description: 'charge.dispute.*: the disputed amount, in the smallest currency unit' })),
          currency: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'ISO 4217, lower case' })),
          customer: Type.Optional(StripeId('The Stripe customer (cus_...)')),
          customer_email: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          client_reference_id: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'checkout.session: the referral code, when the checkout link carries it' })),
          metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: `${REFKIT_CODE_METADATA}: the referral code` })),
          charge: Type.Optional(StripeId('The charge (ch_...)')),
          payment_intent: Type.Optional(StripeId('The payment intent (pi_...)')),
          status: Type.Optional(Type.String({ description: 'charge.dispute.closed: won, lost, ...' })),
        },
        { additionalProperties: true, description: 'The object the event is about, as Stripe sends it' },
      ),
      previous_attributes: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { additionalProperties: true },
);

export const StripeReceived = Type.Object({
  received: Type.Literal(true),
  outcome: Type.Union([...STRIPE_EVENT_STATUSES.map((s) => Type.Literal(s)), Type.Literal('duplicate')], {
    description: '`duplicate`: this event id was received before and changes nothing again',
  }),
  reason: Type.Optional(Type.String({ description: 'Why it was held or ignored, in words' })),
});

export const STRIPE_PAYOUT_STATUSES = ['queued', 'waiting', 'paid', 'failed'] as const;
export const StripePayoutStatus = Type.Union(STRIPE_PAYOUT_STATUSES.map((s) => Type.Literal(s)), {
  description:
    '`queued`: to be sent (again, after a failed attempt, at nextAttemptOn); `waiting`: cannot be sent yet, see reason (e.g. no Stripe customer linked); ' +
    '`paid`: Stripe made it, and it was redeemed from the balance; `failed`: Stripe refused it (lastError), until retried',
});

/** A reward paid (or to be paid) into a participant's Stripe customer, as the owner reviews it. */
export const StripePayoutView = Type.Object({
  id: Type.Integer(),
  email: Type.String({ description: 'The participant' }),
  rewardKind: Type.Union([Type.Literal('referral'), Type.Literal('referee')], { description: 'The balance it is redeemed from' }),
  amount: Type.Integer({ description: 'In reward units (whole units of currency)' }),
  currency: Type.String(),
  mode: Type.Union([Type.Literal('balance'), Type.Literal('promotion_code')]),
  label: Type.String({ description: 'The credit it pays' }),
  status: StripePayoutStatus,
  attempts: Type.Integer({ description: 'Requests made to Stripe so far' }),
  lastError: Type.Optional(Type.String({ description: "Stripe's error of the last attempt, or why it waits" })),
  nextAttemptOn: Type.Optional(Type.String({ format: 'date-time' })),
  customer: Type.Optional(Type.String({ description: 'The Stripe customer (cus_...)' })),
  stripeId: Type.Optional(Type.String({ description: "Stripe's object: the customer balance transaction (cbtxn_...) or promotion code (promo_...)" })),
  promotionCode: Type.Optional(Type.String({ description: 'The code the customer enters at checkout (promotion_code mode)' })),
  createdOn: Type.String({ format: 'date-time' }),
  paidOn: Type.Optional(Type.String({ format: 'date-time' })),
});
export type StripePayoutView = Static<typeof StripePayoutView>;

export const ListStripePayoutsQuery = Type.Composite([
  Type.Object({ id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }), status: Type.Optional(StripePayoutStatus) }),
  PagingQuery,
]);
export type ListStripePayoutsQuery = Static<typeof ListStripePayoutsQuery>;

export const RetryStripePayoutBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' }),
    payoutId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true }),
  },
  { additionalProperties: false },
);
export type RetryStripePayoutBody = Static<typeof RetryStripePayoutBody>;
