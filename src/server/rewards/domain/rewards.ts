/**
 * Rewards: qualifying a referral, crediting it, approving held participants, redeeming balances.
 *
 * The rule: a referral is credited once, when the referee's qualifying event is complete and both the
 * referee and the referrer are approved (fraud scoring holds `high` participants unapproved). Whichever
 * of those comes last (qualify, approving the referee, approving the referrer) credits it. The claim is
 * one conditional statement (Store.claimRefereeCredit), so however calls interleave, exactly one
 * credits; each crediting transaction first locks the referrer's row and then the referee's, so a
 * concurrent approval and qualification cannot each miss the other's uncommitted half. What a credited
 * referral brings (both fixed rewards, the milestones it reaches, the commission on the referee's
 * payments) is written through a RewardBatch (./reward-credits.ts), which applies the campaign's rules.
 */
import type { QualifyParticipantBody, RedeemRewardBody } from '../../../api/schemas.js';
import type { PaymentRow } from '../store/payment-store.js';
import type { RewardKind } from '../../store/store.js';
import { assertOpen } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { redemption } from './ledger.js';
import { report } from '../../kernel/metrics.js';
import { toCents } from '../../kernel/money.js';
import { RewardBatch } from './reward-credits.js';
import { commission, commissionApplies, rulesOf } from './reward-rules.js';
import { getParticipant } from '../../referrals/domain/participants.js';
import { blockMs, refereeBlocked } from '../../privacy/domain/erasure-block.js';
import type { ParticipantView } from '../../referrals/domain/present.js';
import { heldOverLimit } from '../../fraud/domain/reward-limits.js';


/** `convertedFrom`: the payment was converted from another currency (the amount and rate, said in its commission's label). */
export async function qualifyParticipant(ctx: Ctx, actor: Actor, input: QualifyParticipantBody, options: { convertedFrom?: string | null } = {}): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  // A pause is temporary and nothing of the call is kept: the backend must send it again after the
  // resume, or the purchase is never credited. The message says so; the code stays the interface's.
  assertOpen(
    campaign,
    ctx.now(),
    'The campaign is paused: this qualification was not recorded. Send it again once the campaign is resumed (keep it in a retry queue until then)',
  );
  if (participant.referred_by_id === null) {
    throw new AppError(409, 'not_referred', 'Only a referred participant can complete the qualifying event', 'email');
  }
  const referrerId = participant.referred_by_id;
  const refereeId = participant.id;
  // A payment of 0.00 (a free trial, a full discount) is no payment: nothing is recorded and it takes no
  // commission slot (commissionPayments counts payments); the call qualifies as one without amountPaid.
  const paid = input.amountPaid === undefined ? 0 : toCents(input.amountPaid);
  if (paid > 0 && participant.reward_event_completed === 1 && rulesOf(campaign).bp === 0 && !options.convertedFrom) {
    // A payment of someone qualified already, with no commission to decide: it credits nothing, so all
    // it writes is the payment and its counters, and it answers with the payer's row as written: on
    // PostgreSQL in one statement where the transaction below takes eight round trips, five of them
    // under the referrer's lock (docs/scaling.md); on SQLite in one unit of the group commit, without
    // the transaction's machinery or the read after it. The write checks, where it writes, that the
    // payer still qualifies; if not, nothing was written.
    const payer = await ctx.store.payments.recordRepeat(refereeId, referrerId, campaign.id, paid, ctx.now());
    if (payer) return { participant: payer, campaign };
  }
  const queued = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    const states = await tx.lockParticipants([referrerId, refereeId]);
    const batch = new RewardBatch(tx, campaign, now, states, ctx.metrics);
    const completed = await tx.completeRewardEvent(refereeId, now);
    if (completed) {
      await tx.incrementCompletedReferred(referrerId, now);
      report(ctx.metrics, tx, (m) => m.qualified(campaign.id));
    }
    if (paid > 0) {
      const cents = paid;
      // No commission is due on it, or it is decided when the referral is credited (it may wait for review).
      const decided = batch.rules.bp === 0;
      const payment = await tx.payments.record(refereeId, referrerId, cents, completed, decided, now);
      const convertedFrom = options.convertedFrom ?? null;
      if (convertedFrom) await tx.payments.setConvertedFrom(payment.id, convertedFrom);
      await tx.stats.addForParticipant(refereeId, 'referred_revenue_cents', cents, now);
      if (!decided && (await earnsNow(batch, refereeId, referrerId))) await creditCommission(batch, referrerId, refereeId, { ...payment, amount_cents: cents, converted_from: convertedFrom });
    }
    // The owner's limits screen a credit a qualification makes (../../fraud/domain/reward-limits.ts).
    if (completed) await creditIfDue(batch, refereeId, referrerId, blockMs(ctx), { ...ctx, store: tx });
    return batch.commit();
  });
  if (queued) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

