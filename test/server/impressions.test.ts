/**
 * Impressions written in batches (src/server/referrals/store/impression-writes.ts): rows go in as multi-row
 * INSERTs padded to a few sizes, and each participant's count and each campaign's day counter are added
 * to once per batch. A batch that spans chunks, participants, campaigns and days, with rows already in
 * the table and repeats inside the batch, must count every new (participant, visitor, day) exactly once.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { connect } from '../../src/server/store/connect.js';
import { writeImpressions } from '../../src/server/referrals/store/impression-writes.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

/** A new campaign with `n` participants: their emails and ids, and today's day number. */
async function campaignOf(s: TestService, n: number) {
  const id = await s.campaign();
  const emails = Array.from({ length: n }, (_, i) => `p${i}@example.com`);
  for (const email of emails) await s.admin.addParticipant({ id, email });
  const ids = await Promise.all(emails.map(async (email) => (await s.ctx.store.findParticipantByEmail(id, email))!.id));
  return { id, emails, ids, day: Math.floor(s.ctx.now() / DAY_MS) };
}

// Through PgBouncer too: impressions are written in batches of their own transactions, beside the requests.
eachDatabase('impression batches', (service) => {
  it('count each new visitor once per participant and day, across chunks, campaigns and days', async () => {
    const s = service();
    const { store } = s.ctx;
    const [first, second] = [await s.campaign(), await s.campaign()];
    const ann = (await s.admin.addParticipant({ id: first, email: 'ann@example.com' })).referralCode!;
    const bob = (await s.admin.addParticipant({ id: first, email: 'bob@example.com' })).referralCode!;
    const cid = (await s.admin.addParticipant({ id: second, email: 'cid@example.com' })).referralCode!;
    const idOf = async (campaignId: string, code: string) => (await store.findParticipantByCode(campaignId, code))!.id;
    const [annId, bobId, cidId] = [await idOf(first, ann), await idOf(first, bob), await idOf(second, cid)];
    const today = Math.floor(s.ctx.now() / DAY_MS);
    const add = (participantId: number, visitor: number, day = today) => store.addImpression({ participantId, visitor, day });

    // Already in the table before the batch (as if another process had written it).
    add(annId, 0);
    await store.flushImpressions();

    // 300 rows for Ann (more than one INSERT of the largest size), visitor 0 again and 1 twice.
    for (let v = 0; v < 299; v++) add(annId, v);
    add(annId, 1);
    add(annId, 1, today + 1);
    // Bob: 5 visitors today, 2 of them again tomorrow; Cid, of the other campaign: one, tomorrow.
    for (let v = 0; v < 5; v++) add(bobId, v);
    add(bobId, 0, today + 1);
    add(bobId, 1, today + 1);
    add(cidId, 0, today + 1);
    await store.flushImpressions();

    const count = async (campaignId: string, email: string) => (await store.findParticipantByEmail(campaignId, email))!.impression_count;
    assert.equal(await count(first, 'ann@example.com'), 300, 'visitors 0-298 today (0 once, though written twice) and 1 tomorrow');
    assert.equal(await count(first, 'bob@example.com'), 7);
    assert.equal(await count(second, 'cid@example.com'), 1);

    const impressionsByDay = async (campaignId: string) =>
      Object.fromEntries((await store.stats.daily(campaignId)).map((d) => [d.day - today, d.impressions]));
    assert.deepEqual(await impressionsByDay(first), { 0: 299 + 5, 1: 1 + 2 });
    // Today's row holds Cid's sign-up.
    assert.deepEqual(await impressionsByDay(second), { 0: 0, 1: 1 });

    const rows = await store.db.selectFrom('impressions').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(rows.n), 299 + 1 + 7 + 1);
  });

  it('count each of 300 participants in one batch (more than one chunk of the count update), and leave the others alone', async () => {
    const s = service();
    const { store } = s.ctx;
    const { id, emails, ids, day } = await campaignOf(s, 302);
    // Participant i gets (i % 3) + 1 visitors; the last two none.
    ids.slice(0, 300).forEach((participantId, i) => {
      for (let v = 0; v <= i % 3; v++) store.addImpression({ participantId, visitor: v, day });
    });
    await store.flushImpressions();
    const counts = await Promise.all(emails.map(async (email) => (await store.findParticipantByEmail(id, email))!.impression_count));
    assert.deepEqual(counts, emails.map((_, i) => (i < 300 ? (i % 3) + 1 : 0)));
    assert.deepEqual((await store.stats.daily(id)).map((d) => d.impressions), [600]);
  });

  it('two processes writing batches of the same participants at once both commit, and every impression counts once', async () => {
    const s = service();
    const { store } = s.ctx;
    const { id, emails, ids, day } = await campaignOf(s, 40);
    // Another process's connection to the same database.
    const other = connect(s.database.url);
    try {
      const { dialect } = other;
      for (let round = 0; round < 10; round++) {
        // Each writer covers every participant, in the opposite order of the other, 3 visitors each.
        const batch = (first: number) => ids.flatMap((participantId) => [0, 1, 2].map((v) => ({ participantId, visitor: first + round * 100 + v, day })));
        const mine = () => writeImpressions(store.db, dialect, batch(0));
        const theirs = () => writeImpressions(other.db, dialect, [...batch(50)].reverse());
        // On PostgreSQL at once, where row locks taken in different orders would deadlock. SQLite has one
        // writer at a time, and in one process the second would wait on the event loop for a lock the
        // first can only release from it (../../src/server/store/group-commit.ts): one after the other.
        if (dialect === 'postgres') await Promise.all([mine(), theirs()]);
        else await mine().then(theirs);
      }
    } finally {
      await other.close();
    }
    const counts = await Promise.all(emails.map(async (email) => (await store.findParticipantByEmail(id, email))!.impression_count));
    assert.deepEqual(counts, emails.map(() => 10 * 2 * 3));
  });

  it('write a batch of one, and count nothing for a visitor already counted', async () => {
    const s = service();
    const { store } = s.ctx;
    const id = await s.campaign();
    const code = (await s.admin.addParticipant({ id, email: 'ann@example.com' })).referralCode!;
    const participantId = (await store.findParticipantByCode(id, code))!.id;
    const day = Math.floor(s.ctx.now() / DAY_MS);
    for (let round = 0; round < 2; round++) {
      store.addImpression({ participantId, visitor: 2 ** 52 - 1, day });
      await store.flushImpressions();
    }
    assert.equal((await store.findParticipantByEmail(id, 'ann@example.com'))!.impression_count, 1);
    assert.deepEqual((await store.stats.daily(id)).map((d) => d.impressions), [1]);
  });
}, { pgbouncer: true });
