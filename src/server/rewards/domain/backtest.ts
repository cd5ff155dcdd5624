/**
 * The offer backtest: what a campaign's recorded history would have cost under proposed rules, beside its
 * current rules, per month (POST /api/v1/admin/backtestRules, the rules editor's "What would this have
 * cost?"). It replays every referrer (./backtest-replay.ts, which applies the live path's rule functions)
 * from the campaign's start to the end of the period, with its refunds at their dates, reading the
 * campaign's credits and payments in a few big queries (../store/backtest-store.ts; its memory grows with
 * the campaign: 1M ledger entries take some tens of MB), and counts each credit in the month it was made.
 * It reads only: nothing is written, not even the audit log (it changes nothing to record).
 */
import type { BacktestAnswer, BacktestFigures, BacktestMonth, BacktestRulesBody, BacktestRow } from '../../../api/backtest-schemas.js';
import { MAX_BACKTEST_MONTHS } from '../../../api/backtest-schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { replay, timeline, type ReplayCredit, type ReplayPayment, type ReplayReferral, type ReplayRefund, type ReplayRules } from './backtest-replay.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { invalid } from '../../kernel/errors.js';
import { rulesColumns, rulesOf } from './reward-rules.js';

/** What the replay cannot know; the answer and docs/rewards.md say it. */
export const LIMITATIONS = [
  'Behaviour is taken as recorded: the same people sign up, qualify, pay and refund under the proposed offer. A bigger reward or commission may bring more referrals or payments; the backtest cannot know how many.',
  'Which referrals were credited and when (qualification, fraud review, approval) is taken as recorded: the rules do not decide it.',
  'The proposed rules are applied from the campaign\'s start, as if they had always been in force; the current column applies today\'s rules the same way, so it differs from the ledger where the rules were changed during the campaign.',
  'Refunds are applied at their dates: a commission taken back or a referral undone frees room under the ceiling for later credits, and the milestone an undone referral reached is reached again by the next one. Refunds made before their dates were recorded (before migration 0029) are applied after the referrer\'s last credit of the period: the room they freed is not used again, and a milestone they undid is not reached again.',
  'A referral a refund undid (inside the hold) is undone under the proposed rules too if they hold credits at all: whether the refund would have fallen inside a different hold is not known.',
  'Reward codes count credits that take one from the campaign\'s pools of today; whether a pool had codes left is not considered.',
  'Months are calendar months in UTC; held credits are counted at the end of the period (or now, if sooner).',
];

const zero = (): BacktestFigures => ({ credited: 0, paid: 0, held: 0, reversed: 0, capped: 0, capHits: 0, milestoneHits: 0, codesUsed: 0 });
const FIELDS = Object.keys(zero()) as (keyof BacktestFigures)[];

/** The first millisecond of a YYYY-MM month (UTC). */
const monthStart = (month: string, offset = 0): number => Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + offset, 1);
const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The index of the month `ms` falls in, given the months' first milliseconds (ascending; `ms` not before the first). */
function monthIndex(starts: readonly number[], ms: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The rules of a replay: a campaign row's (the current ones, or the row with the proposed columns). */
const replayRules = (c: CampaignRow): ReplayRules => ({ ...rulesOf(c), referrerReward: c.referrer_reward_value, refereeReward: c.referee_reward_value });

/** The campaign as the proposed rules would make it (each rule given replaces the current one), checked as updateCampaign checks it. */
function proposedRow(c: CampaignRow, rules: BacktestRulesBody['rules']): CampaignRow {
  const { referrerRewardValue, refereeRewardValue, ...rest } = rules;
  return {
    ...c,
    ...rulesColumns(rest),
    ...(referrerRewardValue !== undefined && { referrer_reward_value: referrerRewardValue }),
    ...(refereeRewardValue !== undefined && { referee_reward_value: refereeRewardValue }),
  };
}

/** Adds one credit to a month's figures. `pools`: the kinds of credit that take a reward code. */
function count(f: BacktestFigures, c: ReplayCredit, pools: ReadonlySet<string>): void {
  const held = c.held && !c.cancelled ? c.amount - c.reversed : 0;
  f.credited += c.amount;
  f.reversed += c.reversed;
  f.held += held;
  f.paid += c.amount - c.reversed - held;
  f.capped += c.capped;
  if (c.capped > 0) f.capHits += 1;
  if (c.kind === 'milestone') f.milestoneHits += 1;
  if (pools.has(c.kind) && !c.held && !c.cancelled) f.codesUsed += 1;
}

function row(current: BacktestFigures, proposed: BacktestFigures): BacktestRow {
  const difference = zero();
  for (const k of FIELDS) difference[k] = proposed[k] - current[k];
  return { current, proposed, difference };
}

/** Rows grouped by their referrer, each group in the rows' order. */
function byReferrer<T extends { referrerId: number }>(rows: readonly T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const list = out.get(r.referrerId);
    if (list) list.push(r);
    else out.set(r.referrerId, [r]);
  }
  return out;
}

