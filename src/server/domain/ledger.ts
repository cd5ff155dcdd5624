/**
 * The reward ledger's rules: what entry each credit and redemption writes, and how the participant's
 * reward fields follow from the entries. The participant row keeps those fields as counters (the
 * interface reads them on every call); every write that moves a counter appends its entry in the same
 * transaction (./rewards.ts), so the counters are always ledgerTotals of the entries.
 */
import type { PagingQuery } from '../../api/schemas.js';
import type { ListedRewardEntry, NewRewardEntry, RewardEntryRow } from '../store/reward-entry-store.js';
import type { CampaignRow, RewardKind } from '../store/store.js';
import type { Actor, Ctx } from './context.js';
import { fetchPage, pageRequest, type PageResult } from './paging.js';
import { getParticipant } from './participants.js';

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

/** The two entries of a credited referral: the referee's own reward, and its referrer's. */
export function referralCredit(campaign: CampaignRow, refereeId: number, referrerId: number, now: number): { referee: NewRewardEntry; referrer: NewRewardEntry } {
  const entry = (participant_id: number, kind: RewardKind, amount: number, label: string): NewRewardEntry => ({
    participant_id,
    kind,
    reward_kind: kind,
    amount,
    status: 'available',
    available_on: now,
    label,
    referee_id: refereeId,
    payment_id: null,
    created_on: now,
  });
  return {
    referee: entry(refereeId, 'referee', campaign.referee_reward_value, 'Reward for joining through a referral'),
    referrer: entry(referrerId, 'referral', campaign.referrer_reward_value, 'Reward for a qualified referral'),
  };
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
    created_on: now,
  };
}

/** A participant's ledger, newest first, paged as the other lists. */
export async function listRewardEntries(ctx: Ctx, actor: Actor, campaignId: string, email: string, paging: PagingQuery): Promise<PageResult<ListedRewardEntry>> {
  const req = pageRequest(paging);
  const { participant } = await getParticipant(ctx, actor, campaignId, email);
  return fetchPage(req, (start, limit) => ctx.store.rewardEntries.list(participant.id, start, limit));
}
