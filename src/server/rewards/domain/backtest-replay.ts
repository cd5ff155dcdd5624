/**
 * The offer backtest's replay of one referrer: their credited referrals, their referees' payments and the
 * refunds of those, in time order, under a set of rules, giving every credit those rules would have made.
 * Each decision is the live path's own rule function (./reward-rules.ts: the ceiling, the commission and
 * its carried fraction, which payments earn it, the milestones due, the hold, what a refund keeps), and a
 * refund does what ./refunds.ts does at its date: a commission loses what the refund takes back of it, a
 * referral it undoes loses its fixed rewards and milestone, and both free room under the ceiling, and a
 * milestone is reached again. So a replay of the current rules makes the credits the ledger holds.
 *
 * What the replay takes as given, because the rules do not decide it: which referrals were credited and
 * when (qualification, fraud review, approval), the payments and their refunds, and which referrals a
 * refund undid. Refunds made before their dates were recorded (migration 0029) are applied after the
 * referrer's last credit of the period (see LIMITATIONS in ./backtest.ts).
 *
 * A referrer's history is put in order once (timeline) and replayed under each set of rules (replay).
 */
import type { RefereePaymentRow } from '../store/backtest-store.js';
import type { RewardCodeKind } from '../../store/tables.js';
import { availableOn, commission, commissionApplies, commissionKept, commissionReversal, milestonesDue, underCeiling, type Rules } from './reward-rules.js';

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

/** A dated refund of a payment. */
export interface ReplayRefund {
  cents: number;
  on: number;
}

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

/**
 * One happening of a referrer's history: a credited referral (order 0), a payment's commission decided (1)
 * or a refund of a payment (2). Every event has every field (unused ones undefined), so that the sort and
 * the replay read one shape of object: with three shapes their property reads were megamorphic.
 */
interface Event {
  on: number;
  order: 0 | 1 | 2;
  referral: ReplayReferral | undefined;
  payment: ReplayPayment | undefined;
  /** The payment's place in Timeline.payments: where the replay keeps what it did with it. */
  index: number;
  /** A refund's cents. */
  cents: number;
  /** The referral a refund undid. */
  undoes: ReplayReferral | undefined;
}

/** A referrer's history in the order it happened, the same under any rules. */
export interface Timeline {
  events: Event[];
  payments: readonly ReplayPayment[];
  /** Referrals undone by a refund of unknown date: undone after the last event. */
  undatedUndone: ReplayReferral[];
}

/**
 * When a payment's commission is decided: at once if its referee was credited by then, else when they
 * next are (a payment made while the referral waited for review); undefined if they never are.
 */
function commissionTime(p: ReplayPayment, credits: readonly ReplayReferral[]): number | undefined {
  if (credits.some((c) => c.creditedOn <= p.paidOn)) return p.paidOn;
  return credits.find((c) => c.creditedOn > p.paidOn)?.creditedOn;
}

/**
 * Puts one referrer's history in order. `referrals` and `payments` are theirs (their referees'), each in
 * the order they happened; `refunds`, the dated refunds of any payments, each payment's in order.
 */
export function timeline(referrals: readonly ReplayReferral[], payments: readonly ReplayPayment[], refunds: ReadonlyMap<number, readonly ReplayRefund[]>): Timeline {
  const byReferee = new Map<number, ReplayReferral[]>();
  for (const r of referrals) {
    const list = byReferee.get(r.refereeId);
    if (list) list.push(r);
    else byReferee.set(r.refereeId, [r]);
  }
  const events: Event[] = referrals.map((referral) => ({ on: referral.creditedOn, order: 0, referral, payment: undefined, index: -1, cents: 0, undoes: undefined }));
  /** The refund that completed each fully refunded qualifying payment (all of it dated), by referee. */
  const completing = new Map<number, Event[]>();
  for (let index = 0; index < payments.length; index++) {
    const payment = payments[index]!;
    const on = commissionTime(payment, byReferee.get(payment.refereeId) ?? []);
    if (on !== undefined) events.push({ on, order: 1, referral: undefined, payment, index, cents: 0, undoes: undefined });
    const dated = refunds.get(payment.id);
    if (dated === undefined) continue;
    let sum = 0;
    let last: Event | undefined;
    for (const r of dated) {
      events.push((last = { on: r.on, order: 2, referral: undefined, payment, index, cents: r.cents, undoes: undefined }));
      sum += r.cents;
    }
    if (payment.qualifying && sum === payment.amountCents) {
      const list = completing.get(payment.refereeId);
      if (list) list.push(last!);
      else completing.set(payment.refereeId, [last!]);
    }
  }
  // A referral undone: by the earliest full refund of a qualifying payment of its referee after it was credited.
  const undatedUndone: ReplayReferral[] = [];
  for (const r of referrals) {
    if (!r.undone) continue;
    let by: Event | undefined;
    for (const e of completing.get(r.refereeId) ?? []) if (e.on >= r.creditedOn && e.undoes === undefined && (by === undefined || e.on < by.on)) by = e;
    if (by) by.undoes = r;
    else undatedUndone.push(r);
  }
  // As the live path: a referral's fixed rewards and milestones first, then the commissions, by payment, then refunds.
  events.sort((a, b) => a.on - b.on || a.order - b.order || (a.order === 0 ? 0 : a.payment!.id - b.payment!.id));
  return { events, payments, undatedUndone };
}

