/**
 * A campaign's leaderboard settings as its row keeps them (the `leaderboard` and `time_zone` columns): read,
 * written and checked here, apart from the boards themselves (./leaderboard.ts), so that the campaign's own
 * rules (../../campaigns/domain/campaigns.ts) can write them without depending on what reads campaigns.
 */
import type { LeaderboardSettings } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { invalid } from '../../kernel/errors.js';

export const DEFAULT_TIME_ZONE = 'UTC';

export function leaderboardOf(c: Pick<CampaignRow, 'leaderboard'>): LeaderboardSettings | null {
  return c.leaderboard === null ? null : (JSON.parse(c.leaderboard) as LeaderboardSettings);
}

export const writeLeaderboard = (settings: LeaderboardSettings | null): string | null =>
  settings === null ? null : JSON.stringify({ period: settings.period, size: settings.size });

/** The canonical name of an IANA time zone, or 400 on `timeZone` when Intl does not know it. */
export function checkTimeZone(name: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timeZone', `Unknown time zone "${name}": give an IANA name such as UTC or Europe/Berlin`);
  }
}

