/**
 * Writing rewards. Every credit, reversal, cancellation and release of one transaction goes through a
 * RewardBatch, the one place where the campaign's rules meet the ledger:
 *
 * - a referrer's credit is cut to what fits under the campaign's ceiling (maxReferralReward), the rest
 *   recorded on the entry as capped;
 * - with a hold (holdDays), a credit is written `pending` and counts for nothing until it is released
 *   (./reward-release.ts); without one it is `available` at once;
 * - a credit that becomes available first pays back what the participant owes (an earlier reversal that
 *   found no balance to take back), as a reversal entry of its own;
 * - a reversal takes back from the balance at most what is there, never leaving it below zero, and the
 *   rest becomes owed.
 *
 * The batch reads each participant's state once (locked, on PostgreSQL), keeps it current as it goes,
 * and writes every counter move and entry together at commit (../store/reward-entry-store.ts write);
 * events go out for what became available (reward_unlocked, once per side of each referral), reached
 * (milestone_reached) or was taken back (reward_reversed), once per participant and type.
 *
 * A credit that becomes available in a campaign with a reward code pool of its kind takes a code at
 * commit (./reward-codes.ts), before its entry is written and its reward_unlocked built, which carries it.
 */
import type { WebhookEventType } from '../../../api/schemas.js';
import type { CounterMove, NewRewardEntry, RewardEntryRow } from '../store/reward-entry-store.js';
import type { CampaignRow, RewardKind, RewardState, Store } from '../../store/store.js';
import type { RewardCodeKind } from '../../store/tables.js';
import { report, type DomainMetrics } from '../../kernel/metrics.js';
import { moveOnBoards } from '../../engagement/domain/leaderboard.js';
import { moveForQualified } from '../../engagement/domain/waitlist.js';
import { PayoutQueue } from '../../payouts/domain/payout-queue.js';
import { CodeDraws, type GivenCode } from './reward-codes.js';
import { availableOn, milestonesDue, rulesOf, underCeiling, type Rules } from './reward-rules.js';
import { emit } from '../../webhooks/domain/webhook-events.js';
import { RewardEmails } from '../../emails/domain/lifecycle-emails.js';

export interface Credit {
  kind: 'referral' | 'referee' | 'commission' | 'milestone';
  rewardKind: RewardKind;
  amount: number;
  label: string;
  refereeId?: number | null;
  paymentId?: number | null;
}

const OWED = { referral: 'referral_reward_owed', referee: 'referee_reward_owed' } as const;
const EARNED = { referral: 'referral_reward', referee: 'referee_reward' } as const;
const REDEEMED = { referral: 'referral_reward_redeemed', referee: 'referee_reward_redeemed' } as const;
const MOVE_OWED = { referral: 'referralOwed', referee: 'refereeOwed' } as const;
const MOVE_EARNED = { referral: 'referralReward', referee: 'refereeReward' } as const;

/** The key of a participant's reward_unlocked about one referral (RewardBatch.event), which carries its codes. */
const unlockedKey = (participantId: number, refereeId: number | null) => `reward_unlocked ${participantId} ${refereeId}`;

export const NETTED_LABEL = 'Netted against an earlier refund';

export class RewardBatch {
  readonly rules: Rules;
  readonly #moves = new Map<number, CounterMove>();
  readonly #entries: NewRewardEntry[] = [];
  readonly #events = new Map<string, [WebhookEventType, number]>();
  /** What each referrer has earned so far (for the ceiling), read when first needed. */
  readonly #earned = new Map<number, number>();
  readonly #codes: CodeDraws;
  /** Credits becoming available that take a reward code: new entries, or released ones (by id). */
  readonly #wantCodes: { entry: NewRewardEntry | RewardEntryRow; kind: RewardCodeKind; released: boolean }[] = [];
  /** The codes given, by the key of the reward_unlocked that carries them. */
  readonly #given = new Map<string, GivenCode[]>();
  /** Credits becoming available, to pay into Stripe when the campaign does (../../payouts/domain/payout-queue.ts). */
  readonly #payouts: PayoutQueue;
  /** The lifecycle emails of what this batch credits, releases and reaches. */
  readonly #emails: RewardEmails;

