/**
 * Writing a batch of impressions (./impression-buffer.ts) in one transaction, in few statements: the
 * per-visitor rows go in as multi-row INSERTs, and each participant's count and each campaign's day
 * counter are added to once per batch. Written a row at a time, a batch of 800 new visitors' impressions
 * took ~30 ms of the event loop on SQLite (three awaited statements for some, one for every row): more
 * than the code checks that produced them.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from './connect.js';
import type { Impression } from './impression-buffer.js';
import { prepare } from './prepared.js';
import { COUNTER_SHARDS, StatsStore } from './stats-store.js';
import type { Database } from './tables.js';

/**
 * Rows per INSERT statement. A chunk is padded to the next of these sizes by repeating its last row (a
 * repeat conflicts with its original and is skipped), so each size is compiled once, and on PostgreSQL
 * prepared once per connection, instead of once per batch length.
 */
const CHUNK_SIZES = [1, 4, 16, 64, 256] as const;
const LARGEST = CHUNK_SIZES[CHUNK_SIZES.length - 1]!;

/** In the table's key order. */
type Row = readonly [day: number, participantId: number, visitor: number];

/** The INSERT of `size` rows, returning the rows it added (not those already there). */
const insertOf = (size: number) =>
  prepare((db, ...v: number[]) =>
    db
      .insertInto('impressions')
      .values(Array.from({ length: size }, (_, i) => ({ day: v[3 * i] as number, participant_id: v[3 * i + 1] as number, visitor: v[3 * i + 2] as number })))
      .onConflict((oc) => oc.doNothing())
      .returning(['participant_id', 'day']),
  );
const inserts = new Map(CHUNK_SIZES.map((size) => [size, insertOf(size)]));

const addToCount = prepare((db, id: number, amount: number) =>
  db
    .updateTable('participants')
    .set((eb) => ({ impression_count: eb('impression_count', '+', amount) }))
    .where('id', '=', id)
    .returning('campaign_id'),
);

/** Inserts the rows, answering those that were not in the table yet. */
async function insertNew(trx: Kysely<Database>, rows: readonly Row[]): Promise<{ participant_id: number; day: number }[]> {
  const added: { participant_id: number; day: number }[] = [];
  for (let start = 0; start < rows.length; start += LARGEST) {
    // SQLite runs on the event loop: other requests run between the chunks of a large batch.
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const chunk = rows.slice(start, start + LARGEST);
    const size = CHUNK_SIZES.find((s) => s >= chunk.length)!;
    const values = Array.from({ length: size }, (_, i) => chunk[Math.min(i, chunk.length - 1)]!).flat();
    added.push(...(await inserts.get(size)!(trx, ...values)));
  }
  return added;
}

/**
 * One transaction for a batch: a row per new (participant, visitor, day), then each participant's count
 * once and each campaign's day counter once. Rows and participants go in key order, the order every
 * writer takes them in, so that on PostgreSQL two batches written at once never deadlock.
 */
export async function writeImpressions(db: Kysely<Database>, dialect: Dialect, batch: readonly Impression[]): Promise<void> {
  const rows = batch
    .map((i): Row => [i.day, i.participantId, i.visitor])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  await db.transaction().execute(async (trx) => {
    const added = await insertNew(trx, rows);
    // Participant id -> day -> impressions added.
    const counted = new Map<number, Map<number, number>>();
    for (const { participant_id: id, day } of added) {
      const days = counted.get(id) ?? new Map<number, number>();
      counted.set(id, days.set(day, (days.get(day) ?? 0) + 1));
    }
    // "campaign id|day" -> impressions added.
    const perCampaignDay = new Map<string, { campaignId: string; day: number; amount: number }>();
    for (const [id, days] of [...counted].sort((a, b) => a[0] - b[0])) {
      const [row] = await addToCount(trx, id, [...days.values()].reduce((a, b) => a + b, 0));
      if (!row) continue;
      for (const [day, amount] of days) {
        const key = `${row.campaign_id}|${day}`;
        const seen = perCampaignDay.get(key);
        perCampaignDay.set(key, { campaignId: row.campaign_id, day, amount: (seen?.amount ?? 0) + amount });
      }
    }
    const stats = new StatsStore(trx, COUNTER_SHARDS[dialect], true);
    const inOrder = [...perCampaignDay.values()].sort((a, b) => (a.campaignId < b.campaignId ? -1 : a.campaignId > b.campaignId ? 1 : a.day - b.day));
    for (const c of inOrder) await stats.addOnDay(c.campaignId, 'impressions', c.amount, c.day);
  });
}
