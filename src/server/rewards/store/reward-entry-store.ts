/**
 * SQL of the reward ledger: each participant's append-only entries (credits, reversals, redemptions).
 * Each write here moves a participant's reward counters and appends the entries of that move in the same
 * statement or transaction, so the counters are always the sums ../domain/ledger.ts defines.
 */
import { sql, type Insertable, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Dialect } from '../../store/connect.js';
import type { ListStart } from '../../store/list-start.js';
import { prepare, preparedWrite, builtWrite, runAsOne, type Write } from '../../store/prepared.js';
import type { Database, RewardEntriesTable } from '../../store/tables.js';

export type RewardEntryRow = Selectable<RewardEntriesTable>;
/** An entry as listed: with the email of the referee it came from, if any. */
export type ListedRewardEntry = RewardEntryRow & { referee_email: string | null };
export type NewRewardEntry = Insertable<RewardEntriesTable>;

/** The label of the entries the ledger's migration made from the counters kept before it. */
export const CARRIED_OVER_LABEL = 'Carried over from before the ledger';


/** A participant's entries, each with the email of the referee it came from. */
const entries = (db: Kysely<Database>, participantId: number) =>
  db
    .selectFrom('reward_entries as e')
    .leftJoin('participants as referee', 'referee.id', 'e.referee_id')
    .selectAll('e')
    .select('referee.email as referee_email')
    .where('e.participant_id', '=', participantId);

const pages = {
  first: prepare((db, participantId: number, offset: number, limit: number) =>
    entries(db, participantId)
      .orderBy('e.created_on', 'desc')
      .orderBy('e.id', 'desc')
      .limit(bound(limit))
      .offset(bound(offset)),
  ),
  after: prepare((db, participantId: number, createdOn: number, id: number, limit: number) =>
    entries(db, participantId)
      .where((eb) => eb(eb.refTuple('e.created_on', 'e.id'), '<', eb.tuple(createdOn, id)))
      .orderBy('e.created_on', 'desc')
      .orderBy('e.id', 'desc')
      .limit(bound(limit)),
  ),
};

/**
 * What one credit, reversal or release changes on a participant's row: amounts added to the reward
 * counters (signed), and the commission's carried fraction and highest milestone when they change.
 */
export interface CounterMove {
  participantId: number;
  referralReward?: number;
  refereeReward?: number;
  referralOwed?: number;
  refereeOwed?: number;
  creditedReferrals?: number;
  /** The commission's carried millionths, set (not added). */
  commissionRemainder?: number;
  /** The highest milestone credited, raised to this if lower. */
  milestonesReached?: number;
}

/** Every CounterMove is this one statement, compiled once. */
const moveCounters = prepare(
  (db, id: number, referral: number, referee: number, referralOwed: number, refereeOwed: number, credited: number, remainder: number | null, milestones: number, now: number) =>
    db
      .updateTable('participants')
      .set((eb) => ({
        referral_reward: eb('referral_reward', '+', referral),
        referee_reward: eb('referee_reward', '+', referee),
        referral_reward_owed: eb('referral_reward_owed', '+', referralOwed),
        referee_reward_owed: eb('referee_reward_owed', '+', refereeOwed),
        credited_referrals: eb('credited_referrals', '+', credited),
        // Typed: PostgreSQL cannot tell a bare parameter's type inside coalesce or a comparison.
        commission_remainder: sql<number>`coalesce(cast(${remainder} as bigint), commission_remainder)`,
        milestones_reached: sql<number>`case when cast(${milestones} as integer) > milestones_reached then cast(${milestones} as integer) else milestones_reached end`,
        updated_on: now,
      }))
      .where('id', '=', id),
);

/** Sums of a participant's entries by balance (reward kind) and status, for pending amounts and the ceiling. */
export interface EntrySums {
  pending: { referral: number; referee: number };
  /** What the participant earned as a referrer, pending or available: every credit but cancelled ones, with reversals. */
  referralEarned: number;
}

