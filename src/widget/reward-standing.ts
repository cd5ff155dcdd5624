/**
 * The participant's rewards beyond their balances (getMyReferrals `rewards`), in the share view:
 * credits still on hold and when each becomes available, what a refund left owed, and progress toward
 * the campaign's milestone bonuses. Each block is absent when it has nothing to say.
 */
import { html, nothing } from 'lit';
import { msg, str } from '@lit/localize';
import type { MyReferrals, MyRewards } from '../api/widget-schemas.js';
import { plural } from './plural.js';
import { icons } from './icons.js';

/** What getMyReferrals says beyond the participant: known for a participant just created too (no one yet). */
export type OwnStanding = Omit<MyReferrals, 'participant'>;

/** A date as the locale writes it, e.g. "Jan 12, 2027", "12 janv. 2027", in a <time>. */
export const dateOf = (iso: string, locale: string) =>
  html`<time datetime=${iso}>${new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(iso))}</time>`;

/** Credits that wait out the campaign's hold: not in the balances above until their date. */
export function pendingRewards(rewards: MyRewards | undefined, amount: (v: number) => string, locale: string) {
  if (!rewards?.pending.length) return nothing;
  return html`<section part="pending" aria-labelledby="pending-title">
    <h3 id="pending-title">${msg('Pending rewards')}</h3>
    <p>${msg('These are not in your balance yet: each is added on its date.')}</p>
    <ul>
      ${rewards.pending.map(
        (r) => html`<li data-pending=${r.rewardKind}>
          <span>${msg(html`${amount(r.amount)} pending, available on ${dateOf(r.availableOn, locale)}`)}</span>
          <span part="pending-label" dir="auto">${r.label}</span>
        </li>`,
      )}
    </ul>
  </section>`;
}

/** A refund took back more than the balance held: the rest comes off the next rewards. */
export function owedNote(rewards: MyRewards | undefined, amount: (v: number) => string) {
  const owed = (rewards?.owed.referral ?? 0) + (rewards?.owed.referee ?? 0);
  if (owed <= 0) return nothing;
  return html`<p part="owed">${msg(str`A refund took back more than your balance held: ${amount(owed)} will be taken from your next rewards.`)}</p>`;
}

/**
 * The milestone bonuses reached (ticked) and the count toward the next one. `closed`: the campaign
 * ended, so no friend counts any more: only what was reached is shown.
 */
export function milestoneProgress(rewards: MyRewards | undefined, amount: (v: number) => string, count: (n: number) => string, closed: boolean) {
  const m = rewards?.milestones;
  const next = closed ? null : (m?.next ?? null);
  if (!m || (!m.reached.length && !next)) return nothing;
  return html`<section part="milestones" aria-labelledby="milestones-title">
    <h3 id="milestones-title">${msg('Bonuses')}</h3>
    ${next
      ? html`<label for="milestone-progress">
            ${plural(
              next.referrals,
              () => msg(str`${count(Math.min(m.qualifiedReferrals, next.referrals))} of ${count(next.referrals)} friend to ${next.label} (+${amount(next.reward)})`),
              () => msg(str`${count(Math.min(m.qualifiedReferrals, next.referrals))} of ${count(next.referrals)} friends to ${next.label} (+${amount(next.reward)})`),
            )}
          </label>
          <progress id="milestone-progress" part="milestone-progress" max=${next.referrals} .value=${Math.min(m.qualifiedReferrals, next.referrals)}></progress>`
      : nothing}
    ${m.reached.length
      ? html`<ul>
          ${m.reached.map(
            (r) => html`<li data-milestone="reached">
              ${icons.check}<span><bdi>${r.label}</bdi> (+${amount(r.reward)})<span class="visually-hidden"> ${msg('(reached)')}</span></span>
            </li>`,
          )}
        </ul>`
      : nothing}
  </section>`;
}
