/**
 * The shapes of exporting and erasing a person (admin exportPerson, erasePerson): everything stored about
 * an address across an account's campaigns, and what an erasure did. See docs/privacy.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Participant, RewardEntry } from './schemas.js';
import { MyReferral } from './widget-schemas.js';
import { CashPayout, PayoutMethodView, TaxDetailsView } from './payout-schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const When = Nullable(DateTime);

export const PersonQuery = Type.Object({ email: Email });
export type PersonQuery = Static<typeof PersonQuery>;
export const ErasePersonBody = Type.Object({ email: Email }, { additionalProperties: false });
export type ErasePersonBody = Static<typeof ErasePersonBody>;

/** One campaign's participant with the address, and everything kept about them there. */
export const PersonParticipation = Type.Object({
  campaignId: Type.String(),
  campaignName: Type.String(),
  participant: Participant,
  signup: Type.Object({
    source: Type.String({ description: 'api, browser or import' }),
    ip: Nullable(Type.String()),
    locale: Type.String({ description: 'The language of their emails' }),
    approved: Type.Boolean(),
  }),
  consent: Type.Object({
    unsubscribedOn: When,
    tokens: Type.Array(Type.Object({ createdOn: DateTime, revokedOn: When }), { description: 'Sign-ins of their browsers (the tokens themselves are kept hashed only)' }),
  }),
  referrals: Type.Array(MyReferral, { description: 'Who they referred, as the widget shows them: a first name or a masked email' }),
  rewardEntries: Type.Array(RewardEntry, { description: 'Their reward ledger, oldest first; a referee is shown masked' }),
  payments: Type.Array(
    Type.Object({
      id: Type.Integer(),
      amountCents: Type.Integer(),
      refundedCents: Type.Integer(),
      paidOn: DateTime,
      refunds: Type.Array(Type.Object({ cents: Type.Integer(), refundedOn: DateTime }), {
        description: 'Each refund of it and when it was made, oldest first (refunds recorded before dates were kept show in refundedCents only)',
      }),
    }),
  ),
  disputes: Type.Array(
    Type.Object({
      id: Type.String({ description: "The dispute's id (Stripe's, or the one given to disputePayment)" }),
      paymentId: Type.Integer(),
      amountCents: Type.Integer(),
      status: Type.Union([Type.Literal('open'), Type.Literal('won'), Type.Literal('lost')]),
      openedOn: DateTime,
      closedOn: When,
    }),
    { description: 'Disputes of their payments, oldest first' },
  ),
  impressions: Type.Object({
    total: Type.Integer({ description: 'Views of their share link, ever' }),
    recent: Type.Array(Type.Object({ day: Type.String({ description: 'YYYY-MM-DD (UTC)' }), visitors: Type.Integer() }), {
      description: 'Distinct visitors per day of the days still kept (only the current day is)',
    }),
  }),
  emails: Type.Array(
    Type.Object({
      kind: Type.String(),
      status: Type.String(),
      createdOn: DateTime,
      sentOn: When,
      data: Type.Unknown({ description: 'What the email was made from' }),
    }),
    { description: 'The lifecycle emails to them: the email log' },
  ),
  payoutMethod: PayoutMethodView,
  taxDetails: Type.Union([TaxDetailsView, Type.Null()], { description: 'The tax details they gave, the TIN masked' }),
  payouts: Type.Array(CashPayout, { description: 'Their cash payouts, newest first' }),
});
export type PersonParticipation = Static<typeof PersonParticipation>;

export const PersonExport = Type.Object({
  email: Type.String(),
  exportedAt: DateTime,
  participants: Type.Array(PersonParticipation, { description: 'One per campaign of the account the address joined' }),
  pendingSignups: Type.Array(
    Type.Object({ campaignId: Type.String(), firstName: Nullable(Type.String()), lastName: Nullable(Type.String()), ip: Nullable(Type.String()), createdOn: DateTime }),
    { description: 'Sign-ups waiting for their emailed confirmation' },
  ),
  emailLinks: Type.Array(Type.Object({ campaignId: Type.String(), purpose: Type.String(), createdOn: DateTime, expiresOn: DateTime, usedOn: When }), {
    description: 'Sign-in and confirmation links emailed to the address (the links themselves are kept hashed only)',
  }),
  webhookEvents: Type.Array(
    Type.Object({ id: Type.String(), campaignId: Type.String(), eventType: Type.String(), createdOn: DateTime, payload: Type.Unknown({ description: 'The body as sent' }) }),
    { description: 'Webhook events about them or carrying the address' },
  ),
  stripeEvents: Type.Array(
    Type.Object({
      campaignId: Type.String(),
      id: Type.String(),
      type: Type.String(),
      status: Type.String(),
      amountCents: Type.Union([Type.Integer(), Type.Null()]),
      currency: Nullable(Type.String()),
      customer: Nullable(Type.String()),
      createdOn: DateTime,
    }),
    { description: 'Stripe events that named them' },
  ),
});
export type PersonExport = Static<typeof PersonExport>;

export const ErasureResult = Type.Object({
  erasedAt: DateTime,
  participants: Type.Array(Type.Object({ participantId: Type.Integer(), campaignId: Type.String() }), {
    description: 'The participants anonymised, one per campaign the address had joined; empty when it had joined none (its other traces are removed all the same)',
  }),
});
export type ErasureResult = Static<typeof ErasureResult>;
