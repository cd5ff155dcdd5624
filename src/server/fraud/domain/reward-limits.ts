/**
 * The auto-approval limits (`autoApprove` on the campaign): how many referrals one referrer may have
 * credited in a day (the campaign's time zone) and in all before the next waits for the owner. A credit
 * past a limit is not made: the referee is held for review with the reason (./fraud-holds.ts), in the
 * referrer's case; the owner's approval credits it (approvals are not screened again: the owner decided).
 */
import type { CampaignRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { autoApproveOf } from './fraud-settings.js';
import { holdForReview, type FraudSignal } from './fraud-holds.js';

const dayParts = new Map<string, Intl.DateTimeFormat>();

/** The start of the day `now` is in, in `timeZone`, as epoch ms (the zone's offset at `now`). */
export function dayStart(timeZone: string, now: number): number {
  let format = dayParts.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    dayParts.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(now).map((p) => [p.type, Number(p.value)])) as Record<string, number>;
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  const offset = wall - (now - (now % 1000));
  return Date.UTC(part.year!, part.month! - 1, part.day!) - offset;
}

/** The limit one more credited referral of this referrer would pass, in words; undefined when none. */
async function limitPassed(ctx: Ctx, campaign: CampaignRow, referrer: { id: number; credited_referrals: number }): Promise<FraudSignal | undefined> {
  const limits = autoApproveOf(campaign);
  if (limits === null) return undefined;
  const { maxRewardsPerReferrer: all, maxRewardsPerDay: perDay } = limits;
  if (all !== undefined && referrer.credited_referrals >= all) {
    return { kind: 'limit_per_referrer', detail: `Over the limit of ${all} credited ${all === 1 ? 'referral' : 'referrals'} per referrer (autoApprove.maxRewardsPerReferrer)` };
  }
  if (perDay !== undefined) {
    const today = await ctx.store.fraudCases.referralsCreditedSince(referrer.id, dayStart(campaign.time_zone, ctx.now()));
    if (today >= perDay) return { kind: 'limit_per_day', detail: `Over the limit of ${perDay} credited ${perDay === 1 ? 'referral' : 'referrals'} per referrer a day (autoApprove.maxRewardsPerDay)` };
  }
  return undefined;
}

/**
 * Holds the referee when crediting their referral would pass a limit; answers whether it did. Called in
 * the crediting transaction (ctx.store is it), before the credit is claimed.
 */
export async function heldOverLimit(ctx: Ctx, campaign: CampaignRow, refereeId: number, referrer: { id: number; credited_referrals: number }): Promise<boolean> {
  const passed = await limitPassed(ctx, campaign, referrer);
  if (!passed) return false;
  return holdForReview(ctx, { id: refereeId, campaign_id: campaign.id, referred_by_id: referrer.id, approval: 1 }, passed);
}
