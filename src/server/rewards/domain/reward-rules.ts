/**
 * A campaign's reward rules beyond its fixed rewards: the commission on referees' payments, milestone
 * bonuses, the ceiling on what one referrer earns, and the hold on new credits. What they are, how they
 * are stored on the campaign, and the arithmetic each one needs; ./reward-credits.ts applies them.
 *
 * Commissions are exact integer arithmetic: a payment of `c` cents at `bp` basis points earns `c * bp`
 * millionths of a reward unit. Credits are whole units, rounded down; the fraction is carried on the
 * referrer to their next commission, so over many small payments nothing is lost (eleven payments of
 * 0.99 at 10% credit nothing ten times, then 1 unit for the 1.089 they make, carrying 0.089).
 */
import type { Milestone, RewardRules, RewardRulesFields } from '../../../api/schemas.js';
import type { Static, TObject } from '@sinclair/typebox';
import type { CampaignRow } from '../../store/store.js';
import { DAY_MS } from '../../store/migrations.js';
import { invalid } from '../../kernel/errors.js';

type RuleInput = Partial<Static<TObject<typeof RewardRulesFields>>>;

/** Millionths of a unit in one reward unit: cents (1/100) times basis points (1/10,000). */
export const MICROS_PER_UNIT = 1_000_000n;
const MICROS = Number(MICROS_PER_UNIT);

/** The rules of a campaign, read from its row. */
export interface Rules {
  /** The commission, in basis points of each payment (1% = 100). */
  bp: number;
  /** 0: every payment earns it; n: the referee's first n payments. */
  commissionPayments: number;
  /** Sorted by referrals, ascending. */
  milestones: Milestone[];
  maxReferralReward: number | null;
  holdDays: number;
}

export function rulesOf(c: CampaignRow): Rules {
  return {
    bp: c.referrer_reward_bp,
    commissionPayments: c.commission_payments,
    milestones: c.milestones === null ? [] : (JSON.parse(c.milestones) as Milestone[]),
    maxReferralReward: c.max_referral_reward === null ? null : Number(c.max_referral_reward),
    holdDays: c.hold_days,
  };
}

/** The rules as the campaign's settings show them. */
export function presentRules(c: CampaignRow): RewardRules {
  const r = rulesOf(c);
  return {
    referrerRewardPercent: r.bp / 100,
    commissionPayments: r.commissionPayments,
    milestones: r.milestones,
    maxReferralReward: r.maxReferralReward,
    holdDays: r.holdDays,
  };
}

/** The columns of the rules given (the schema checked each value; this checks them together). */
export function rulesColumns(input: RuleInput): Partial<CampaignRow> {
  const row: Partial<CampaignRow> = {};
  // Basis points are whole; the schema's multipleOf 0.01 lets through what float division rounds.
  if (input.referrerRewardPercent !== undefined) row.referrer_reward_bp = Math.round(input.referrerRewardPercent * 100);
  if (input.commissionPayments !== undefined) row.commission_payments = input.commissionPayments;
  if (input.maxReferralReward !== undefined) row.max_referral_reward = input.maxReferralReward;
  if (input.holdDays !== undefined) row.hold_days = input.holdDays;
  if (input.milestones !== undefined) {
    const sorted = [...input.milestones].sort((a, b) => a.referrals - b.referrals);
    const repeated = sorted.find((m, i) => i > 0 && sorted[i - 1]!.referrals === m.referrals);
    if (repeated) throw invalid('milestones', `Two milestones are at ${repeated.referrals} referrals: each count may have one`);
    row.milestones = sorted.length === 0 ? null : JSON.stringify(sorted.map(({ referrals, reward, label }) => ({ referrals, reward, label })));
  }
  return row;
}

/** When a credit made now becomes available: at once, or after the hold. */
export const availableOn = (rules: Rules, now: number): number => now + rules.holdDays * DAY_MS;

/** Whether the referee's `seq`th payment (1 = their first) earns the referrer a commission. */
export const commissionApplies = (rules: Rules, seq: number): boolean =>
  rules.bp > 0 && (rules.commissionPayments === 0 || seq <= rules.commissionPayments);

/**
 * The commission on a payment of `cents`, given the millionths the referrer carried from before: whole
 * units to credit now, and the millionths to carry on.
 */
export function commission(cents: number, bp: number, carried: number): { units: number; carry: number } {
  // In numbers while the total is a safe integer (every real payment): exact, and a fifth of the BigInt
  // path's time, which the offer backtest pays for each payment under each set of rules.
  const sum = carried + cents * bp;
  if (sum <= Number.MAX_SAFE_INTEGER) {
    const carry = sum % MICROS;
    return { units: (sum - carry) / MICROS, carry };
  }
  const total = BigInt(carried) + BigInt(cents) * BigInt(bp);
  return { units: Number(total / MICROS_PER_UNIT), carry: Number(total % MICROS_PER_UNIT) };
}

/**
 * What a refund of `cents` of a payment takes back of a commission computed at `bp` from the referrer's
 * running millionths (commission above): the millionths its part earned, `cents × bp`, out of the carried
 * fraction first and then out of whole units, so that the referrer keeps exactly the floor of the
 * commission on what is left of every payment (10% of 49.90 and 29.00 credits 4 + 3 with 0.89 carried;
 * 10.00 refunded takes back 1.00: 6 units and 0.89, where taking back in proportion of the 3 would
 * reverse 2). `left`: the units of this payment's commission not reversed yet, the most it may take.
 */
export function commissionReversal(cents: number, bp: number, carried: number, left: number): { units: number; carry: number } {
  const micros = BigInt(cents) * BigInt(bp);
  const carry = BigInt(carried);
  if (micros <= carry) return { units: 0, carry: Number(carry - micros) };
  const units = Math.min(left, Number((micros - carry + MICROS_PER_UNIT - 1n) / MICROS_PER_UNIT));
  const after = carry + BigInt(units) * MICROS_PER_UNIT - micros;
  // Bounded by `left` (a commission cut by the ceiling, say), the fraction cannot go below nothing.
  return { units, carry: Number(after < 0n ? 0n : after) };
}

/**
 * What of a payment's commission stays earned once `refunded` of its `amount` cents are refunded: in
 * proportion, rounded down (so a full refund takes back all of it).
 */
export function commissionKept(earned: number, amount: number, refunded: number): number {
  return Number((BigInt(earned) * BigInt(amount - refunded)) / BigInt(amount));
}

/** The milestones a referrer with `credited` referrals reaches beyond the highest credited (`reached`). */
export const milestonesDue = (rules: Rules, reached: number, credited: number): Milestone[] =>
  rules.milestones.filter((m) => m.referrals > reached && m.referrals <= credited);

/** What of a credit of `amount` fits under the ceiling, given what the referrer has earned (`earned`). */
export function underCeiling(rules: Rules, earned: number, amount: number): { amount: number; capped: number } {
  if (rules.maxReferralReward === null) return { amount, capped: 0 };
  const room = Math.max(0, rules.maxReferralReward - earned);
  const fits = Math.min(amount, room);
  return { amount: fits, capped: amount - fits };
}