export class RewardEntryStore {
  /** `inTransaction`: this store runs on a caller's transaction (its writes then commit with the caller's). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly inTransaction: boolean,
  ) {}

  /**
   * Redeems `entry` (a redemption: a negative amount) from its participant's balance only if the balance
   * covers it, and appends it; false (and nothing changed) otherwise. On PostgreSQL one statement: the
   * conditional update a CTE, the entry inserted only for the row it updated. On SQLite the two in one
   * transaction (the caller's, if it is in one).
   */
  async redeem(entry: NewRewardEntry): Promise<boolean> {
    const earned = `${entry.reward_kind}_reward` as const;
    const redeemed = `${entry.reward_kind}_reward_redeemed` as const;
    // What open cash payouts hold (../../payouts/store/cash-payout-store.ts) is not the balance's to redeem.
    const reserved = `${entry.reward_kind}_reward_reserved` as const;
    const amount = -entry.amount;
    const update = (db: QueryCreator<Database>) =>
      db
        .updateTable('participants')
        .set((eb) => ({ [redeemed]: eb(redeemed, '+', amount), updated_on: entry.created_on }))
        .where('id', '=', entry.participant_id)
        .where((eb) => eb(eb(eb(earned, '-', eb.ref(redeemed)), '-', eb.ref(reserved)), '>=', amount));
    if (this.dialect === 'postgres') {
      const columns = Object.keys(entry) as (keyof NewRewardEntry)[];
      const rows = await this.db
        .with('redeemed', (db) => update(db).returning('id'))
        .insertInto('reward_entries')
        .columns(columns)
        .expression((eb) => eb.selectFrom('redeemed').select(columns.map((c) => sql`${entry[c]}`.as(c))))
        .returning('id')
        .execute();
      return rows.length > 0;
    }
    const run = async (db: Kysely<Database>) => {
      if ((await update(db).executeTakeFirst()).numUpdatedRows === 0n) return false;
      await db.insertInto('reward_entries').values(entry).execute();
      return true;
    };
    return this.inTransaction ? run(this.db) : this.db.transaction().execute(run);
  }

  /**
   * Moves participants' counters and appends entries, in the caller's transaction. On PostgreSQL one
   * statement (each write a CTE): a credit costs no more round trips than before the engine had rules.
   */
  async write(moves: readonly CounterMove[], entries: readonly NewRewardEntry[], now: number): Promise<void> {
    const writes: Write[] = moves.map((m) =>
      preparedWrite(
        moveCounters,
        this.db,
        m.participantId,
        m.referralReward ?? 0,
        m.refereeReward ?? 0,
        m.referralOwed ?? 0,
        m.refereeOwed ?? 0,
        m.creditedReferrals ?? 0,
        m.commissionRemainder ?? null,
        m.milestonesReached ?? 0,
        now,
      ),
    );
    // First when fused: the statement answers the rows of its first write, which must return some.
    if (entries.length > 0) writes.unshift(builtWrite(this.db.insertInto('reward_entries').values([...entries]).returning('id')));
    if (this.dialect === 'postgres' && entries.length > 0 && writes.length > 1) {
      await runAsOne(this.db, writes);
      return;
    }
    for (const w of writes) await w.run();
  }

  /** Inserts entries and answers their ids, in order. */
  async insert(entries: readonly NewRewardEntry[]): Promise<number[]> {
    if (entries.length === 0) return [];
    const rows = await this.db.insertInto('reward_entries').values([...entries]).returning('id').execute();
    return rows.map((r) => Number(r.id));
  }

  /** Pending and earned sums of one participant (../domain/reward-credits.ts reads them under the row's lock). */
  async sums(participantId: number): Promise<EntrySums> {
    const rows = await this.db
      .selectFrom('reward_entries')
      .select(['reward_kind', 'status', (eb) => eb.fn.sum<number | string>('amount').as('total')])
      .where('participant_id', '=', participantId)
      .where('kind', '<>', 'redemption')
      .where('status', '<>', 'cancelled')
      .groupBy(['reward_kind', 'status'])
      .execute();
    const sums: EntrySums = { pending: { referral: 0, referee: 0 }, referralEarned: 0 };
    for (const r of rows) {
      const total = Number(r.total);
      if (r.status === 'pending') sums.pending[r.reward_kind] += total;
      if (r.reward_kind === 'referral') sums.referralEarned += total;
    }
    return sums;
  }

  /** A participant's pending credits, soonest available first. */
  pending(participantId: number, limit: number): Promise<RewardEntryRow[]> {
    return this.db
      .selectFrom('reward_entries')
      .selectAll()
      .where('participant_id', '=', participantId)
      .where('status', '=', 'pending')
      .orderBy('available_on')
      .orderBy('id')
      .limit(bound(limit))
      .execute();
  }

  /** The current (not cancelled) entry of `kind` a payment earned, if any. */
  ofPayment(paymentId: number, kind: RewardEntryRow['kind']): Promise<RewardEntryRow | undefined> {
    return this.db
      .selectFrom('reward_entries')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .where('kind', '=', kind)
      .where('status', '<>', 'cancelled')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** The pending entries a referral's credit wrote (both sides' fixed rewards, and milestones it reached). */
  pendingOfReferral(refereeId: number): Promise<RewardEntryRow[]> {
    return this.db.selectFrom('reward_entries').selectAll().where('referee_id', '=', refereeId).where('status', '=', 'pending').where('payment_id', 'is', null).execute();
  }

