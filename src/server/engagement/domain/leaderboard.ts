/**
 * Leaderboards: a campaign's participants ranked by qualified referrals (credited ones, ../../rewards/domain/rewards.ts),
 * ties going to whoever reached the count first. Every credited referral moves its referrer on two
 * boards, all-time and the current month in the campaign's time zone, in the credit's transaction; a
 * referral undone by a refund moves them back. Both are kept whatever the campaign shows, so turning the
 * leaderboard on (or switching its period) shows standings from the start. A month's board is a board of
 * its own ('month:2026-11'): the first of the month begins an empty one, with nothing to reset.
 *
 * Shown publicly: a rank, a display name (first name and last initial, else a masked email) and the
 * count; participants held for review are left out. Pending sign-ups are not participants, so never on it.
 */
import type { LeaderboardEntry, LeaderboardSettings } from '../../../api/schemas.js';
import type { MyRank } from '../../../api/widget-schemas.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import { findCampaign } from '../../campaigns/domain/campaigns.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { maskEmail, shownFirstName } from '../../kernel/email.js';
import { leaderboardOf } from './leaderboard-settings.js';

const months = new Map<string, Intl.DateTimeFormat>();

/** The calendar month `now` falls in, in the time zone, as YYYY-MM (Intl does the calendar and the zone's rules). */
export function monthIn(timeZone: string, now: number): string {
  let format = months.get(timeZone);
  if (!format) months.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit' })));
  const parts = format.formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}`;
}

const boardFor = (c: CampaignRow, period: LeaderboardSettings['period'], now: number) => (period === 'all' ? 'all' : `month:${monthIn(c.time_zone, now)}`);

/** Moves a referrer on the boards a referral credited (+1) or undone (-1) at `now` counts on. */
export async function moveOnBoards(tx: Store, c: CampaignRow, referrerId: number, now: number, delta: 1 | -1): Promise<void> {
  for (const period of ['all', 'month'] as const) await tx.leaderboards.move(c.id, boardFor(c, period, now), referrerId, delta);
}

/** `Ann Lee` -> `Ann L.`; without a first name, the masked email. */
export function displayName(p: Pick<ParticipantRow, 'first_name' | 'last_name' | 'email'>): string {
  const first = shownFirstName(p.first_name);
  if (!first) return maskEmail(p.email);
  const initial = p.last_name?.trim().charAt(0);
  return initial ? `${first} ${initial.toUpperCase()}.` : first;
}

const noLeaderboard = () => new AppError(404, 'not_found', 'This campaign has no leaderboard', 'id');

/** The public leaderboard of a campaign: its top entries, best first. */
export async function getLeaderboard(ctx: Ctx, campaignId: string): Promise<LeaderboardEntry[]> {
  const campaign = await findCampaign(ctx, campaignId);
  const settings = leaderboardOf(campaign);
  if (!settings) throw noLeaderboard();
  const rows = await ctx.store.leaderboards.top(campaign.id, boardFor(campaign, settings.period, ctx.now()), settings.size);
  return rows.map((r, i) => ({ rank: i + 1, name: displayName(r), referrals: r.score }));
}

/** A referrer's place among those the campaign's leaderboard shows, on the board it shows now; undefined when not among them (or no board). */
export async function shownPlace(
  tx: Store,
  c: CampaignRow,
  referrerId: number,
  now: number,
): Promise<{ board: string; rank: number; places: number; referrals: number } | undefined> {
  const settings = leaderboardOf(c);
  if (!settings) return undefined;
  const board = boardFor(c, settings.period, now);
  // The rank counts participants held for review whom the top list leaves out: it can only be lower than
  // the place shown, so a rank within the size is always a shown place.
  const standing = await tx.leaderboards.standing(c.id, board, referrerId);
  if (!standing || standing.rank > settings.size) return undefined;
  return { board, rank: standing.rank, places: settings.size, referrals: standing.score };
}

/** A participant's own place on the campaign's leaderboard; undefined when the campaign has none. */
export async function myRank(ctx: Ctx, campaign: CampaignRow, p: ParticipantRow): Promise<MyRank | undefined> {
  const settings = leaderboardOf(campaign);
  if (!settings) return undefined;
  const standing = await ctx.store.leaderboards.standing(campaign.id, boardFor(campaign, settings.period, ctx.now()), p.id);
  return { period: settings.period, rank: standing && p.approval === 1 ? standing.rank : null, referrals: standing?.score ?? 0 };
}
