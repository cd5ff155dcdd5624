/** The shapes of the Stripe integration's routes (src/server/integrations/stripe.ts). */
import { Type, type Static } from '@sinclair/typebox';

/** The metadata key (on a Checkout Session, invoice, subscription or charge) that carries a referral code. */
export const REFKIT_CODE_METADATA = 'refkit_code';

export const STRIPE_EVENT_STATUSES = ['applied', 'unmatched', 'ignored'] as const;

/** A Stripe event a campaign received, as the owner reviews it. */
export const StripeEventView = Type.Object({
  id: Type.String({ description: "Stripe's event id (evt_...)" }),
  type: Type.String({ description: 'invoice.paid, checkout.session.completed, charge.refunded or charge.dispute.created' }),
  status: Type.Union(STRIPE_EVENT_STATUSES.map((s) => Type.Literal(s)), {
    description: '`applied`: it paid, refunded or linked a participant; `unmatched`: no participant found (match it by hand); `ignored`: nothing to do, see reason',
  }),
  action: Type.Optional(Type.Union([Type.Literal('payment'), Type.Literal('refund')])),
  amount: Type.Optional(Type.String({ description: 'In the currency, two decimals (for charge.refunded: what was refunded of the charge in all)' })),
  currency: Type.Optional(Type.String()),
  email: Type.Optional(Type.String({ description: "The customer's email as Stripe sent it" })),
  code: Type.Optional(Type.String({ description: 'The referral code it carried (client_reference_id or metadata.refkit_code)' })),
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

export const StripeReceived = Type.Object({
  received: Type.Literal(true),
  outcome: Type.Union([...STRIPE_EVENT_STATUSES.map((s) => Type.Literal(s)), Type.Literal('duplicate')], {
    description: '`duplicate`: this event id was received before and changes nothing again',
  }),
});
