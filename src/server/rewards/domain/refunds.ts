/**
 * Refunds: what a refund of a referee's payment takes back. The refund is spread over the referee's
 * payments, the latest first (or the one named), and for each payment:
 *
 * - the commission it earned its referrer is reversed in proportion to what was refunded
 *   (./reward-rules.ts commissionKept): a pending commission is cancelled and, if some of it stays,
 *   written again for the rest with the same date; an available one gets a reversal entry, which takes
 *   back at most the balance (./reward-credits.ts), the rest owed;
 * - a full refund of the payment that qualified the referee, while the referral's fixed rewards are still
 *   pending (inside the hold) or were never credited (in review), undoes the referral: both sides'
 *   pending rewards and the milestones it reached are cancelled and the referee counts as not qualified
 *   (a later qualifying payment qualifies them again). Once the hold is over, fixed rewards stay: that is
 *   what the hold is for.
 *
 * A dispute lost is such a refund of its payment (./disputes.ts calls refundPart).
 *
 * While a payment's dispute is open, the owner's refundPayment takes only what is neither refunded nor
 * disputed (409 dispute_open beyond it): the disputed amount is settled by the dispute's close. A refund
 * the provider has made already (Stripe's charge.refunded) is taken whatever is disputed, and its
 * reversal counts what the dispute reversed (reversalDue), so that neither outcome reverses more than was
 * earned (lost) or gives back what was refunded (won: ./disputes.ts giveBack).
 */
import type { RefundPaymentBody } from '../../../api/schemas.js';
import type { DisputeRow } from '../store/dispute-store.js';
import type { PaymentRow } from '../store/payment-store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { toCents } from '../../kernel/money.js';
import { moveOnBoards } from '../../engagement/domain/leaderboard.js';
import { moveForQualified } from '../../engagement/domain/waitlist.js';
import { getParticipant } from '../../referrals/domain/participants.js';
import type { ParticipantView } from '../../referrals/domain/present.js';
import { RewardBatch } from './reward-credits.js';
import { commissionKept, commissionReversal } from './reward-rules.js';

/** Who records the refund: the owner (refundPayment), or the payment provider, who has made it already. */
export interface RefundSource {
  /** Stripe's charge.refunded: taken even from an amount under an open dispute. */
  provider?: boolean;
}

export async function refundPayment(ctx: Ctx, actor: Actor, input: RefundPaymentBody, source: RefundSource = {}): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  const cents = toCents(input.amount);
  if (cents === 0) throw invalid('amount', 'amount must be more than 0');
  const referrerId = participant.referred_by_id;
  const refereeId = participant.id;
  const queued = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    const states = await tx.lockParticipants(referrerId === null ? [refereeId] : [referrerId, refereeId]);
    const payments = await tx.payments.refundable(refereeId, input.paymentId);
    if (input.paymentId !== undefined && payments.length === 0) {
      const known = await tx.payments.find(refereeId, input.paymentId);
      if (!known) throw new AppError(404, 'not_found', 'This participant has no payment with this id', 'paymentId');
    }
    const left = payments.reduce((sum, p) => sum + (p.amount_cents - p.refunded_cents), 0);
    const what = input.paymentId === undefined ? 'the participant’s payments' : 'this payment';
    if (cents > left) {
      throw new AppError(409, 'refund_exceeds_payments', `The refund is more than is left to refund of ${what} (${(left / 100).toFixed(2)})`, 'amount');
    }
    // What each payment's refund may take: all that is left, or (the owner's) what no open dispute holds.
    const disputed = source.provider ? new Map<number, number>() : await tx.disputes.openAmounts(payments.map((p) => p.id));
    const refundable = (p: PaymentRow) => Math.max(0, p.amount_cents - p.refunded_cents - (disputed.get(p.id) ?? 0));
    const free = payments.reduce((sum, p) => sum + refundable(p), 0);
    if (cents > free) {
      throw new AppError(409, 'dispute_open', `Of ${what}, ${(free / 100).toFixed(2)} is neither refunded nor disputed: an open dispute settles the rest when it closes (closeDispute)`, 'amount');
    }
    const batch = new RewardBatch(tx, campaign, now, states, ctx.metrics);
    let rest = cents;
    for (const p of payments) {
      if (rest === 0) break;
      const part = Math.min(rest, refundable(p));
      if (part === 0) continue;
      rest -= part;
      await refundPart(batch, p, part, referrerId);
    }
    return batch.commit();
  });
  if (queued) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(refereeId))!, campaign };
}

/**
 * Takes `cents` of payment `p` back and what it earned, in `batch`: a refund's part, or a dispute lost
 * (./disputes.ts), which settles in the proportional units its opening reversed (`exact` false).
 */
