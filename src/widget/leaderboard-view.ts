/**
 * The campaign's leaderboard in the share view (the element's opt-in `show-leaderboard`): the top
 * entries as getLeaderboard answers them, and, for a participant this browser proved it is, their own
 * rank (getMyReferrals `leaderboard`). Names are display names the service made (never an email).
 */
import { html, nothing } from 'lit';
import { msg, str } from '@lit/localize';
import type { LeaderboardEntry, LeaderboardSettings } from '../api/schemas.js';
import type { MyRank } from '../api/widget-schemas.js';

export interface LeaderboardViewOptions {
  settings: LeaderboardSettings;
  /** The top entries; undefined while loading or when they could not be read (then the section is absent). */
  board: LeaderboardEntry[] | undefined;
  /** The participant's own place; undefined when not known (not proven on this browser). */
  rank: MyRank | undefined;
  count: (n: number) => string;
}

function ownRank(rank: MyRank | undefined, count: (n: number) => string) {
  if (!rank) return nothing;
  return html`<p part="my-rank" data-ranked=${rank.rank !== null}>
    ${rank.rank !== null
      ? rank.referrals === 1
        ? msg(str`You are #${count(rank.rank)} with 1 qualified friend.`)
        : msg(str`You are #${count(rank.rank)} with ${count(rank.referrals)} qualified friends.`)
      : msg('You are not on the board yet: your first friend who qualifies puts you on it.')}
  </p>`;
}

export function leaderboardView(o: LeaderboardViewOptions) {
  if (!o.board) return nothing;
  return html`<section part="leaderboard" aria-labelledby="leaderboard-title">
    <h3 id="leaderboard-title">${o.settings.period === 'month' ? msg('Top referrers this month') : msg('Top referrers')}</h3>
    ${ownRank(o.rank, o.count)}
    ${o.board.length === 0
      ? html`<p part="leaderboard-empty">${msg('No one is on the board yet. Be the first!')}</p>`
      : html`<ol part="leaderboard-list">
          ${o.board.map(
            (e) => html`<li data-rank=${e.rank}>
              <span part="leaderboard-rank">${msg(str`#${o.count(e.rank)}`)}</span>
              <bdi part="leaderboard-name">${e.name}</bdi>
              <span part="leaderboard-count">${e.referrals === 1 ? msg('1 qualified friend') : msg(str`${o.count(e.referrals)} qualified friends`)}</span>
            </li>`,
          )}
        </ol>`}
  </section>`;
}
