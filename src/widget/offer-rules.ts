/**
 * The offer's lines for a campaign's reward rules (getWidgetSettings `rules`): commission on payments,
 * milestone bonuses, the hold before rewards are confirmed, and the ceiling. The dashboard's preview of
 * the widget reads these same English sentences, so they change only together.
 */
import { html, nothing } from 'lit';
import { msg, str } from '@lit/localize';
import type { RewardRules } from '../api/schemas.js';
import { plural } from './plural.js';

/** `count` writes a number as the locale does ("2,5" in German). */
export function offerRuleLines(rules: RewardRules | undefined, amount: (v: number) => string, count: (n: number) => string) {
  if (!rules) return nothing;
  const percent = count(rules.referrerRewardPercent);
  const n = rules.commissionPayments;
  return html`${rules.referrerRewardPercent > 0
      ? html`<li data-offer="commission">
          ${n > 0
            ? plural(
                n,
                () => msg(str`Plus ${percent}% of each friend's first payment.`),
                () => msg(str`Plus ${percent}% of each friend's first ${count(n)} payments.`),
              )
            : msg(str`Plus ${percent}% of what each friend pays.`)}
        </li>`
      : nothing}
    ${rules.milestones.map(
      (m) =>
        html`<li data-offer="milestone">
          ${plural(
            m.referrals,
            () => msg(str`${amount(m.reward)} bonus when your first friend qualifies: ${m.label}.`),
            () => msg(str`${amount(m.reward)} bonus when ${count(m.referrals)} friends qualify: ${m.label}.`),
          )}
        </li>`,
    )}
    ${rules.holdDays > 0
      ? html`<li data-offer="hold">
          ${plural(
            rules.holdDays,
            () => msg(str`Rewards are confirmed ${count(rules.holdDays)} day after a friend qualifies.`),
            () => msg(str`Rewards are confirmed ${count(rules.holdDays)} days after a friend qualifies.`),
          )}
        </li>`
      : nothing}
    ${rules.maxReferralReward !== null ? html`<li data-offer="cap">${msg(str`Up to ${amount(rules.maxReferralReward)} in all.`)}</li>` : nothing}`;
}

/** Whether the rules add any line to the offer (an offer of only these lines is still an offer). */
export const hasOfferRuleLines = (rules: RewardRules | undefined) =>
  !!rules && (rules.referrerRewardPercent > 0 || rules.milestones.length > 0 || rules.holdDays > 0 || rules.maxReferralReward !== null);