/**
 * Credits both sides of one referral if it is due (see the rule above), with what it brings with it. A
 * referee who signed up again with an address erased within `block` ms earns neither side anything
 * (../../privacy/domain/erasure-block.ts): the referral stays unclaimed, so no later payment earns a commission either.
 * `screen`: the crediting transaction's context, when the owner's auto-approval limits apply (a
 * qualification; not an owner's approval): a credit past them holds the referee for review instead.
 * A referral credited before one side was held has commissions waiting for that approval: they are credited now.
 */
async function creditIfDue(batch: RewardBatch, refereeId: number, referrerId: number, block: number, screen?: Ctx): Promise<void> {
  const tx = batch.tx;
  if (await refereeBlocked(tx, batch.campaign, refereeId, block)) return;
  if (screen && (await heldOverLimit(screen, batch.campaign, refereeId, await batch.state(referrerId)))) return;
  if (await tx.claimRefereeCredit(refereeId, batch.now)) {
    const { campaign } = batch;
    await batch.credit(refereeId, { kind: 'referee', rewardKind: 'referee', amount: campaign.referee_reward_value, label: 'Reward for joining through a referral', refereeId });
    await batch.credit(referrerId, { kind: 'referral', rewardKind: 'referral', amount: campaign.referrer_reward_value, label: 'Reward for a qualified referral', refereeId });
    await batch.countReferral(referrerId, refereeId);
  } else if (!(await earnsNow(batch, refereeId, referrerId))) return;
  // Payments made while the referral waited (for review) earn their commission now, in order.
  if (batch.rules.bp > 0) for (const p of await tx.payments.undecided(refereeId)) await creditCommission(batch, referrerId, refereeId, p);
}

/** Whether the referee's payments earn their commission now: the referral is credited and neither side is held for review. */
async function earnsNow(batch: RewardBatch, refereeId: number, referrerId: number): Promise<boolean> {
  const referee = await batch.state(refereeId);
  return referee.reward_credited === 1 && referee.approval === 1 && (await batch.state(referrerId)).approval === 1;
}

/** The referrer's commission on one payment of their referee (./reward-rules.ts says how much). */
async function creditCommission(batch: RewardBatch, referrerId: number, refereeId: number, payment: Pick<PaymentRow, 'id' | 'seq' | 'amount_cents' | 'converted_from'>): Promise<void> {
  let units = 0;
  let bp = 0;
  if (commissionApplies(batch.rules, payment.seq)) {
    bp = batch.rules.bp;
    const referrer = await batch.state(referrerId);
    const due = commission(payment.amount_cents, batch.rules.bp, referrer.commission_remainder);
    batch.carry(referrerId, due.carry);
    const percent = batch.rules.bp / 100;
    if (due.units > 0) {
      units = await batch.credit(referrerId, { kind: 'commission', rewardKind: 'referral', amount: due.units, label: `Commission: ${percent}% of payment ${payment.seq}${payment.converted_from ? ` (${payment.converted_from})` : ''}`, refereeId, paymentId: payment.id });
    }
  }
  await batch.tx.payments.decide(payment.id, units, bp);
}

/**
 * Approves a participant held back by fraud scoring, and credits what became due: their own referral
 * (as a referee), and those of their referees that waited for them (as a referrer).
 */
export async function approveParticipant(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, campaignId, email);
  const referrerId = participant.referred_by_id;
  const queued = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    const states = await tx.lockParticipants(referrerId === null ? [participant.id] : [referrerId, participant.id]);
    const batch = new RewardBatch(tx, campaign, now, states, ctx.metrics);
    await tx.approve(participant.id, now);
    // The batch's copy of the row (read under its lock, before the approval) must say so too.
    (await batch.state(participant.id)).approval = 1;
    if (referrerId !== null) await creditIfDue(batch, participant.id, referrerId, blockMs(ctx));
    for (const refereeId of await tx.dueReferees(participant.id)) await creditIfDue(batch, refereeId, participant.id, blockMs(ctx));
    if (batch.rules.bp > 0) for (const refereeId of await tx.refereesOwedCommission(participant.id)) await creditIfDue(batch, refereeId, participant.id, blockMs(ctx));
    return batch.commit();
  });
  if (queued) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

export async function redeemReward(ctx: Ctx, actor: Actor, input: RedeemRewardBody): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  const kind: RewardKind = input.kind;
  const redeemed = await ctx.store.rewardEntries.redeem(redemption(participant.id, kind, input.amount, ctx.now()));
  if (!redeemed) {
    throw new AppError(409, 'insufficient_balance', `The ${kind} reward balance is less than ${input.amount}`, 'amount');
  }
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}