/**
 * The months to report: those given, or by default the campaign's whole life up to its month now (in its
 * own time, so a test campaign's moved clock counts), its last 120 months if it is older.
 */
function period(campaign: CampaignRow, input: BacktestRulesBody, now: number): { from: string; to: string } {
  const to = input.to ?? monthOf(now);
  const earliest = monthOf(monthStart(to, 1 - MAX_BACKTEST_MONTHS));
  const first = monthOf(campaign.created_on);
  return { from: input.from ?? (first > to ? to : first < earliest ? earliest : first), to };
}

export async function backtestRules(ctx: Ctx, actor: Actor, input: BacktestRulesBody): Promise<BacktestAnswer> {
  const campaign = await ownCampaign(ctx, actor, input.id);
  const { from, to } = period(campaign, input, ctx.now());
  const start = monthStart(from);
  const end = monthStart(to, 1);
  if (end <= start) throw invalid('to', 'to must be the same month as from or later');
  const months: string[] = [];
  for (let m = 0; monthStart(from, m) < end; m++) months.push(monthOf(monthStart(from, m)));
  if (months.length > MAX_BACKTEST_MONTHS) throw invalid('to', `A backtest covers at most ${MAX_BACKTEST_MONTHS} months`);
  const rules = { current: replayRules(campaign), proposed: replayRules(proposedRow(campaign, input.rules)) };
  const asOf = Math.min(ctx.now(), end);
  const pools = new Set((campaign.reward_code_kinds ?? '').split(',').filter(Boolean));

  const figures = months.map(() => ({ current: zero(), proposed: zero() }));
  const starts = months.map((m) => monthStart(m));
  const refunds = new Map<number, ReplayRefund[]>();
  for (const r of await ctx.store.refunds.ofCampaign(campaign.id)) {
    const list = refunds.get(r.paymentId);
    if (list) list.push({ cents: r.cents, on: r.refundedOn });
    else refunds.set(r.paymentId, [{ cents: r.cents, on: r.refundedOn }]);
  }
  const [credits, payments] = await Promise.all([ctx.store.backtest.referralCredits(campaign.id, end), ctx.store.backtest.refereePayments(campaign.id, end)]);
  const paymentsOf = byReferrer(payments);
  for (const [referrerId, rows] of byReferrer(credits)) {
    const paid: readonly ReplayPayment[] = (paymentsOf.get(referrerId) ?? []).sort((a, b) => a.id - b.id);
    const referrals: ReplayReferral[] = rows.map((r) => ({ refereeId: r.refereeId, creditedOn: r.creditedOn, undone: r.cancelled }));
    const history = timeline(referrals, paid, refunds);
    for (const side of ['current', 'proposed'] as const) {
      for (const c of replay(rules[side], history, asOf)) {
        if (c.on >= start) count(figures[monthIndex(starts, c.on)]![side], c, pools);
      }
    }
  }

  const total = { current: zero(), proposed: zero() };
  const out: BacktestMonth[] = months.map((month, i) => {
    const f = figures[i]!;
    for (const side of ['current', 'proposed'] as const) for (const k of FIELDS) total[side][k] += f[side][k];
    return { month, ...row(f.current, f.proposed) };
  });
  return { campaignId: campaign.id, from, to, asOf: new Date(asOf).toISOString(), months: out, total: row(total.current, total.proposed), limitations: LIMITATIONS };
}
