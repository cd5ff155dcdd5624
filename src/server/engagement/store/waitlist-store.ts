/**
 * SQL of waitlists. Each entry has seq (its sign-up number in the campaign, 0, 1, 2, ... with no gaps)
 * and wait_key = seq - spotsPerReferral x counted referrals; the queue is the waiting (not granted)
 * entries in (wait_key, seq descending) order, and a position is 1 + the waiting entries before one. At
 * equal keys the later sign-up is ahead: it has the more referrals (equal keys, later seq), and a move of
 * N places must pass all N (the 6th who refers one friend at 2 spots each is 4th, not 5th behind the
 * 4th, whose key it now shares).
 *
 * A position must not count everyone ahead (at a million entries that is a million index entries), and
 * no row may be written by every sign-up but the campaign's counter. Keys are grouped in buckets of
 * WAIT_BUCKET; a bucket's waiting entries would be, had nobody moved or been let in, its sign-up
 * baseline: the seqs in it, clamp(joined - b x WAIT_BUCKET, 0, WAIT_BUCKET), a closed form. Only what
 * differs from the baseline is stored (waitlist_deltas): -1 in the bucket an entry leaves and +1 in the
 * one it enters when a referral moves it across a border (rare: spots / WAIT_BUCKET of moves), -1 when
 * it is let in. So a position of key k in bucket m = floor(k / WAIT_BUCKET) is
 *   1 + clamp(m x WAIT_BUCKET, 0, joined)        (the baselines of the buckets below m)
 *     + sum(deltas of buckets below m)            (one range of a sparse table)
 *     + waiting entries in bucket m before it     (a range of the partial index waitlist_queue, < WAIT_BUCKET)
 * Buckets below 0 (people who referred a lot) have no baseline, only deltas.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import type { Database } from '../../store/tables.js';

/** Keys per bucket: the most index entries a position counts. */
export const WAIT_BUCKET = 1024;

/** The bucket of a key (floor division: negative keys go to negative buckets). */
export const bucketOf = (key: number) => Math.floor(key / WAIT_BUCKET);

export interface WaitStanding {
  /** null once let in. */
  position: number | null;
  /** Entries waiting. */
  of: number;
}

export interface Granted {
  participantId: number;
  key: number;
  seq: number;
}

