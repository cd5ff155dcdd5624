/**
 * SQL of the reward ledger: each participant's append-only entries (credits, reversals, redemptions).
 * Entries are written in the same transaction as the participant counters they move (../domain/rewards.ts),
 * so the counters are always the sums ../domain/ledger.ts defines.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { bound } from './bound-limit.js';
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
  constructor(private readonly db: Kysely<Database>) {}

  /** Appends entries in one statement (in the caller's transaction, beside the counters they move). */
  async append(entries: NewRewardEntry[]): Promise<void> {
    if (entries.length > 0) await this.db.insertInto('reward_entries').values(entries).execute();
  }

  /** A participant's entries, newest first. */
  list(participantId: number, start: ListStart, limit: number): Promise<ListedRewardEntry[]> {
    if ('after' in start) return pages.after(this.db, participantId, start.after.createdOn, start.after.id, limit);
    return pages.first(this.db, participantId, start.offset, limit);
  }
}
