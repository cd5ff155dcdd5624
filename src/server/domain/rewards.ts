/**
 * Rewards: qualifying a referral, crediting it, approving held participants, redeeming balances.
 *
 * The rule: a referral is credited once, when the referee's qualifying event is complete and both the
 * referee and the referrer are approved (fraud scoring holds `high` participants unapproved). Whichever
 * of those comes last (qualify, approving the referee, approving the referrer) credits it. The claim is
 * one conditional statement (Store.claimRefereeCredit), so however calls interleave, exactly one
 * credits; each crediting transaction first locks the referrer's row and then the referee's, so a
 * concurrent approval and qualification cannot each miss the other's uncommitted half. Every credit and
 * redemption appends its ledger entries (./ledger.ts) with the counters it moves (../store/reward-entry-store.ts).
 */
import type { QualifyParticipantBody, RedeemRewardBody } from '../../api/schemas.js';
import type { CampaignRow, RewardKind, Store } from '../store/store.js';
import { assertOpen } from './campaigns.js';
import type { Actor, Ctx } from './context.js';
import { AppError } from './errors.js';
import { referralCredit, redemption } from './ledger.js';
import { getParticipant } from './participants.js';
import type { ParticipantView } from './present.js';
import { emit } from './webhook-events.js';

/** Turns "12.34" into 1234 cents; the schema has already checked the shape. */
function cents(amount: string): number {
  const [whole = '0', fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export async function qualifyParticipant(ctx: Ctx, actor: Actor, input: QualifyParticipantBody): Promise<ParticipantView> {
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
  const queued = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    await tx.lockParticipants([referrerId, participant.id]);
    if (input.amountPaid !== undefined) await tx.recordPayment(participant.id, referrerId, cents(input.amountPaid), now);
    if (!(await tx.completeRewardEvent(participant.id, now))) return false;
    await tx.incrementCompletedReferred(referrerId, now);
    return creditIfDue(tx, campaign, participant.id, referrerId, now);
  });
  if (queued) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

/**
 * Credits both sides of one referral if it is due (see the rule above). True when this call credited and
 * queued a webhook delivery (so the dispatcher is woken only when it has something to send).
 */
async function creditIfDue(tx: Store, campaign: CampaignRow, refereeId: number, referrerId: number, now: number): Promise<boolean> {
  const credit = referralCredit(campaign, refereeId, referrerId, now);
  if (!(await tx.claimRefereeCredit(refereeId, credit.referee.amount, now))) return false;
  await tx.rewardEntries.creditReferrer(referrerId, credit.referrer.amount, now, [credit.referee, credit.referrer]);
  // The event goes out for each side even when its reward value is 0: the unlock itself is news.
  const referee = await emit(tx, 'reward_unlocked', refereeId, campaign, now);
  const referrer = await emit(tx, 'reward_unlocked', referrerId, campaign, now);
  return referee || referrer;
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
    await tx.lockParticipants(referrerId === null ? [participant.id] : [referrerId, participant.id]);
    await tx.approve(participant.id, now);
    let any = referrerId !== null && (await creditIfDue(tx, campaign, participant.id, referrerId, now));
    for (const refereeId of await tx.dueReferees(participant.id)) {
      if (await creditIfDue(tx, campaign, refereeId, participant.id, now)) any = true;
    }
    return any;
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