export async function refundPart(batch: RewardBatch, p: PaymentRow, cents: number, referrerId: number | null, exact = true): Promise<void> {
  const { tx, now } = batch;
  const refunded = p.refunded_cents + cents;
  const entry = p.commission > 0 ? await tx.rewardEntries.ofPayment(p.id, 'commission') : undefined;
  const reversed = exact ? await commissionTakenBack(batch, p, cents, referrerId, entry) : reversalDue(p, refunded, undefined);
  await tx.payments.refund(p, cents, reversed, now);
  await tx.refunds.record(batch.campaign.id, p.id, cents, now);
  if (referrerId === null) return;
  await tx.payments.addRevenue(referrerId, -cents, now);
  await tx.stats.addForParticipant(p.participant_id, 'referred_revenue_cents', -cents, now);
  if (reversed > 0) {
    if (entry?.status === 'pending') {
      const kept = entry.amount - reversed;
      await batch.cancel([entry], Math.max(0, kept));
      if (kept > 0) {
        const { participant_id, kind, reward_kind, status, available_on, referee_id, payment_id } = entry;
        // Held by the payment's open dispute as the entry it replaces was.
        const { held_by_dispute } = entry;
        batch.append({ participant_id, kind, reward_kind, status, available_on, referee_id, payment_id, held_by_dispute, amount: kept, capped: 0, label: `${entry.label}, less a refund`, created_on: now });
      }
    } else {
      await batch.reverse(referrerId, 'referral', reversed, `Commission on payment ${p.seq} reversed: refunded`, p.participant_id, p.id);
    }
  }
  if (p.qualifying === 1 && refunded === p.amount_cents) await undoReferral(batch, p.participant_id, referrerId);
}

/**
 * The units of payment `p`'s commission a refund of `cents` of it takes back. Exactly, in the millionths
 * the commission was computed in with the referrer's carried fraction (./reward-rules.ts
 * commissionReversal), when the payment's rate is known and nothing else bent the figure; else in
 * proportion (reversalDue): a payment decided before rates were kept, a commission cut by the ceiling,
 * and one under an open dispute that reversed its share at once (the dispute's close settles in those
 * same units).
 */
async function commissionTakenBack(batch: RewardBatch, p: PaymentRow, cents: number, referrerId: number | null, entry: { capped: number } | undefined): Promise<number> {
  const open = await batch.tx.disputes.openOfPayment(p.id);
  const exact = referrerId !== null && p.commission_bp !== null && p.commission_bp > 0 && !(entry && entry.capped > 0) && !(open && Number(open.reversed) > 0);
  if (!exact) return reversalDue(p, p.refunded_cents + cents, open);
  const referrer = await batch.state(referrerId);
  const taken = commissionReversal(cents, p.commission_bp!, Number(referrer.commission_remainder), p.commission - p.commission_reversed);
  batch.carry(referrerId, taken.carry);
  return taken.units;
}

/**
 * What more of payment `p`'s commission is reversed once `refunded` of it is refunded in all: what it
 * earned, less what was reversed, less what it keeps of what is left. An open dispute that reversed its
 * share at once (the commission was available: ./disputes.ts) counts as taken as well, so a refund over
 * the disputed amount reverses only what the dispute did not. Never below zero.
 */
export function reversalDue(p: PaymentRow, refunded: number, open: Pick<DisputeRow, 'amount_cents' | 'reversed'> | undefined): number {
  const disputed = open && Number(open.reversed) > 0 ? Number(open.amount_cents) : 0;
  const taken = Math.min(p.amount_cents, refunded + disputed);
  return Math.max(0, p.commission - p.commission_reversed - commissionKept(p.commission, p.amount_cents, taken));
}

/** Undoes a referral whose qualifying payment was refunded in full, unless its rewards are already available. */
async function undoReferral(batch: RewardBatch, refereeId: number, referrerId: number): Promise<void> {
  const { tx, now } = batch;
  const referee = await batch.state(refereeId);
  const pending = await tx.rewardEntries.pendingOfReferral(refereeId);
  const credited = referee.reward_credited === 1;
  // Credited with no hold, or the hold is over: the fixed rewards were the participants' to keep.
  if (credited && !pending.some((e) => e.kind === 'referral' || e.kind === 'referee')) return;
  const cancelled = await batch.cancel(pending);
  await tx.payments.unqualify(refereeId, referrerId, credited, now);
  await tx.stats.addForParticipant(refereeId, 'qualified', -1, now);
  referee.reward_credited = 0;
  const referrer = await batch.state(referrerId);
  if (credited) {
    referrer.credited_referrals -= 1;
    await moveOnBoards(tx, batch.campaign, referrerId, now, -1);
    await moveForQualified(tx, batch.campaign, referrerId, -1);
  }
  // A milestone this referral reached is reached again by the next one.
  const lost = cancelled.filter((e) => e.kind === 'milestone' && e.participant_id === referrerId);
  if (lost.length > 0) {
    const reached = Math.max(0, ...batch.rules.milestones.filter((m) => m.referrals <= referrer.credited_referrals && m.referrals <= referrer.milestones_reached).map((m) => m.referrals));
    referrer.milestones_reached = reached;
    await tx.payments.lowerMilestones(referrerId, reached);
  }
}