  /** Cancels pending entries; answers those this call cancelled (another may have released one first). */
  async cancel(ids: readonly number[]): Promise<RewardEntryRow[]> {
    if (ids.length === 0) return [];
    return this.db.updateTable('reward_entries').set({ status: 'cancelled' }).where('id', 'in', [...ids]).where('status', '=', 'pending').returningAll().execute();
  }

  /**
   * Participants with credits due (pending, available_on passed), at most `limit`, the longest due first;
   * of one campaign only when `campaignId` is given (a test campaign, whose `now` is its own).
   */
  async dueParticipants(now: number, limit: number, campaignId?: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('reward_entries')
      .select('participant_id')
      .where('status', '=', 'pending')
      .where('available_on', '<=', now)
      .where('held_by_dispute', 'is', null)
      .$if(campaignId !== undefined, (q) => q.where('participant_id', 'in', (eb) => eb.selectFrom('participants').select('id').where('campaign_id', '=', campaignId!)))
      .orderBy('available_on')
      .limit(bound(limit * 4))
      .execute();
    return [...new Set(rows.map((r) => Number(r.participant_id)))].slice(0, limit);
  }

  /** The earliest time after `after`, up to `until`, that a pending credit of the campaign falls due at, if any. */
  async nextDue(campaignId: string, after: number, until: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('reward_entries')
      .select((eb) => eb.fn.min<number | string>('available_on').as('at'))
      .where('status', '=', 'pending')
      .where('available_on', '>', after)
      .where('available_on', '<=', until)
      .where('held_by_dispute', 'is', null)
      .where('participant_id', 'in', (eb) => eb.selectFrom('participants').select('id').where('campaign_id', '=', campaignId))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Marks a participant's due credits available; answers those this call released. */
  release(participantId: number, now: number): Promise<RewardEntryRow[]> {
    return this.db
      .updateTable('reward_entries')
      .set({ status: 'available' })
      .where('participant_id', '=', participantId)
      .where('status', '=', 'pending')
      .where('available_on', '<=', now)
      .where('held_by_dispute', 'is', null)
      .returningAll()
      .execute();
  }

  /** A campaign's entries summed by balance, kind and status: the program's liability (../domain/liability.ts). */
  campaignSums(campaignId: string): Promise<{ reward_kind: 'referral' | 'referee'; kind: RewardEntryRow['kind']; status: RewardEntryRow['status']; total: number | string }[]> {
    return this.db
      .selectFrom('reward_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .select(['e.reward_kind', 'e.kind', 'e.status', (eb) => eb.fn.sum<number | string>('e.amount').as('total')])
      .where('p.campaign_id', '=', campaignId)
      .groupBy(['e.reward_kind', 'e.kind', 'e.status'])
      .execute();
  }

  /** What a campaign's participants owe back, per balance. */
  async campaignOwed(campaignId: string): Promise<{ referral: number; referee: number }> {
    const r = await this.db
      .selectFrom('participants')
      .select((eb) => [eb.fn.sum<number | string>('referral_reward_owed').as('referral'), eb.fn.sum<number | string>('referee_reward_owed').as('referee')])
      .where('campaign_id', '=', campaignId)
      .where((eb) => eb.or([eb('referral_reward_owed', '>', 0), eb('referee_reward_owed', '>', 0)]))
      .executeTakeFirst();
    return { referral: Number(r?.referral ?? 0), referee: Number(r?.referee ?? 0) };
  }

  /** A campaign's entries in id order after `afterId`, with the participant's and the referee's emails (the CSV export). */
  campaignPage(campaignId: string, afterId: number, limit: number): Promise<(RewardEntryRow & { email: string; referee_email: string | null })[]> {
    return this.db
      .selectFrom('reward_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .leftJoin('participants as referee', 'referee.id', 'e.referee_id')
      .selectAll('e')
      .select(['p.email as email', 'referee.email as referee_email'])
      .where('p.campaign_id', '=', campaignId)
      .where('e.id', '>', afterId)
      .orderBy('e.id')
      .limit(bound(limit))
      .execute();
  }

  /** A participant's entries, newest first. */
  list(participantId: number, start: ListStart, limit: number): Promise<ListedRewardEntry[]> {
    if ('after' in start) return pages.after(this.db, participantId, start.after.createdOn, start.after.id, limit);
    return pages.first(this.db, participantId, start.offset, limit);
  }
}
