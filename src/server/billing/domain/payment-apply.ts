/**
 * What a payment event from any source (Stripe's, ./stripe-events.ts; the other providers', ./payment-sources.ts)
 * does to the participant it names, in the caller's transaction: a payment qualifies them and earns
 * commissions, a refund reverses in proportion, a dispute holds what its payment earned until it closes.
 * Every source reads its provider's events into this one shape, so the rules are here once.
 */
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import type { StripeEventRow } from '../store/stripe-store.js';
import type { PaymentEventRow } from '../store/payment-event-store.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { normalizeEmail } from '../../kernel/email.js';
import { normalizeCode } from '../../referrals/domain/participants.js';
import { refundPayment } from '../../rewards/domain/refunds.js';
import { closeDispute, disputePayment } from '../../rewards/domain/disputes.js';
import { qualifyParticipant } from '../../rewards/domain/rewards.js';
import { notePayment } from '../../fraud/domain/payment-marks.js';

export type PaymentAction = 'payment' | 'refund' | 'dispute' | 'dispute_won' | 'dispute_lost';

/** An event as the rules read it, whatever its source. */
export interface Applicable {
  action: PaymentAction | null;
  /** Hundredths of the campaign's currency (converted already when the event was in another). */
  amountCents: number | null;
  /** Set when a refund's amount is the running total of the refunds of one payment (Stripe's charge.refunded, Lemon Squeezy's refunded_amount): the link key that total is kept on. */
  refundTotalKey: string | null;
  /** The dispute an event opens or closes. */
  dispute: string | null;
  /** The provider's ids that name the participant for later events (customer, charge, order...). */
  linkKeys: string[];
  /** The outcome of an event kept with no action (a subscription's checkout: only its customer's link). */
  noAction: Outcome;
  /** When the amount was converted from another currency: what it was, and the rate (kept on the payment, said in the ledger). */
  convertedFrom: string | null;
  /** The fingerprint of the card paid with, when the provider told it (Stripe's charge, read with stripeRewardKey). */
  card?: string | null;
}

/** What a converted event's amount was, and at what rate; null when it was in the campaign's currency. */
const convertedFrom = (r: { amount_cents: number | null; currency: string | null; converted_cents: number | null; rate: string | null }) =>
  r.converted_cents !== null && r.rate && r.amount_cents !== null && r.currency ? `${money(r.amount_cents)} ${r.currency.toUpperCase()}, ${r.rate}` : null;

export interface Outcome {
  status: 'applied' | 'ignored';
  reason: string | null;
}

const money = (cents: number) => (cents / 100).toFixed(2);

/** Why a payment or refund could not be applied, for the event's row; anything else is thrown on. */
const IGNORABLE = new Set(['not_referred', 'refund_exceeds_payments', 'campaign_ended', 'dispute_exceeds_payment', 'dispute_open', 'invalid_transition']);

/**
 * The participant an event names: by the referral code it carries (theirs: the checkout's
 * client_reference_id or refkit_code), else by an id an earlier event tied to them, else by email.
 */
export async function participantNamed(ctx: Ctx, campaign: CampaignRow, e: { code: string | null; email: string | null; linkKeys: string[] }): Promise<ParticipantRow | undefined> {
  const { store } = ctx;
  if (e.code) {
    const owner = await store.codeOwner(campaign.id, normalizeCode(e.code));
    if (owner) return store.findParticipant(owner.id);
  }
  const linked = await store.stripe.participantOf(campaign.id, e.linkKeys);
  if (linked !== undefined) return store.findParticipant(linked);
  return e.email ? store.findParticipantByEmail(campaign.id, normalizeEmail(e.email)) : undefined;
}

