/**
 * SQL of leaderboards: per campaign and board ('all', 'month:YYYY-MM'), each ranked participant's score
 * (qualified referrals) and the arrival (`seq`) at that score; ties go to the earlier arrival.
 *
 * The top of a board is the start of the index board_entries_order: a range scan of the rows shown. A
 * participant's own rank must not count everyone ahead of them (at a million participants most are tied
 * at one referral), so two small count tables are kept with the entries, in the same transaction:
 * board_levels (entries per score) and board_blocks (entries per score and block of BOARD_BLOCK
 * consecutive arrivals, and per score and span of BOARD_SPAN arrivals). A rank is then
 *   1 + (entries with a higher score: a sum over the board's distinct scores)
 *     + (entries of the same score in earlier spans: a sum over at most arrivals / BOARD_SPAN rows)
 *     + (... in earlier blocks of the same span: a sum over at most BOARD_SPAN / BOARD_BLOCK rows)
 *     + (... earlier in the same block: a count of at most BOARD_BLOCK index entries).
 * At a million arrivals that is about 15 + 64 rows and 1,024 index entries, where blocks alone summed
 * a thousand rows.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import { prepare } from '../../store/prepared.js';
import type { Database } from '../../store/tables.js';

/** Arrivals per block: the most entries the in-block count of a rank reads. */
export const BOARD_BLOCK = 1024;
/** Arrivals per span (64 blocks): the coarser count, so that a rank sums few rows of either. */
export const BOARD_SPAN = 64 * BOARD_BLOCK;

export interface BoardRow {
  score: number;
  first_name: string | null;
  last_name: string | null;
  email: string;
}

export interface Standing {
  rank: number;
  score: number;
}

