/**
 * The offer backtest's replay of one referrer: their credited referrals and their referees' payments, in
 * time order, under a set of rules, giving every credit those rules would have made. Each decision is
 * the live path's own rule function (./reward-rules.ts: the ceiling, the commission and its carried
 * fraction, which payments earn it, the milestones due, the hold, what a refund keeps), so a replay of
 * the current rules makes the credits the ledger holds.
 *
 * What the replay takes as given, because the rules do not decide it: which referrals were credited and
 * when (qualification, fraud review, approval), the payments and what of them was refunded, and which
 * referrals a refund undid. Refund dates are not recorded, so refunds are applied after the referrer's
 * last credit of the period (see LIMITATIONS in ./backtest.ts).
 */
import type { RefereePaymentRow } from '../store/backtest-store.js';
import type { RewardCodeKind } from '../store/tables.js';
import { availableOn, commission, commissionApplies, commissionKept, milestonesDue, underCeiling, type Rules } from './reward-rules.js';

/** The rules of a replay: the reward rules and the fixed rewards. */
export interface ReplayRules extends Rules {
  referrerReward: number;
  refereeReward: number;
}

/** One credit of a referral (a referee is credited again after a refund undid their referral). */
export interface ReplayReferral {
  refereeId: number;
  creditedOn: number;
  /** A refund of the qualifying payment cancelled this credit. */
  undone: boolean;
}

/** A referee's payment, as the store reads it (its referrer aside). */
export type ReplayPayment = Omit<RefereePaymentRow, 'referrerId'>;

/** A credit the rules make, and what became of it. */
export interface ReplayCredit {
  kind: RewardCodeKind | 'commission';
  on: number;
  amount: number;
  capped: number;
  /** What refunds cancelled or took back of it. */
  reversed: number;
  /** Its hold was not over at the replay's `asOf`. */
  held: boolean;
  /** A refund undid its referral while it was pending: it never counted. */
  cancelled: boolean;
}

type Event = { on: number; order: 0; referral: ReplayReferral } | { on: number; order: 1; payment: ReplayPayment };

/**
 * When a payment's commission is decided: at once if its referee was credited by then, else when they
 * next are (a payment made while the referral waited for review); undefined if they never are.
 */
function commissionTime(p: ReplayPayment, credits: readonly ReplayReferral[]): number | undefined {
  if (credits.some((c) => c.creditedOn <= p.paidOn)) return p.paidOn;
  return credits.find((c) => c.creditedOn > p.paidOn)?.creditedOn;
}

/**
 * Replays one referrer. `referrals` and `payments` are theirs (their referees'), each in the order they
 * happened; `asOf` is when held credits are counted.
 */
export function replayReferrer(rules: ReplayRules, referrals: readonly ReplayReferral[], payments: readonly ReplayPayment[], asOf: number): ReplayCredit[] {
  const byReferee = new Map<number, ReplayReferral[]>();
  for (const r of referrals) {
    const list = byReferee.get(r.refereeId);
    if (list) list.push(r);
    else byReferee.set(r.refereeId, [r]);
  }
  const events: Event[] = referrals.map((referral) => ({ on: referral.creditedOn, order: 0, referral }));
  for (const payment of payments) {
    const on = commissionTime(payment, byReferee.get(payment.refereeId) ?? []);
    if (on !== undefined) events.push({ on, order: 1, payment });
  }
  // As the live path: a referral's fixed rewards and milestones first, then the commissions, by payment.
  events.sort((a, b) => a.on - b.on || a.order - b.order || (a.order === 1 && b.order === 1 ? a.payment.id - b.payment.id : 0));

  const credits: ReplayCredit[] = [];
  /** The credits each referral's undoing cancels, and the commission each payment earned. */
  const ofReferral = new Map<ReplayReferral, ReplayCredit[]>();
  const ofPayment = new Map<ReplayPayment, ReplayCredit>();
  const current = new Map<number, ReplayReferral>();
  let earned = 0;
  let carry = 0;
  let creditedReferrals = 0;
  let reached = 0;
  const credit = (referral: ReplayReferral, kind: ReplayCredit['kind'], amount: number, on: number, capped = true): ReplayCredit => {
    const fits = capped ? underCeiling(rules, earned, amount) : { amount, capped: 0 };
    if (capped) earned += fits.amount;
    const made: ReplayCredit = { kind, on, amount: fits.amount, capped: fits.capped, reversed: 0, held: availableOn(rules, on) > asOf, cancelled: false };
    credits.push(made);
    ofReferral.get(referral)!.push(made);
    return made;
  };
  for (const e of events) {
    if (e.order === 0) {
      const r = e.referral;
      current.set(r.refereeId, r);
      ofReferral.set(r, []);
      credit(r, 'referee', rules.refereeReward, r.creditedOn, false);
      credit(r, 'referral', rules.referrerReward, r.creditedOn);
      creditedReferrals += 1;
      for (const m of milestonesDue(rules, reached, creditedReferrals)) {
        credit(r, 'milestone', m.reward, r.creditedOn);
        reached = m.referrals;
      }
      continue;
    }
    const p = e.payment;
    if (!commissionApplies(rules, p.seq)) continue;
    const due = commission(p.amountCents, rules.bp, carry);
    carry = due.carry;
    if (due.units > 0) ofPayment.set(p, credit(current.get(p.refereeId)!, 'commission', due.units, e.on));
  }

  // Refunds: each commission loses what its payment's refund takes back of it...
  for (const [p, c] of ofPayment) if (p.refundedCents > 0) c.reversed = c.amount - commissionKept(c.amount, p.amountCents, p.refundedCents);
  // ...and a referral undone (inside a hold: without one, a credit is the participant's at once) loses all it brought.
  if (rules.holdDays > 0) {
    for (const [r, made] of ofReferral) if (r.undone) for (const c of made) Object.assign(c, { reversed: c.amount, cancelled: true });
  }
  return credits;
}
