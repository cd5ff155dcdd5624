/** The shapes of disputes' routes (src/server/rewards/domain/disputes.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Id, Money } from './schemas.js';

const DisputeId = Type.String({ format: 'line', minLength: 1, maxLength: 255, description: "Stripe's dispute id (dp_...), or yours" });
const PaymentId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true });

export const DisputePaymentBody = Type.Object(
  {
    id: Id,
    email: Email,
    amount: Money('What the dispute is for, numeric text with at most two decimals; more than zero, at most what is left of the payment'),
    paymentId: Type.Optional({ ...PaymentId, description: "The payment disputed; without it the payer's latest payment with something left to refund" }),
    disputeId: Type.Optional({ ...DisputeId, description: 'Makes the call idempotent: a second call with the same id changes nothing; without it one is made up (dsp_...)' }),
  },
  { additionalProperties: false },
);
export type DisputePaymentBody = Static<typeof DisputePaymentBody>;

export const CloseDisputeBody = Type.Object(
  {
    id: Id,
    disputeId: DisputeId,
    outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')], { description: 'won: what it held or took back is given back; lost: a refund of its amount' }),
  },
  { additionalProperties: false },
);
export type CloseDisputeBody = Static<typeof CloseDisputeBody>;

export const DisputeView = Type.Object({
  id: DisputeId,
  participantEmail: Type.String({ description: 'The payer' }),
  paymentId: Type.Integer(),
  paymentSeq: Type.Integer({ description: "1 for the payer's first payment, and so on" }),
  amount: Type.String({ description: 'In the payment currency, two decimals' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('won'), Type.Literal('lost')]),
  reversed: Type.Integer({ description: "Commission taken back from the referrer's available balance when it opened (reward units); given back if won" }),
  held: Type.Integer({ description: 'Pending credits (reward units) it holds past their availableOn while open' }),
  openedOn: DateTime,
  closedOn: Type.Optional(DateTime),
});
export type DisputeView = Static<typeof DisputeView>;

export const ListDisputesQuery = Type.Object({ id: Id, email: Email });
export type ListDisputesQuery = Static<typeof ListDisputesQuery>;
export const DisputeList = Type.Object({ disputes: Type.Array(DisputeView) });
export type DisputeList = Static<typeof DisputeList>;