/** The hot reads, prepared: on PostgreSQL named statements, parsed and planned once per connection. */
const reads = {
  top: prepare((db, campaignId: string, board: string, limit: number) =>
    db
      .selectFrom('board_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .select(['e.score', 'p.first_name', 'p.last_name', 'p.email'])
      .where('e.campaign_id', '=', campaignId)
      .where('e.board', '=', board)
      .where('p.approval', '=', 1)
      .orderBy('e.score', 'desc')
      .orderBy('e.seq', 'asc')
      .limit(limit),
  ),
  standing: prepare((db, campaignId: string, board: string, participantId: number) =>
    db
      .selectFrom('board_entries as e')
      .select((eb) => {
        const sum = (alias: string) => eb.fn.coalesce(eb.fn.sum<number | string>(sql.ref(`${alias}.n`)), sql.lit(0));
        /** The count rows of the entry's score: of its spans or of its blocks, as the caller narrows them. */
        const ofScore = () =>
          eb
            .selectFrom('board_blocks as b')
            .select(sum('b').as('n'))
            .whereRef('b.campaign_id', '=', 'e.campaign_id')
            .whereRef('b.board', '=', 'e.board')
            .whereRef('b.score', '=', 'e.score');
        const span = (size: number) => sql<number>`e.seq / ${sql.lit(size)}`;
        return [
          'e.score',
          eb.selectFrom('board_levels as l').select(sum('l').as('n')).whereRef('l.campaign_id', '=', 'e.campaign_id').whereRef('l.board', '=', 'e.board').whereRef('l.score', '>', 'e.score').as('above'),
          ofScore().where('b.span', '=', sql.lit(BOARD_SPAN)).where('b.block', '<', span(BOARD_SPAN)).as('spans'),
          ofScore()
            .where('b.span', '=', sql.lit(BOARD_BLOCK))
            .where('b.block', '>=', sql<number>`(e.seq / ${sql.lit(BOARD_SPAN)}) * ${sql.lit(BOARD_SPAN / BOARD_BLOCK)}`)
            .where('b.block', '<', span(BOARD_BLOCK))
            .as('blocks'),
          eb
            .selectFrom('board_entries as o')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .whereRef('o.campaign_id', '=', 'e.campaign_id')
            .whereRef('o.board', '=', 'e.board')
            .whereRef('o.score', '=', 'e.score')
            .where('o.seq', '>=', sql<number>`(e.seq / ${sql.lit(BOARD_BLOCK)}) * ${sql.lit(BOARD_BLOCK)}`)
            .whereRef('o.seq', '<', 'e.seq')
            .as('ahead'),
        ];
      })
      .where('e.campaign_id', '=', campaignId)
      .where('e.board', '=', board)
      .where('e.participant_id', '=', participantId),
  ),
};

export class LeaderboardStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** The next arrival number (the sequence is not rolled back with a transaction; gaps are harmless). */
  async #nextSeq(): Promise<number> {
    const { rows } =
      this.dialect === 'postgres'
        ? await sql<{ n: string }>`select nextval('board_seq') as n`.execute(this.db)
        : await sql<{ n: number }>`update board_seq set n = n + 1 returning n`.execute(this.db);
    return Number(rows[0]!.n);
  }

  /** Adds `delta` to the counts of a score, and of the score in the span and the block of `seq`; made at 0 if absent. */
  async #count(campaignId: string, board: string, score: number, seq: number, delta: number): Promise<void> {
    await sql`insert into board_levels (campaign_id, board, score, n) values (${campaignId}, ${board}, ${score}, ${delta})
      on conflict (campaign_id, board, score) do update set n = board_levels.n + ${delta}`.execute(this.db);
    for (const span of [BOARD_SPAN, BOARD_BLOCK]) {
      await sql`insert into board_blocks (campaign_id, board, score, span, block, n) values (${campaignId}, ${board}, ${score}, ${span}, ${Math.floor(seq / span)}, ${delta})
        on conflict (campaign_id, board, score, span, block) do update set n = board_blocks.n + ${delta}`.execute(this.db);
    }
  }

  /**
   * Moves a participant's score on one board by `delta` (+1: a referral credited, -1: one undone); the
   * entry arrives anew at its new score. Called under the participant's row lock (the credit's), so no
   * other transaction moves the same entry between its read and its writes. A -1 on a board the
   * participant is not on changes nothing.
   */
  async move(campaignId: string, board: string, participantId: number, delta: 1 | -1): Promise<void> {
    const old = await this.db
      .selectFrom('board_entries')
      .select(['score', 'seq'])
      .where('campaign_id', '=', campaignId)
      .where('board', '=', board)
      .where('participant_id', '=', participantId)
      .executeTakeFirst();
    if (!old && delta < 0) return;
    const score = (old ? Number(old.score) : 0) + delta;
    const seq = await this.#nextSeq();
    const where = { campaign_id: campaignId, board };
    if (!old) await this.db.insertInto('board_entries').values({ ...where, participant_id: participantId, score, seq }).execute();
    else if (score > 0) await this.db.updateTable('board_entries').set({ score, seq }).where('campaign_id', '=', campaignId).where('board', '=', board).where('participant_id', '=', participantId).execute();
    else await this.db.deleteFrom('board_entries').where('campaign_id', '=', campaignId).where('board', '=', board).where('participant_id', '=', participantId).execute();
    // The count rows in ascending score, whichever way the entry moves: concurrent moves on PostgreSQL
    // lock shared rows in one order, and queue rather than deadlock.
    const counts: [score: number, seq: number, delta: number][] = [];
    if (old) counts.push([Number(old.score), Number(old.seq), -1]);
    if (score > 0) counts.push([score, seq, 1]);
    counts.sort((a, b) => a[0] - b[0]);
    for (const [s, b, d] of counts) await this.#count(campaignId, board, s, b, d);
  }

  /** The first `limit` entries of a board among approved participants, best first. */
  async top(campaignId: string, board: string, limit: number): Promise<BoardRow[]> {
    const rows = await reads.top(this.db, campaignId, board, limit);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }

  /** A participant's rank and score on a board; undefined when they are not on it. */
  async standing(campaignId: string, board: string, participantId: number): Promise<Standing | undefined> {
    const [r] = await reads.standing(this.db, campaignId, board, participantId);
    if (!r) return undefined;
    return { rank: 1 + Number(r.above) + Number(r.spans) + Number(r.blocks) + Number(r.ahead), score: Number(r.score) };
  }
}
