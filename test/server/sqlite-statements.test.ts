/**
 * SQLite statements are prepared once per SQL text and connection and reused (Kysely alone would prepare
 * every query): the service reads and writes the same as before, prepares each distinct query once on
 * each of its two connections (reads, writes), keeps at most the cache's bound, and never hands out a
 * statement that is still being iterated.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import SQLite from 'better-sqlite3';
import { cachingStatements, connect, openSqlite } from '../../src/server/store/connect.js';
import { migrate } from '../../src/server/store/migrations.js';
import { Store } from '../../src/server/store/store.js';

describe('SQLite prepared statement cache', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    mock.restoreAll();
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  function tempFile(): string {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-statements-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return join(dir, 'refkit.db');
  }

  /** A migrated store with campaign c1, and a record of every statement SQLite prepares from here on. */
  async function storeWithCampaign() {
    const { db, dialect, close } = connect(`sqlite:${tempFile()}`);
    cleanup.push(close);
    await migrate(db, dialect);
    const store = new Store(db, dialect);
    const prepare = mock.method(SQLite.prototype, 'prepare');
    const now = Date.now();
    await store.insertCampaign({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now });
    return { store, prepare, now };
  }

  it('binds LIMIT and OFFSET through a cast, never as a bare parameter, so statements keep their plans', async () => {
    // With a bare `limit ?`, SQLite (STAT4) re-plans the statement at every call: 3x the time of a fraud
    // count, 1.5x that of a page of participants (src/server/store/bound-limit.ts).
    const { store, prepare, now } = await storeWithCampaign();
    const ann = (await store.insertParticipant({ campaign_id: 'c1', email: 'a@example.com', email_key: 'a', code: 'AAAAAAAA', created_on: now, updated_on: now, signup_source: 'api' }))!;
    await store.insertParticipant({ campaign_id: 'c1', email: 'b@example.com', email_key: 'b', code: 'BBBBBBBB', referred_by_id: ann.id, signup_net: '10.0.0.1', created_on: now, updated_on: now, signup_source: 'browser' });

    assert.equal(await store.countRefereesFromNet(ann.id, '10.0.0.1', 2), 1);
    assert.equal(await store.countSignupsFromNet('c1', '10.0.0.1', now - 1000, 5), 1);
    assert.equal((await store.listParticipants({ campaignId: 'c1' }, { offset: 1 }, 20)).length, 1);
    assert.equal((await store.listParticipants({ campaignId: 'c1' }, { after: { createdOn: ann.created_on, id: ann.id } }, 20)).length, 1);
    assert.equal((await store.listParticipants({ campaignId: 'c1', referredById: ann.id }, { offset: 0 }, 20)).length, 1);

    const texts = prepare.mock.calls.map((c) => c.arguments[0] as string);
    const limited = texts.filter((t) => /\blimit\b/i.test(t));
    assert.ok(limited.length >= 4, `the statements above page or cap their rows:\n${texts.join('\n')}`);
    for (const t of limited) {
      assert.doesNotMatch(t, /\b(limit|offset) \?/i, t);
      assert.match(t, /limit cast\(\? as integer\)/i, t);
    }
  });

  it('prepares each query of the store once, and reads and writes as before', async () => {
    const { store, prepare, now } = await storeWithCampaign();
    const row = (email: string, code: string) => ({ campaign_id: 'c1', email, email_key: email, first_name: null, last_name: null, code, referred_by_id: null, referred_by_code: null, created_on: now, updated_on: now, signup_source: 'api' as const, signup_ip: null });

    // Writes report what they changed: the new row, then nothing for a taken email.
    const first = (await store.insertParticipant(row('a@example.com', 'AAAAAAAA')))!.id;
    const second = (await store.insertParticipant(row('b@example.com', 'BBBBBBBB')))!.id;
    assert.equal(typeof first, 'number');
    assert.equal(second, first + 1);
    assert.equal(await store.insertParticipant(row('a@example.com', 'CCCCCCCC')), undefined);
    // Reads return rows (a reader statement), updates their affected counts.
    assert.equal((await store.findParticipantByEmail('c1', 'b@example.com'))?.code, 'BBBBBBBB');
    assert.equal((await store.findParticipantByEmail('c1', 'a@example.com'))?.code, 'AAAAAAAA');
    assert.equal(await store.findParticipantByEmail('c1', 'z@example.com'), undefined);
    assert.equal(await store.completeRewardEvent(first, now), true);
    assert.equal(await store.completeRewardEvent(first, now), false);
    await store.stats.countSignup('c1', false, now);
    await store.stats.countSignup('c1', false, now);
    assert.equal(await store.countParticipants('c1'), 2);

    const texts = prepare.mock.calls.map((c) => c.arguments[0] as string);
    assert.equal(texts.filter((t) => t.startsWith('insert into "participants"')).length, 1);
    assert.equal(texts.filter((t) => t.startsWith('select') && t.includes('"email" = ?')).length, 1);
    assert.equal(texts.filter((t) => t.startsWith('update "participants"')).length, 1);
    // Per connection, each text once (the writer's savepoint statements included).
    const perConnection = new Map<unknown, string[]>();
    for (const c of prepare.mock.calls) perConnection.set(c.this, [...(perConnection.get(c.this) ?? []), c.arguments[0] as string]);
    assert.equal(perConnection.size, 2, 'a read connection and a write connection');
    for (const list of perConnection.values()) assert.equal(new Set(list).size, list.length, `a text was prepared twice: ${list.join('\n')}`);
  });

  it('keeps at most its bound, dropping the least recently used text', () => {
    const raw = openSqlite(tempFile());
    const cached = cachingStatements(raw, 2);
    cleanup.push(() => cached.close());
    const prepare = mock.method(raw, 'prepare');
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    assert.equal(cached.prepare('select 1'), a);
    cached.prepare('select 3'); // evicts "select 2", the least recently used
    assert.equal(cached.prepare('select 1'), a);
    cached.prepare('select 2');
    assert.deepEqual(
      prepare.mock.calls.map((c) => c.arguments[0]),
      ['select 1', 'select 2', 'select 3', 'select 2'],
    );
  });

  it('prepares afresh while the cached statement is still being iterated', () => {
    const raw = openSqlite(tempFile());
    const cached = cachingStatements(raw);
    cleanup.push(() => cached.close());
    const sql = 'select value from json_each(?)';
    const streaming = cached.prepare(sql);
    const rows = streaming.iterate(['[1,2,3]']);
    assert.deepEqual(rows.next().value, { value: 1 });
    const meanwhile = cached.prepare(sql);
    assert.notEqual(meanwhile, streaming);
    assert.deepEqual(meanwhile.all(['[7]']), [{ value: 7 }]);
    assert.deepEqual([...rows], [{ value: 2 }, { value: 3 }]);
    // Once the iteration is over, the cached statement is handed out again.
    assert.equal(cached.prepare(sql), streaming);
  });
});
