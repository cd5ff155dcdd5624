/**
 * Self-referral by payment: a referee who pays with their referrer's card (the same card fingerprint) or
 * as their referrer's customer at the payment provider is the referrer under another address. Each payment
 * event's marks are kept (../store/payment-mark-store.ts), and a referee and referrer found sharing one
 * hold the referee for review, with the reason, before the payment credits anything: whichever of the two
 * paid first.
 */
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import type { PaymentMark } from '../store/payment-mark-store.js';
import { holdForReview } from './fraud-holds.js';

export interface PaidWith {
  /** The card's fingerprint (Stripe's payment_method_details.card.fingerprint); null: not known. */
  card?: string | null;
  /** The payer's customer at the provider, as a link key (`customer:cus_...`, `paddle:customer:ctm_...`). */
  customers: string[];
}

const marksOf = (paid: PaidWith): PaymentMark[] => [
  ...(paid.card ? [{ kind: 'card' as const, value: paid.card }] : []),
  ...paid.customers.map((value) => ({ kind: 'customer' as const, value })),
];

const words = (m: { kind: PaymentMark['kind']; value: string }) => (m.kind === 'card' ? `the same card (fingerprint ${m.value})` : `the same customer (${m.value})`);

/**
 * Keeps what `payer` paid with and holds a referee found paying as their referrer (in the caller's
 * transaction: the payment's own).
 */
export async function notePayment(ctx: Ctx, campaign: CampaignRow, payer: ParticipantRow, paid: PaidWith): Promise<void> {
  const marks = marksOf(paid);
  if (marks.length === 0) return;
  await ctx.store.paymentMarks.add(campaign.id, payer.id, marks, ctx.now());
  for (const other of await ctx.store.paymentMarks.sharers(campaign.id, payer.id, marks)) {
    if (payer.referred_by_id === other.participant_id) {
      await holdForReview(ctx, payer, { kind: 'self_referral_payment', detail: `Paid with ${words(other)} as their referrer` });
    } else {
      const referee = await ctx.store.findParticipant(other.participant_id);
      if (referee?.referred_by_id === payer.id) {
        await holdForReview(ctx, referee, { kind: 'self_referral_payment', detail: `Paid with ${words(other)} as their referrer ${payer.email}` });
      }
    }
  }
}
