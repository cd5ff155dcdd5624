/**
 * Campaign analytics from the daily counters (never a scan of participants): the funnel, sign-ups per
 * day, the top referrers (an index range), revenue from referred participants, the viral coefficient;
 * and sign-ups by channel (a scan of the sign-ups that came with utm_* only).
 */
import type { CampaignAnalytics } from '../../../api/schemas.js';
import { DAY_MS } from '../../store/migrations.js';
import { dayOf } from '../../store/stats-store.js';
import { ownCampaign } from './campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { presentSummary, units } from '../../referrals/domain/directory.js';

export const TOP_REFERRERS = 10;
/** The channels and sources listed, most sign-ups first. */
export const TOP_CHANNELS = 20;
/** The chart shows at most this many days, up to today. */
export const MAX_DAYS = 365;

export async function campaignAnalytics(ctx: Ctx, actor: Actor, campaignId: string): Promise<CampaignAnalytics> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const rows = await ctx.store.stats.daily(campaign.id);
  const funnel = { impressions: 0, signups: 0, referredSignups: 0, qualified: 0 };
  let revenueCents = 0;
  for (const r of rows) {
    funnel.impressions += r.impressions;
    funnel.signups += r.signups;
    funnel.referredSignups += r.referred_signups;
    funnel.qualified += r.qualified;
    revenueCents += r.referred_revenue_cents;
  }
  // Every day from the first sign-up (or the campaign's creation) to today, days without sign-ups as 0.
  const today = dayOf(ctx.now());
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const first = Math.max(Math.min(rows[0]?.day ?? today, dayOf(campaign.created_on)), today - MAX_DAYS + 1);
  const daily: CampaignAnalytics['daily'] = [];
  for (let d = first; d <= today; d++) {
    const r = byDay.get(d);
    daily.push({ day: new Date(d * DAY_MS).toISOString().slice(0, 10), signups: r?.signups ?? 0, referredSignups: r?.referred_signups ?? 0 });
  }
  // Ordered by the stored count: the campaign's deltas go into it first (referrals/store/referral-count-store.ts).
  await ctx.store.referralCounts.fold(campaign.id);
  const top = await ctx.store.directory.topReferrers(campaign.id, TOP_REFERRERS);
  return {
    funnel,
    daily,
    topReferrers: top.map((p) => presentSummary(p, campaign, false)),
    referredRevenue: units(revenueCents),
    viralCoefficient: funnel.signups === 0 ? 0 : Math.round((funnel.referredSignups / funnel.signups) * 1000) / 1000,
    channels: await ctx.store.stats.byChannel(campaign.id, 'medium', TOP_CHANNELS),
    sources: await ctx.store.stats.byChannel(campaign.id, 'source', TOP_CHANNELS),
  };
}
