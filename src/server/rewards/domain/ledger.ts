/**
 * The reward ledger's rules: how the participant's reward fields follow from the entries, and the entry
 * of a redemption. The participant row keeps those fields as counters (the interface reads them on every
 * call); every write that moves a counter appends its entries in the same transaction
 * (./reward-credits.ts for credits and reversals), so the counters are always ledgerTotals of the entries.
 */
import type { PagingQuery } from '../../../api/schemas.js';
import type { ListedRewardEntry, NewRewardEntry, RewardEntryRow } from '../store/reward-entry-store.js';
import type { RewardKind, Store } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { fetchPage, pageRequest, type PageResult } from '../../kernel/paging.js';
import { getParticipant } from '../../referrals/domain/participants.js';

/** The participant's reward counters (the interface's referralReward, refereeReward and *Redeemed). */
export interface RewardTotals {
  referral_reward: number;
  referral_reward_redeemed: number;
  referee_reward: number;
  referee_reward_redeemed: number;
}

/**
 * What was earned is the sum of the available entries but redemptions (pending and cancelled ones count
 * for nothing); what was redeemed is the sum of the available redemptions, which are negative amounts.
 * The balance is the difference, so the sum of all available entries of one reward kind.
 */
export function ledgerTotals(entries: readonly Pick<RewardEntryRow, 'kind' | 'reward_kind' | 'amount' | 'status'>[]): RewardTotals {
  const totals: RewardTotals = { referral_reward: 0, referral_reward_redeemed: 0, referee_reward: 0, referee_reward_redeemed: 0 };
  for (const e of entries) {
    if (e.status !== 'available') continue;
    if (e.kind === 'redemption') totals[`${e.reward_kind}_reward_redeemed`] -= e.amount;
    else totals[`${e.reward_kind}_reward`] += e.amount;
  }
  return totals;
}

/** The entry of a redemption from one balance: a negative amount, available at once. */
export function redemption(participantId: number, kind: RewardKind, amount: number, now: number): NewRewardEntry {
  return {
    participant_id: participantId,
    kind: 'redemption',
    reward_kind: kind,
    amount: -amount,
    status: 'available',
    available_on: now,
    label: `Redeemed from the ${kind} reward`,
    referee_id: null,
    payment_id: null,
    capped: 0,
    created_on: now,
  };
}

/**
 * Redeems an amount already paid out (into Stripe, by PayPal, to a Stripe account), in the caller's
 * transaction with the participant locked. The money has left, so the ledger says so even when the balance
 * no longer covers it (a refund took back some of the credit between the payout's start and its end): the
 * balance is redeemed to zero and what it lacks is owed, netted from later credits, as with any reversal
 * that finds no balance.
 */
export async function redeemPaidOut(tx: Store, participantId: number, kind: RewardKind, amount: number, label: string, now: number): Promise<void> {
  if (amount <= 0) return;
  const entry = { ...redemption(participantId, kind, amount, now), label };
  if (await tx.rewardEntries.redeem(entry)) return;
  const state = await tx.rewardState(participantId);
  const balance = state ? Math.max(0, state[`${kind}_reward`] - state[`${kind}_reward_redeemed`] - state[`${kind}_reward_reserved`]) : 0;
  const owed = amount - balance;
  if (balance > 0) await tx.rewardEntries.redeem({ ...redemption(participantId, kind, balance, now), label: `${label} (${owed} owed: taken back before it was paid)` });
  const move = kind === 'referral' ? { referralOwed: owed } : { refereeOwed: owed };
  await tx.rewardEntries.write([{ participantId, ...move }], [], now);
}

/** A participant's ledger, newest first, paged as the other lists. */
export async function listRewardEntries(ctx: Ctx, actor: Actor, campaignId: string, email: string, paging: PagingQuery): Promise<PageResult<ListedRewardEntry>> {
  const req = pageRequest(paging);
  const { participant } = await getParticipant(ctx, actor, campaignId, email);
  return fetchPage(req, (start, limit) => ctx.store.rewardEntries.list(participant.id, start, limit));
}