/** Applies an event to `participant` in the caller's transaction; answers the event's outcome. */
export async function applyToParticipant(ctx: Ctx, campaign: CampaignRow, e: Applicable, participant: ParticipantRow): Promise<Outcome> {
  const actor = { accountId: campaign.account_id };
  await ctx.store.stripe.link(campaign.id, e.linkKeys, participant.id);
  try {
    if (e.action === 'payment') {
      // Before it can credit anything: a referee paying as their referrer is held (../../fraud/domain/payment-marks.ts).
      await notePayment(ctx, campaign, participant, { card: e.card ?? null, customers: e.linkKeys.filter((k) => k.includes('customer:')) });
      if (!e.amountCents) return { status: 'ignored', reason: 'Nothing was paid (a free trial or a 100% discount)' };
      await qualifyParticipant(ctx, actor, { id: campaign.id, email: participant.email, amountPaid: money(e.amountCents) }, { convertedFrom: e.convertedFrom });
    } else if (e.action === 'refund') {
      let cents = e.amountCents ?? 0;
      // A running total of the payment's refunds: take the part not taken yet.
      if (e.refundTotalKey) cents -= await ctx.store.stripe.refundedOf(campaign.id, e.refundTotalKey);
      if (cents <= 0) return { status: 'ignored', reason: 'Nothing more was refunded of this payment' };
      // The provider has refunded it already: taken even from an amount under an open dispute.
      await refundPayment(ctx, actor, { id: campaign.id, email: participant.email, amount: money(cents) }, { provider: true });
      // Only a refund that applied counts toward the payment's total taken: one refused (ignored) is taken
      // by the next event of the payment, or when it is matched by hand.
      if (e.refundTotalKey) await ctx.store.stripe.setRefunded(campaign.id, e.refundTotalKey, participant.id, e.amountCents ?? 0);
    } else if (e.action === 'dispute') {
      await disputePayment(ctx, actor, { id: campaign.id, email: participant.email, amount: money(e.amountCents ?? 0), disputeId: e.dispute! });
    } else if (e.action === 'dispute_won' || e.action === 'dispute_lost') {
      const known = await ctx.store.disputes.find(campaign.id, e.dispute!);
      if (!known) return { status: 'ignored', reason: 'No dispute with this id was opened here (the event that opened it was not applied)' };
      await closeDispute(ctx, actor, { id: campaign.id, disputeId: e.dispute!, outcome: e.action === 'dispute_won' ? 'won' : 'lost' });
    } else {
      return e.noAction;
    }
  } catch (err) {
    if (err instanceof AppError && IGNORABLE.has(err.code)) return { status: 'ignored', reason: err.message };
    throw err;
  }
  return { status: 'applied', reason: null };
}

/** The Stripe ids of an event that can name its participant for later events. */
export const stripeLinkKeys = (r: Pick<StripeEventRow, 'customer' | 'charge' | 'payment_intent'>) =>
  [r.customer && `customer:${r.customer}`, r.charge && `charge:${r.charge}`, r.payment_intent && `pi:${r.payment_intent}`].filter((k): k is string => !!k);

/** A Stripe event as the rules read it (./stripe-events.ts). */
export function stripeApplicable(r: StripeEventRow): Applicable {
  return {
    action: r.action,
    amountCents: r.converted_cents ?? r.amount_cents,
    // charge.refunded carries what was refunded of the charge in all.
    refundTotalKey: r.type === 'charge.refunded' && r.charge ? `charge:${r.charge}` : null,
    dispute: r.dispute,
    linkKeys: stripeLinkKeys(r),
    noAction:
      r.type === 'charge.dispute.closed'
        ? { status: 'ignored', reason: 'The dispute closed with no outcome Refkit acts on' }
        : { status: 'applied', reason: 'The customer is linked to this participant; their payments arrive as invoice.paid' },
    convertedFrom: convertedFrom(r),
  };
}

/** Another provider's event as the rules read it (./payment-sources.ts). */
export function paymentApplicable(row: PaymentEventRow): Applicable {
  return {
    action: row.action,
    amountCents: row.converted_cents ?? row.amount_cents,
    refundTotalKey: row.refund_total_key,
    dispute: row.dispute,
    linkKeys: JSON.parse(row.link_keys) as string[],
    noAction: { status: 'ignored', reason: 'Nothing to do' },
    convertedFrom: convertedFrom(row),
  };
}
