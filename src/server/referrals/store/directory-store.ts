/**
 * SQL of the owner's participant table: search by email prefix or code, three orders, the review
 * filters, and row-value keyset paging. Every combination reads an index range (see the migration
 * 0004_owners), so a page costs the same at row 20 and at row 1,000,000.
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { ParticipantFilterName, ParticipantSort } from '../../../api/schemas.js';
import type { Dialect } from '../../store/connect.js';
import type { Database, ParticipantsTable } from '../../store/tables.js';
import { bound } from '../../store/bound-limit.js';
import { countedRow } from '../../store/referral-count-store.js';

// The row type is spelled from tables.ts, not imported from store.ts, which imports this module.
type ParticipantRow = Selectable<ParticipantsTable>;

/** `folded_referrals`: the stored (folded) count the totalReferrals order and its cursors go by. */
export type DirectoryRow = ParticipantRow & { rejected: number; folded_referrals: number };

export interface DirectoryQuery {
  campaignId: string;
  /** An email prefix (lower case): callers order such a search by email, so it reads one index range. */
  emailPrefix?: string;
  sort: ParticipantSort;
  order: 'asc' | 'desc';
  filter: ParticipantFilterName;
  /** The sort value and id of the last row of the previous page. */
  after?: { value: number | string; id: number };
  limit: number;
}

const SORT_COLUMN = { createdOn: 'created_on', email: 'email', totalReferrals: 'total_referrals' } as const;

type Eb = ExpressionBuilder<Database, 'participants'>;

/** Whether the owner has decided on (rejected) the participant of the row. */
const reviewed = (eb: Eb) => eb.exists(eb.selectFrom('participant_reviews').select('participant_id').whereRef('participant_id', '=', 'participants.id'));

/** Escapes the wildcards of LIKE in a prefix. */
const likePrefix = (p: string) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** Above every string that starts with the prefix, in SQLite's binary (UTF-8 byte) order. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

export class DirectoryStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  #prefix(prefix: string) {
    // SQLite compares text byte by byte, so a prefix is a range of the email index; its LIKE ignores case
    // and cannot use that index. PostgreSQL's order depends on the collation: LIKE is right in every one.
    return this.dialect === 'sqlite'
      ? sql<SqlBool>`(participants.email >= ${prefix} and participants.email < ${prefix + MAX_CHAR})`
      : sql<SqlBool>`participants.email like ${likePrefix(prefix)} escape '\\'`;
  }

  async search(q: DirectoryQuery): Promise<DirectoryRow[]> {
    const column = SORT_COLUMN[q.sort];
    const cmp = q.order === 'asc' ? '>' : '<';
    let query = this.db
      .selectFrom('participants')
      .select(countedRow('participants'))
      .select('participants.total_referrals as folded_referrals')
      .select((eb) =>
        eb
          .case()
          .when(reviewed(eb))
          .then(1)
          .else(0)
          .end()
          .as('rejected'),
      )
      .where('participants.campaign_id', '=', q.campaignId);
    if (q.emailPrefix !== undefined) query = query.where(this.#prefix(q.emailPrefix));
    if (q.filter !== 'all') {
      query = query.where('participants.approval', '=', 0).where((eb) => (q.filter === 'held' ? eb.not(reviewed(eb)) : reviewed(eb)));
    }
    if (q.after) {
      const { value, id } = q.after;
      query = query.where((eb) => eb(eb.refTuple(`participants.${column}`, 'participants.id'), cmp, eb.tuple(value as never, id)));
    }
    return query
      .orderBy(`participants.${column}`, q.order)
      .orderBy('participants.id', q.order)
      .limit(bound(q.limit))
      .execute() as Promise<DirectoryRow[]>;
  }

  /**
   * The participants with the most referrals, most first, by the stored count: fold the campaign's
   * counts first (ReferralCountStore.fold). Each row's count is exact as of this read.
   */
  topReferrers(campaignId: string, limit: number): Promise<ParticipantRow[]> {
    return this.db
      .selectFrom('participants')
      .select(countedRow('participants'))
      .where('campaign_id', '=', campaignId)
      .where('total_referrals', '>', 0)
      .orderBy('total_referrals', 'desc')
      .orderBy('id', 'desc')
      .limit(bound(limit))
      .execute();
  }

  /** The size of each campaign's review queue (held, not rejected), in one query; a campaign with none is absent. */
  async countHeld(campaignIds: string[]): Promise<Map<string, number>> {
    if (campaignIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('participants')
      .select((eb) => ['campaign_id', eb.fn.countAll<number | string>().as('n')])
      .where('campaign_id', 'in', campaignIds)
      .where('approval', '=', 0)
      .where((eb) => eb.not(reviewed(eb)))
      .groupBy('campaign_id')
      .execute();
    return new Map(rows.map((r) => [r.campaign_id, Number(r.n)]));
  }

  async isRejected(participantId: number): Promise<boolean> {
    return (await this.db.selectFrom('participant_reviews').select('participant_id').where('participant_id', '=', participantId).executeTakeFirst()) !== undefined;
  }

  /** Records a rejection; a second one changes nothing. */
  async reject(participantId: number, now: number): Promise<void> {
    await this.db
      .insertInto('participant_reviews')
      .values({ participant_id: participantId, decision: 'rejected', decided_on: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