  /** Entries written that credit (fixed rewards, commissions, milestones) and that reverse, for the metrics. */
  #credits = 0;
  #reversals = 0;

  /** `metrics`: told the batch's credits and reversals once its transaction has committed. */
  constructor(
    readonly tx: Store,
    readonly campaign: CampaignRow,
    readonly now: number,
    private readonly states: Map<number, RewardState>,
    private readonly metrics?: DomainMetrics,
  ) {
    this.rules = rulesOf(campaign);
    this.#codes = new CodeDraws(tx, campaign, now);
    this.#payouts = new PayoutQueue(campaign, now);
    this.#emails = new RewardEmails(tx, campaign, now);
  }

  /** A participant's state: read (and locked) with the transaction's others, or now if it was not (always on SQLite). */
  async state(id: number): Promise<RewardState> {
    let s = this.states.get(id);
    if (!s) {
      s = (await this.tx.lockParticipants([id])).get(id) ?? (await this.tx.rewardState(id));
      if (!s) throw new Error(`RewardBatch: participant ${id} is gone`);
      this.states.set(id, s);
    }
    return s;
  }

  #move(id: number): CounterMove {
    let m = this.#moves.get(id);
    if (!m) this.#moves.set(id, (m = { participantId: id }));
    return m;
  }

  /**
   * Queues an event about a participant, once per type, participant and referral (`about`, the referee):
   * a referral's credits that unlock together (its fixed reward, commissions, the milestone it reached)
   * are one reward_unlocked for each side, as they were before there were rules.
   */
  event(type: WebhookEventType, participantId: number, about: number | null = null): void {
    this.#events.set(type === 'reward_unlocked' ? unlockedKey(participantId, about) : `${type} ${participantId} ${about}`, [type, participantId]);
  }

  /** Credits a participant under the campaign's rules (ceiling, hold); answers the amount credited. */
  async credit(participantId: number, c: Credit): Promise<number> {
    await this.state(participantId);
    let { amount } = c;
    let capped = 0;
    if (c.rewardKind === 'referral' && this.rules.maxReferralReward !== null) {
      const earned = this.#earned.get(participantId) ?? (await this.tx.rewardEntries.sums(participantId)).referralEarned;
      ({ amount, capped } = underCeiling(this.rules, earned, amount));
      this.#earned.set(participantId, earned + amount);
    }
    const held = this.rules.holdDays > 0;
    this.#credits++;
    const entry: NewRewardEntry = {
      participant_id: participantId,
      kind: c.kind,
      reward_kind: c.rewardKind,
      amount,
      status: held ? 'pending' : 'available',
      available_on: held ? availableOn(this.rules, this.now) : this.now,
      label: capped > 0 ? `${c.label} (${capped} over the campaign's ceiling of ${this.rules.maxReferralReward})` : c.label,
      referee_id: c.refereeId ?? null,
      payment_id: c.paymentId ?? null,
      capped,
      created_on: this.now,
    };
    this.#entries.push(entry);
    const pool = held ? undefined : this.#codes.poolFor(c.kind);
    if (pool) this.#wantCodes.push({ entry, kind: pool, released: false });
    if (c.kind === 'milestone') this.event('milestone_reached', participantId);
    else {
      const cause = { refereeId: c.refereeId ?? null, paymentId: c.paymentId ?? null };
      this.#emails.earned(participantId, amount, cause, unlockedKey(participantId, cause.refereeId), held ? entry.available_on : undefined);
    }
    if (!held) this.#available(participantId, c.rewardKind, amount, c.refereeId ?? null, entry.label);
    return amount;
  }

  /**
   * Writes an entry as given, with no rule applied: a pending credit re-made for what a partial refund
   * left of it (its hold and ceiling were applied when it was first made).
   */
  append(entry: NewRewardEntry): void {
    this.#entries.push(entry);
  }

  /** Counts credited entries that were released from their hold (already marked available). */
  async released(entries: readonly RewardEntryRow[]): Promise<void> {
    for (const e of entries) {
      await this.state(e.participant_id);
      this.#emails.released(e.participant_id, e.amount, entries[0]!.id, unlockedKey(e.participant_id, e.referee_id));
      this.#available(e.participant_id, e.reward_kind, e.amount, e.referee_id, e.label);
      const pool = this.#codes.poolFor(e.kind);
      if (pool) this.#wantCodes.push({ entry: e, kind: pool, released: true });
    }
  }

  /**
   * A credit became available: what the participant owes is netted from it first; the rest is theirs
   * (and is paid into Stripe, when the campaign does).
   */
  #available(participantId: number, kind: RewardKind, amount: number, refereeId: number | null, label: string): void {
    const s = this.states.get(participantId)!;
    const move = this.#move(participantId);
    const net = Math.min(s[OWED[kind]], Math.max(0, amount));
    if (net > 0) {
      this.#entries.push(this.#reversalEntry(participantId, kind, net, NETTED_LABEL, null, null));
      s[OWED[kind]] -= net;
      move[MOVE_OWED[kind]] = (move[MOVE_OWED[kind]] ?? 0) - net;
    }
    s[EARNED[kind]] += amount - net;
    move[MOVE_EARNED[kind]] = (move[MOVE_EARNED[kind]] ?? 0) + amount - net;
    this.#payouts.add(participantId, kind, amount - net, label);
    this.event('reward_unlocked', participantId, refereeId);
  }

  /**
   * Takes `amount` back from a participant's available balance: at most the balance (it never goes
   * below zero), the rest owed and netted from their next credits.
   */
  async reverse(participantId: number, kind: RewardKind, amount: number, label: string, refereeId: number | null, paymentId: number | null): Promise<void> {
    const s = await this.state(participantId);
    const balance = Math.max(0, s[EARNED[kind]] - s[REDEEMED[kind]]);
    const take = Math.min(amount, balance);
    const owe = amount - take;
    this.#reversals++;
    const move = this.#move(participantId);
    this.#entries.push(this.#reversalEntry(participantId, kind, take, owe > 0 ? `${label}: ${take} taken back, ${owe} owed` : label, refereeId, paymentId));
    s[EARNED[kind]] -= take;
    move[MOVE_EARNED[kind]] = (move[MOVE_EARNED[kind]] ?? 0) - take;
    s[OWED[kind]] += owe;
    move[MOVE_OWED[kind]] = (move[MOVE_OWED[kind]] ?? 0) + owe;
    if (this.rules.maxReferralReward !== null && kind === 'referral' && this.#earned.has(participantId)) {
      this.#earned.set(participantId, this.#earned.get(participantId)! - take);
    }
    this.event('reward_reversed', participantId);
    this.#emails.reversed(participantId, amount, paymentId !== null ? `payment:${paymentId}` : `referral:${refereeId}`);
  }

  /**
   * Gives back what a reversal took (a dispute won: ./disputes.ts), available at once: the hold and the
   * ceiling applied when it was first credited. Nets what is owed first, as any credit becoming available.
   */
  async restore(participantId: number, kind: RewardKind, amount: number, label: string, refereeId: number | null, paymentId: number | null): Promise<void> {
    await this.state(participantId);
    this.#credits++;
    this.#entries.push({ participant_id: participantId, kind: 'commission', reward_kind: kind, amount, status: 'available', available_on: this.now, label, referee_id: refereeId, payment_id: paymentId, capped: 0, created_on: this.now });
    if (kind === 'referral' && this.#earned.has(participantId)) this.#earned.set(participantId, this.#earned.get(participantId)! + amount);
    this.#available(participantId, kind, amount, refereeId, label);
  }

  #reversalEntry(participantId: number, kind: RewardKind, amount: number, label: string, refereeId: number | null, paymentId: number | null): NewRewardEntry {
    return {
      participant_id: participantId,
      kind: 'reversal',
      reward_kind: kind,
      amount: -amount,
      status: 'available',
      available_on: this.now,
      label,
      referee_id: refereeId,
      payment_id: paymentId,
      capped: 0,
      created_on: this.now,
    };
  }

  /**
   * Cancels pending credits (they never counted); answers the ones cancelled. `remade`: what of a single
   * entry's amount the caller writes again (a refund's part of a pending commission), which its
   * participant is not told was taken back.
   */
  async cancel(entries: readonly RewardEntryRow[], remade = 0): Promise<RewardEntryRow[]> {
    const cancelled = await this.tx.rewardEntries.cancel(entries.map((e) => e.id));
    for (const e of cancelled) {
      this.event('reward_reversed', e.participant_id);
      const cause = e.payment_id !== null ? `payment:${e.payment_id}` : `referral:${e.referee_id}`;
      this.#emails.reversed(e.participant_id, e.amount - (cancelled.length === 1 ? remade : 0), cause);
      if (e.reward_kind === 'referral' && this.#earned.has(e.participant_id)) this.#earned.set(e.participant_id, this.#earned.get(e.participant_id)! - e.amount);
    }
    return cancelled;
  }

  /** Counts a credited referral for its referrer, and credits the milestones it reaches (each once). */
  async countReferral(referrerId: number, refereeId: number): Promise<void> {
    const s = await this.state(referrerId);
    const move = this.#move(referrerId);
    s.credited_referrals += 1;
    move.creditedReferrals = (move.creditedReferrals ?? 0) + 1;
    await moveOnBoards(this.tx, this.campaign, referrerId, this.now, 1);
    this.#emails.movedUp(referrerId);
    await moveForQualified(this.tx, this.campaign, referrerId, 1);
    for (const m of milestonesDue(this.rules, s.milestones_reached, s.credited_referrals)) {
      const credited = await this.credit(referrerId, { kind: 'milestone', rewardKind: 'referral', amount: m.reward, label: `Milestone: ${m.label} (${m.referrals} ${m.referrals === 1 ? 'referral' : 'referrals'})`, refereeId });
      this.#emails.milestone(referrerId, m.label, m.referrals, credited);
      s.milestones_reached = m.referrals;
      move.milestonesReached = m.referrals;
    }
  }

  /** Sets the commission's carried fraction of a referrer. */
  carry(referrerId: number, remainder: number): void {
    this.states.get(referrerId)!.commission_remainder = remainder;
    this.#move(referrerId).commissionRemainder = remainder;
  }

  /**
   * Writes the moves and entries, then the events (their payloads show the participants as the batch
   * left them). True when an event was queued for delivery.
   */
  async commit(): Promise<boolean> {
    await this.#drawCodes();
    await this.tx.rewardEntries.write([...this.#moves.values()], this.#entries, this.now);
    await this.#payouts.commit(this.tx);
    let queued = false;
    for (const [key, [type, id]] of this.#events) {
      const given = type === 'reward_unlocked' ? this.#given.get(key) : undefined;
      const extra = given ? { rewardCode: given[0]!.code, rewardCodes: given } : {};
      if (await emit(this.tx, type, id, this.campaign, this.now, extra)) queued = true;
    }
    if (await this.#codes.settle()) queued = true;
    if (await this.#emails.write((key) => this.#given.get(key)?.[0]?.code)) queued = true;
    const { id } = this.campaign;
    const [credits, reversals] = [this.#credits, this.#reversals];
    if (credits + reversals > 0) report(this.metrics, this.tx, (m) => m.rewards(id, credits, reversals));
    return queued;
  }

  /**
   * Gives each credit becoming available that takes a code one from its pool, or marks it waiting (its
   * pool is empty; a refill serves it). New entries get it before they are written; released ones, already
   * rows, are updated.
   */
  async #drawCodes(): Promise<void> {
    for (const { entry, kind, released } of this.#wantCodes) {
      const code = (await this.#codes.draw(kind)) ?? null;
      if (released) await this.tx.rewardCodes.setEntryCode((entry as RewardEntryRow).id, kind, code);
      else Object.assign(entry, { code_kind: kind, code });
      if (code === null) continue;
      const key = unlockedKey(entry.participant_id, entry.referee_id ?? null);
      const given = this.#given.get(key) ?? [];
      given.push({ code, kind, label: entry.label });
      this.#given.set(key, given);
    }
  }
}