/** Replays a referrer's timeline under `rules`; `asOf` is when held credits are counted. */
export function replay(rules: ReplayRules, t: Timeline, asOf: number): ReplayCredit[] {
  const credits: ReplayCredit[] = [];
  /** The fixed rewards and milestones each referral brought (what undoing it cancels), and the commission each payment earned. */
  const ofReferral = new Map<ReplayReferral, ReplayCredit[]>();
  // By the payment's index in t.payments (arrays: a Map keyed by the payment cost more than the rest of its step).
  const ofPayment: (ReplayCredit | undefined)[] = new Array(t.payments.length);
  const refunded: number[] = new Array(t.payments.length).fill(0);
  let earned = 0;
  let carry = 0;
  let creditedReferrals = 0;
  let reached = 0;
  const credit = (kind: ReplayCredit['kind'], amount: number, on: number, capped = true): ReplayCredit => {
    const fits = capped ? underCeiling(rules, earned, amount) : { amount, capped: 0 };
    if (capped) earned += fits.amount;
    const made: ReplayCredit = { kind, on, amount: fits.amount, capped: fits.capped, reversed: 0, held: availableOn(rules, on) > asOf, cancelled: false };
    credits.push(made);
    return made;
  };
  /** Cancels a referral's credits (they were pending: the rules hold credits); answers whether a milestone was among them. */
  const cancel = (r: ReplayReferral): boolean => {
    let milestone = false;
    for (const c of ofReferral.get(r) ?? []) {
      if (c.kind !== 'referee') earned -= c.amount - c.reversed;
      if (c.kind === 'milestone') milestone = true;
      Object.assign(c, { reversed: c.amount, cancelled: true });
    }
    return milestone;
  };
  for (const e of t.events) {
    if (e.order === 0) {
      const r = e.referral!;
      const made = [credit('referee', rules.refereeReward, r.creditedOn, false), credit('referral', rules.referrerReward, r.creditedOn)];
      creditedReferrals += 1;
      for (const m of milestonesDue(rules, reached, creditedReferrals)) {
        made.push(credit('milestone', m.reward, r.creditedOn));
        reached = m.referrals;
      }
      ofReferral.set(r, made);
    } else if (e.order === 1) {
      const p = e.payment!;
      if (!commissionApplies(rules, p.seq)) continue;
      const due = commission(p.amountCents, rules.bp, carry);
      carry = due.carry;
      if (due.units > 0) ofPayment[e.index] = credit('commission', due.units, e.on);
    } else {
      // A refund at its date: the commission loses what it takes back (and the ceiling has that room again)...
      const p = e.payment!;
      const so = refunded[e.index]! + e.cents;
      refunded[e.index] = so;
      const c = ofPayment[e.index];
      // As the ledger takes it back: in proportion when the ceiling cut the commission, else the millionths
      // its part earned, the carried fraction first (commissionReversal).
      if (c && c.capped > 0) {
        const reversed = c.amount - commissionKept(c.amount, p.amountCents, so);
        earned -= reversed - c.reversed;
        c.reversed = reversed;
      } else if (commissionApplies(rules, p.seq)) {
        const taken = commissionReversal(e.cents, rules.bp, carry, c ? c.amount - c.reversed : 0);
        carry = taken.carry;
        if (c) {
          earned -= taken.units;
          c.reversed += taken.units;
        }
      }
      // ...and a referral it undid (inside a hold) loses its fixed rewards and milestone: the next referral reaches it again.
      if (e.undoes && rules.holdDays > 0 && ofReferral.has(e.undoes)) {
        const lost = cancel(e.undoes);
        creditedReferrals -= 1;
        if (lost) reached = Math.max(0, ...rules.milestones.filter((m) => m.referrals <= creditedReferrals && m.referrals <= reached).map((m) => m.referrals));
      }
    }
  }

  // Refunds of unknown date, after the last credit: what each payment's refunds take back in all...
  t.payments.forEach((p, i) => {
    const c = ofPayment[i];
    if (c && p.refundedCents > 0) c.reversed = Math.max(c.reversed, c.amount - commissionKept(c.amount, p.amountCents, p.refundedCents));
  });
  // ...and a referral undone (inside a hold: without one, a credit is the participant's at once) loses all it brought.
  if (rules.holdDays > 0) for (const r of t.undatedUndone) cancel(r);
  return credits;
}
