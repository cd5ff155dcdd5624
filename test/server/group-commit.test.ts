/**
 * SQLite group commit (src/server/store/group-commit.ts): the writes of concurrent requests share one
 * transaction and one COMMIT; each is a savepoint that fails alone; reads outside a transaction see only
 * committed batches; closing commits what is open; checkpoints run off the event loop and keep the WAL short.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { Kysely } from 'kysely';
import { Checkpointer } from '../../src/server/store/checkpointer.js';
import { cachingStatements, connect, openSqlite, type Db } from '../../src/server/store/connect.js';
import { GroupCommit, GroupCommitDialect } from '../../src/server/store/group-commit.js';
import type { Database } from '../../src/server/store/tables.js';
import { migrate } from '../../src/server/store/migrations.js';
import { Store, type NewSignup } from '../../src/server/store/store.js';

describe('SQLite group commit', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  async function open(): Promise<{ db: Db; store: Store; url: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-group-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const url = `sqlite:${join(dir, 'refkit.db')}`;
    const db = connect(url);
    cleanup.push(() => db.close());
    await migrate(db.db, db.dialect);
    const store = new Store(db.db, db.dialect);
    const now = Date.now();
    await store.insertCampaign({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now });
    return { db, store, url };
  }
  const person = (email: string) => ({
    campaign_id: 'c1',
    email,
    email_key: email,
    code: email.slice(0, 8).toUpperCase().padEnd(8, 'X'),
    created_on: Date.now(),
    updated_on: Date.now(),
    signup_source: 'api' as const,
  });

  it('an in-memory database (DATABASE_URL=:memory:, nothing to sync) takes write after write', async () => {
    const db = connect(':memory:');
    cleanup.push(() => db.close());
    // Migrating is itself a series of writes: it used to hang after the first (its "sync" ended before it began).
    await migrate(db.db, db.dialect);
    const store = new Store(db.db, db.dialect);
    const now = Date.now();
    await store.insertCampaign({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now });
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) assert.ok(await store.insertParticipant(person(email)));
    assert.equal((await store.findParticipantByEmail('c1', 'c@example.com'))!.email, 'c@example.com');
  });

  it('concurrent transactions share batches; a failing one rolls back alone; the rest commit', async () => {
    const { db, store } = await open();
    const before = { ...db.groupCommit!.stats };
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        store.transaction(async (tx) => {
          await tx.insertParticipant(person(`p${String(i).padStart(2, '0')}@example.com`));
          await tx.stats.countSignup('c1', false, Date.now());
          if (i % 10 === 3) throw new Error(`request ${i} fails`);
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'rejected').length, 4);
    const stats = db.groupCommit!.stats;
    assert.equal(stats.units - before.units, 36, 'each kept unit counted once');
    assert.ok(stats.batches - before.batches < 36, `${stats.batches - before.batches} commits for 36 transactions`);
    assert.ok(stats.largestBatch > 1);
    const emails = (await store.db.selectFrom('participants').select('email').orderBy('email').execute()).map((r) => r.email);
    assert.equal(emails.length, 36);
    assert.ok(!emails.includes('p03@example.com') && !emails.includes('p13@example.com'), 'the failed ones left nothing');
    assert.equal(await store.countParticipants('c1'), 36, 'nor their counter increments');
  });

  it('units of work share batches with no await between their statements; one that throws rolls back alone', async () => {
    const { db, store } = await open();
    const group = db.groupCommit!;
    const insert = (email: string) => store.db.insertInto('participants').values(person(email)).returning('id').compile();
    const before = { ...group.stats };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        group.unit((write) => {
          const [row] = write(insert(`u${String(i).padStart(2, '0')}@example.com`)).rows as { id: number }[];
          // Its own write is visible to its next statement, in the same savepoint.
          write(store.db.updateTable('participants').set({ first_name: `unit ${i}` }).where('id', '=', row!.id).compile());
          if (i % 5 === 2) throw new Error(`unit ${i} fails`);
          return row!.id;
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'rejected').length, 4);
    assert.equal(group.stats.units - before.units, 16, 'each kept unit counted once');
    assert.ok(group.stats.batches - before.batches < 16, `${group.stats.batches - before.batches} commits for 16 units`);
    const rows = await store.db.selectFrom('participants').select(['id', 'email', 'first_name']).orderBy('email').execute();
    assert.equal(rows.length, 16);
    assert.ok(!rows.some((r) => r.email === 'u02@example.com' || r.email === 'u17@example.com'), 'a failed unit left nothing');
    // Each resolved with what its work returned, readable once it resolved (its batch had committed).
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled') assert.equal(rows.find((row) => row.id === r.value)?.first_name, `unit ${i}`);
    }
  });

  it('a sign-up is one unit: if a write after its participant fails, the participant is not kept either', async () => {
    const { store } = await open();
    const now = Date.now();
    const signup = (email: string): NewSignup => ({
      participant: person(email),
      event: {
        row: { id: `msg_${email}`, account_id: 1, campaign_id: 'c1', event_type: 'referrer_added', created_on: now },
        payload: (p) => JSON.stringify({ id: p.id }),
        deliveries: [],
      },
      tokenHash: 'the same token hash',
    });
    const first = await store.insertSignup(signup('first@example.com'));
    assert.ok(first, 'the first sign-up is kept');
    // The browser's token hash is unique: the second sign-up's token insert, its last write, fails.
    const [second, third] = await Promise.allSettled([
      store.insertSignup(signup('second@example.com')),
      store.insertSignup({ ...signup('third@example.com'), tokenHash: 'another hash' }),
    ]);
    assert.match(second.status === 'rejected' ? String(second.reason) : 'kept', /UNIQUE constraint failed: participant_tokens\.hash/);
    // The third resolves once its batch, which the second was in, is committed: it shows what was kept.
    assert.ok(third.status === 'fulfilled' && third.value, 'the writer goes on');
    assert.equal(await store.findParticipantByEmail('c1', 'second@example.com'), undefined, 'its participant was rolled back');
    assert.equal(await store.countParticipants('c1'), 2, 'and its counters');
    const events = await store.db.selectFrom('webhook_events').select('id').orderBy('id').execute();
    assert.deepEqual(events.map((e) => e.id), ['msg_first@example.com', 'msg_third@example.com'], 'and its event');
  });

  it('reads outside a transaction see committed batches only, and a write is readable once it resolves', async () => {
    const { store } = await open();
    let readInside: unknown = 'not read';
    await store.transaction(async (tx) => {
      await tx.insertParticipant(person('open@example.com'));
      // The batch is open: the read connection does not see it, the transaction itself does.
      readInside = await store.findParticipantByEmail('c1', 'open@example.com');
      assert.ok(await tx.findParticipantByEmail('c1', 'open@example.com'));
    });
    assert.equal(readInside, undefined);
    assert.ok(await store.findParticipantByEmail('c1', 'open@example.com'), 'committed before the transaction resolved');
  });

  it('the reads of one turn of the event loop share one snapshot; the next turn sees what another process committed', async () => {
    const { store, url } = await open();
    await store.insertParticipant(person('first@example.com'));
    const other = openSqlite(url.slice('sqlite:'.length));
    cleanup.push(() => other.close());
    const insertElsewhere = (email: string) =>
      other
        .prepare(`insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source) values ('c1', ?, ?, ?, 1, 1, 'api')`)
        .run(email, email, email.slice(0, 8).toUpperCase());
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(await store.findParticipantByEmail('c1', 'first@example.com'));
    insertElsewhere('elsewhere@example.com');
    // Still the turn of the first read: its read transaction, and the snapshot it took, are still open.
    assert.equal(await store.findParticipantByEmail('c1', 'elsewhere@example.com'), undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(await store.findParticipantByEmail('c1', 'elsewhere@example.com'), 'the next turn sees the other commit');
  });

  it('a streamed read yields every row across turns of the event loop, after reads of the same turn', async () => {
    const { store } = await open();
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await store.insertParticipant(person(email));
    await new Promise((resolve) => setImmediate(resolve));
    // This turn's read transaction is open; the stream must not be in it, as it ends with the turn.
    assert.ok(await store.findParticipantByEmail('c1', 'a@example.com'));
    const streamed: string[] = [];
    for await (const row of store.db.selectFrom('participants').select('email').orderBy('email').stream()) {
      streamed.push(row.email);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(streamed, ['a@example.com', 'b@example.com', 'c@example.com']);
    assert.ok(await store.findParticipantByEmail('c1', 'c@example.com'), 'reads go on after the stream');
  });

  it('checkpoints run on a worker thread: under steady writes the WAL is copied into the database and starts over', async () => {
    const { db, store, url } = await open();
    const path = url.slice('sqlite:'.length);
    const stats = db.groupCommit!.stats;
    // About 36 MB of rows, 20 writes at a time: nine times the WAL length at which a catch-up holds the writer.
    const padding = 'x'.repeat(4000);
    // Reads go on meanwhile, each turn's in a read transaction: none may keep the WAL from starting over.
    for (let round = 0; round < 450; round++) {
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => store.insertParticipant({ ...person(`r${round}-${i}@example.com`), first_name: padding })),
        round > 0 ? store.findParticipantByEmail('c1', `r${round - 1}-0@example.com`).then((p) => assert.ok(p)) : undefined,
      ]);
    }
    assert.ok(stats.checkpoints > 0, 'checkpoints ran');
    assert.ok(stats.catchUps > 0, 'the WAL was caught up with the writer held');
    // The WAL header's checkpoint sequence number (bytes 12-15) counts the times the WAL started over. Its
    // file keeps the longest it has been, which depends on how fast this machine writes between two
    // checkpoints (a quarter of a second), so the file's size only shows it never held every write.
    const header = Buffer.alloc(16);
    const fd = openSync(`${path}-wal`, 'r');
    readSync(fd, header, 0, 16, 0);
    closeSync(fd);
    const restarts = header.readUInt32BE(12);
    assert.ok(restarts > 0, `the WAL started over (${restarts} times)`);
    const wal = statSync(`${path}-wal`).size;
    const main = statSync(path).size;
    assert.ok(wal < 36 * 2 ** 20, `the WAL started over instead of holding every write (36 MB): ${(wal / 2 ** 20).toFixed(1)} MB`);
    assert.ok(main > 18 * 2 ** 20, `the rows were copied into the database file: ${(main / 2 ** 20).toFixed(1)} MB`);
    const { n } = await store.db.selectFrom('participants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(n, 9000, 'every write kept');
  });

  it('if the checkpoint worker fails, the writer checkpoints in COMMIT again, as SQLite would, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-group-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'refkit.db');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    cleanup.push(() => process.off('warning', onWarning));
    // A worker that cannot open its file (it must exist) fails at once.
    const group = new GroupCommit(openSqlite(path), openSqlite(path), (c) => cachingStatements(c), new Checkpointer(join(dir, 'missing.db')));
    const db = new Kysely<Database>({ dialect: new GroupCommitDialect(group) });
    cleanup.push(() => db.destroy());
    await migrate(db, 'sqlite');
    const store = new Store(db, 'sqlite');
    const now = Date.now();
    await store.insertCampaign({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now });
    const padding = 'x'.repeat(4000);
    for (let round = 0; round < 150; round++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.insertParticipant({ ...person(`w${round}-${i}@example.com`), first_name: padding })));
    }
    // The warning says why, for the operator: the file and SQLite's own words.
    assert.match(warnings.join('\n'), /checkpoints run in COMMIT again, as their worker thread failed: cannot open \S*missing\.db: unable to open database file/);
    assert.equal(group.stats.checkpoints, 0);
    assert.ok(statSync(path).size > 8 * 2 ** 20, `SQLite's own checkpoints copied the rows into the database file: ${(statSync(path).size / 2 ** 20).toFixed(1)} MB`);
  });
});
