/**
 * A campaign's reward rules as the editor's form holds them (the text of each input, as typed), and back
 * to the rules the service takes. The service checks every bound (the form's min and max only help), so
 * the text goes to it as typed: a value it refuses comes back as a field error, beside its input.
 */
import type { MAX_HOLD_DAYS, MAX_MILESTONES, Milestone, RewardRules } from '../api/schemas.js';

/** The bounds of RewardRulesFields, for the inputs. Typed by the schema's constants so a change there fails here. */
export const RULE_BOUNDS = {
  percent: { min: 0, max: 100, step: 0.01 },
  commissionPayments: { min: 0, max: 1000 },
  holdDays: { min: 0, max: 365 satisfies typeof MAX_HOLD_DAYS },
  milestones: 20 satisfies typeof MAX_MILESTONES,
} as const;

export interface MilestoneDraft {
  referrals: string;
  reward: string;
  label: string;
}

export interface RulesDraft {
  referrerRewardPercent: string;
  commissionPayments: string;
  milestones: MilestoneDraft[];
  /** '' : no ceiling. */
  maxReferralReward: string;
  holdDays: string;
}

/** A new campaign's rules: the fixed rewards alone, at once, without a ceiling (the service's defaults). */
export const NO_RULES: RulesDraft = { referrerRewardPercent: '0', commissionPayments: '0', milestones: [], maxReferralReward: '', holdDays: '0' };

export const EMPTY_MILESTONE: MilestoneDraft = { referrals: '', reward: '', label: '' };

export function rulesDraftOf(r: RewardRules): RulesDraft {
  return {
    referrerRewardPercent: String(r.referrerRewardPercent),
    commissionPayments: String(r.commissionPayments),
    milestones: r.milestones.map((m) => ({ referrals: String(m.referrals), reward: String(m.reward), label: m.label })),
    maxReferralReward: r.maxReferralReward === null ? '' : String(r.maxReferralReward),
    holdDays: String(r.holdDays),
  };
}

/** An emptied number input is 0; text that is no number goes as it is, for the service to refuse by name. */
const number = (text: string): number => (text.trim() === '' ? 0 : Number(text));

const milestone = (m: MilestoneDraft): Milestone => ({ referrals: number(m.referrals), reward: number(m.reward), label: m.label.trim() });

/** The rules to save: every one, so that a cleared one (no milestones, no ceiling) is cleared on the campaign. */
export function rulesOf(d: RulesDraft): RewardRules {
  return {
    referrerRewardPercent: number(d.referrerRewardPercent),
    commissionPayments: number(d.commissionPayments),
    milestones: d.milestones.map(milestone),
    maxReferralReward: d.maxReferralReward.trim() === '' ? null : number(d.maxReferralReward),
    holdDays: number(d.holdDays),
  };
}

const finite = (v: number) => (Number.isFinite(v) ? v : 0);

/**
 * The rules as the preview's widget gets them: every keystroke shows, but a half-typed milestone (no
 * count or no label yet) is left out rather than shown as half a sentence, and what is no number is 0.
 */
export function previewRules(d: RulesDraft): RewardRules {
  const r = rulesOf(d);
  return {
    referrerRewardPercent: finite(r.referrerRewardPercent),
    commissionPayments: finite(r.commissionPayments),
    milestones: r.milestones.filter((m) => finite(m.referrals) >= 1 && m.label !== '').map((m) => ({ ...m, reward: finite(m.reward) })),
    maxReferralReward: r.maxReferralReward === null ? null : finite(r.maxReferralReward),
    holdDays: finite(r.holdDays),
  };
}