export class WaitlistStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Adds `delta` to the buckets' counts, ascending, so concurrent writers lock shared rows in one order. */
  async #shift(campaignId: string, moves: Map<number, number>): Promise<void> {
    for (const [bucket, n] of [...moves].sort((a, b) => a[0] - b[0])) {
      if (n === 0) continue;
      await sql`insert into waitlist_deltas (campaign_id, bucket, n) values (${campaignId}, ${bucket}, ${n})
        on conflict (campaign_id, bucket) do update set n = waitlist_deltas.n + ${n}`.execute(this.db);
    }
  }

  /**
   * Puts a new participant at the back of the queue (wait_key = seq). Numbering is one conditional
   * increment of the campaign's counter row: concurrent sign-ups get the seqs of some serial order.
   */
  async join(campaignId: string, participantId: number): Promise<number> {
    const { rows } = await sql<{ joined: number | string }>`insert into waitlists (campaign_id, joined, granted) values (${campaignId}, 1, 0)
      on conflict (campaign_id) do update set joined = waitlists.joined + 1 returning joined`.execute(this.db);
    const seq = Number(rows[0]!.joined) - 1;
    await this.db.insertInto('waitlist_entries').values({ participant_id: participantId, campaign_id: campaignId, seq, wait_key: seq, granted_on: null }).execute();
    return seq;
  }

  /**
   * Moves a waiting entry's key by `by` (negative: toward the front); an entry let in (or none) does not
   * move. One conditional update, whose returned key says where it went.
   */
  async move(campaignId: string, participantId: number, by: number): Promise<void> {
    const row = await this.db
      .updateTable('waitlist_entries')
      .set((eb) => ({ wait_key: eb('wait_key', '+', by) }))
      .where('participant_id', '=', participantId)
      .where('campaign_id', '=', campaignId)
      .where('granted_on', 'is', null)
      .returning('wait_key')
      .executeTakeFirst();
    if (!row) return;
    const to = bucketOf(Number(row.wait_key));
    const from = bucketOf(Number(row.wait_key) - by);
    if (from !== to) await this.#shift(campaignId, new Map([[from, -1], [to, 1]]));
  }

  /** Whether the campaign ever had a waitlist (its counter row exists). */
  async exists(campaignId: string): Promise<boolean> {
    return (await this.db.selectFrom('waitlists').select('campaign_id').where('campaign_id', '=', campaignId).executeTakeFirst()) !== undefined;
  }

  /** How many entries are waiting, and how many were let in. */
  async counts(campaignId: string): Promise<{ waiting: number; granted: number }> {
    const w = await this.db.selectFrom('waitlists').select(['joined', 'granted']).where('campaign_id', '=', campaignId).executeTakeFirst();
    return w ? { waiting: Number(w.joined) - Number(w.granted), granted: Number(w.granted) } : { waiting: 0, granted: 0 };
  }

  /** A participant's place; undefined when they have no entry (they joined before the waitlist began). */
  async standing(campaignId: string, participantId: number): Promise<WaitStanding | undefined> {
    const entry = await this.db
      .selectFrom('waitlist_entries as e')
      .innerJoin('waitlists as w', 'w.campaign_id', 'e.campaign_id')
      .select(['e.seq', 'e.wait_key', 'e.granted_on', 'w.joined', 'w.granted'])
      .where('e.participant_id', '=', participantId)
      .where('e.campaign_id', '=', campaignId)
      .executeTakeFirst();
    if (!entry) return undefined;
    const joined = Number(entry.joined);
    const of = joined - Number(entry.granted);
    if (entry.granted_on !== null) return { position: null, of };
    const key = Number(entry.wait_key);
    const seq = Number(entry.seq);
    const m = bucketOf(key);
    // Both bounds of the key are plain comparisons, so the index range is [bucket start, key]: an upper
    // bound only inside an OR is not one (SQLite then read the index to its end: 100,000 entries at 1M).
    const { rows } = await sql<{ deltas: number | string | null; ahead: number | string }>`select
        (select sum(n) from waitlist_deltas where campaign_id = ${campaignId} and bucket < ${m}) as deltas,
        (select count(*) from waitlist_entries where campaign_id = ${campaignId} and granted_on is null
          and wait_key >= ${m * WAIT_BUCKET} and wait_key <= ${key} and (wait_key < ${key} or seq > ${seq})) as ahead`.execute(this.db);
    const baseline = Math.min(Math.max(m * WAIT_BUCKET, 0), joined);
    return { position: 1 + baseline + Number(rows[0]!.deltas ?? 0) + Number(rows[0]!.ahead), of };
  }

  /**
   * Lets in waiting entries: the first `count` in queue order, or those of `participantIds`. Holds the
   * campaign's counter row first, so grants are serial with each other and with sign-ups; each entry is
   * let in by one conditional update (granted_on is null), so one let in already is not let in again.
   */
  async grant(campaignId: string, who: { count: number } | { participantIds: number[] }, now: number): Promise<Granted[]> {
    if (this.dialect === 'postgres') await sql`select 1 from waitlists where campaign_id = ${campaignId} for update`.execute(this.db);
    const chosen =
      'count' in who
        ? this.db
            .selectFrom('waitlist_entries')
            .select('participant_id')
            .where('campaign_id', '=', campaignId)
            .where('granted_on', 'is', null)
            .orderBy('wait_key')
            .orderBy('seq', 'desc')
            .limit(who.count)
        : who.participantIds;
    if (Array.isArray(chosen) && chosen.length === 0) return [];
    const rows = await this.db
      .updateTable('waitlist_entries')
      .set({ granted_on: now })
      .where('campaign_id', '=', campaignId)
      .where('granted_on', 'is', null)
      .where('participant_id', 'in', chosen)
      .returning(['participant_id', 'wait_key', 'seq'])
      .execute();
    const granted = rows.map((r) => ({ participantId: Number(r.participant_id), key: Number(r.wait_key), seq: Number(r.seq) })).sort((a, b) => a.key - b.key || b.seq - a.seq);
    if (granted.length === 0) return granted;
    const moves = new Map<number, number>();
    for (const g of granted) moves.set(bucketOf(g.key), (moves.get(bucketOf(g.key)) ?? 0) - 1);
    await this.#shift(campaignId, moves);
    await sql`update waitlists set granted = granted + ${granted.length} where campaign_id = ${campaignId}`.execute(this.db);
    return granted;
  }

  /** The first `limit` waiting entries in queue order, with their emails (the owner's view of the queue). */
  async queue(campaignId: string, limit: number): Promise<{ participantId: number; email: string }[]> {
    const rows = await this.db
      .selectFrom('waitlist_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .select(['e.participant_id', 'p.email'])
      .where('e.campaign_id', '=', campaignId)
      .where('e.granted_on', 'is', null)
      .orderBy('e.wait_key')
      .orderBy('e.seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ participantId: Number(r.participant_id), email: r.email }));
  }
}
