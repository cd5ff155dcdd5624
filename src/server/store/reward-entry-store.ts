/**
 * SQL of the reward ledger: each participant's append-only entries (credits, reversals, redemptions).
 * Each write here moves a participant's reward counters and appends the entries of that move in the same
 * statement or transaction, so the counters are always the sums ../domain/ledger.ts defines.
 */
import { sql, type Insertable, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import { bound } from './bound-limit.js';
import type { Dialect } from './connect.js';
import type { ListStart } from './list-start.js';
import { prepare } from './prepared.js';
import type { Database, RewardEntriesTable } from './tables.js';

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

export class RewardEntryStore {
  /** `inTransaction`: this store runs on a caller's transaction (its writes then commit with the caller's). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly inTransaction: boolean,
  ) {}

  /**
   * Adds a referral's reward to its referrer's counter and appends the referral's entries (the referee's
   * and the referrer's). On PostgreSQL one statement, the update a CTE of the insert: crediting costs the
   * round trips it cost before the ledger. Called in the transaction that claimed the credit.
   */
  async creditReferrer(referrerId: number, amount: number, now: number, entries: NewRewardEntry[]): Promise<void> {
    const update = (db: QueryCreator<Database>) =>
      db
        .updateTable('participants')
        .set((eb) => ({ referral_reward: eb('referral_reward', '+', amount), updated_on: now }))
        .where('id', '=', referrerId);
    if (this.dialect === 'postgres') {
      await this.db.with('credited', (db) => update(db).returning('id')).insertInto('reward_entries').values(entries).execute();
      return;
    }
    await update(this.db).execute();
    await this.db.insertInto('reward_entries').values(entries).execute();
  }

  /**
   * Redeems `entry` (a redemption: a negative amount) from its participant's balance only if the balance
   * covers it, and appends it; false (and nothing changed) otherwise. On PostgreSQL one statement: the
   * conditional update a CTE, the entry inserted only for the row it updated. On SQLite the two in one
   * transaction (the caller's, if it is in one).
   */
  async redeem(entry: NewRewardEntry): Promise<boolean> {
    const earned = `${entry.reward_kind}_reward` as const;
    const redeemed = `${entry.reward_kind}_reward_redeemed` as const;
    const amount = -entry.amount;
    const update = (db: QueryCreator<Database>) =>
      db
        .updateTable('participants')
        .set((eb) => ({ [redeemed]: eb(redeemed, '+', amount), updated_on: entry.created_on }))
        .where('id', '=', entry.participant_id)
        .where((eb) => eb(eb(earned, '-', eb.ref(redeemed)), '>=', amount));
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

  /** A participant's entries, newest first. */
  list(participantId: number, start: ListStart, limit: number): Promise<ListedRewardEntry[]> {
    if ('after' in start) return pages.after(this.db, participantId, start.after.createdOn, start.after.id, limit);
    return pages.first(this.db, participantId, start.offset, limit);
  }
}
