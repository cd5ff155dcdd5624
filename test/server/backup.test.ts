/**
 * `refkit backup --to FILE` of a live SQLite database: taken by its own process while a `refkit serve`
 * process answers a steady sign-up load, the copy passes PRAGMA integrity_check and, restored (a service
 * started on it), has every sign-up answered 200 before the backup began. On PostgreSQL the command
 * refuses and points to pg_dump, the documented way (its restore smoke-tested here).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { RefkitClient } from '../../src/api/client.js';
import { databaseKinds } from './helpers/databases.js';
import { cli, startProcess, NO_RATE_LIMITS } from './helpers/process.js';

const [sqlite, postgres] = await databaseKinds();
const KEY = 'sk_test_0123456789abcdefghijklmnop';
const WRITERS = 4;
/** Sign-ups answered before the backup starts, and after it ends before the load stops. */
const BEFORE = 150;

describe('refkit backup', () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-backup-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it('[sqlite] a live database under sign-up load: the copy is whole, and restored it has every sign-up answered before the backup', { skip: sqlite!.skip }, async () => {
    const db = await sqlite!.create();
    cleanup.push(() => db.drop());
    const env = { DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, ...NO_RATE_LIMITS };
    const live = await startProcess(env);
    cleanup.push(() => live.stop('SIGKILL'));
    const admin = new RefkitClient({ baseUrl: live.url, secretKey: KEY });
    const id = (await admin.createCampaign({ campaignName: 'Backup', hostURL: 'https://backup.example' })).campaignId!;

    const answered: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const email = `w${w}-${n}@example.com`;
        await admin.addParticipant({ id, email });
        answered.push(email);
      }
    };
    const load = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    while (answered.length < BEFORE) await new Promise((r) => setTimeout(r, 10));
    const before = [...answered];
    const copy = join(scratch(), 'copy.db');
    const backup = await cli(['backup', '--to', copy], env);
    stop = true;
    await load;
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^backed up to \S+copy\.db \([\d.]+ MB in \d+ ms\)\n$/);
    assert.deepEqual(readdirSync(join(copy, '..')), ['copy.db'], 'only the copy: no partial file left');

    const copied = new SQLite(copy, { readonly: true });
    let emails: string[];
    try {
      assert.equal(copied.pragma('integrity_check', { simple: true }), 'ok');
      emails = copied.prepare('select email from participants where campaign_id = ?').pluck().all(id) as string[];
    } finally {
      copied.close();
    }
    const present = new Set(emails);
    assert.deepEqual(before.filter((e) => !present.has(e)), [], 'every sign-up answered before the backup is in it');
    const signedUp = new Set(answered);
    assert.deepEqual(emails.filter((e) => !signedUp.has(e)), [], 'and none that was not answered');
    // Restored: a service started on the copy serves what it holds.
    const restored = await startProcess({ ...env, DATABASE_URL: `sqlite:${copy}` });
    cleanup.push(() => restored.stop('SIGKILL'));
    const client = new RefkitClient({ baseUrl: restored.url, secretKey: KEY });
    for (const email of [before[0]!, before.at(-1)!]) assert.equal((await client.getParticipant(id, email)).email, email);
    console.log(`${before.length} sign-ups answered before the backup, ${answered.length - before.length} after it began; the copy has ${emails.length}: ${backup.stdout.trim()}`);
  });

  it('[sqlite] refuses a file that exists (a backup is never overwritten) and a database that does not exist; makes a new folder for it', { skip: sqlite!.skip }, async () => {
    const db = await sqlite!.create();
    cleanup.push(() => db.drop());
    const dir = scratch();
    const first = await cli(['backup', '--to', join(dir, 'backups', 'a.db')], { DATABASE_URL: db.url });
    assert.equal(first.code, 0, first.stderr);
    assert.ok(existsSync(join(dir, 'backups', 'a.db')), 'backed up into the new folder');
    const again = await cli(['backup', '--to', join(dir, 'backups', 'a.db')], { DATABASE_URL: db.url });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /a\.db exists already: a backup goes to a new file/);
    const missing = await cli(['backup', '--to', join(dir, 'b.db')], { DATABASE_URL: `sqlite:${join(dir, 'none.db')}` });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^refkit: there is no database at \S+none\.db to back up: check DATABASE_URL/m);
    assert.equal(existsSync(join(dir, 'none.db')), false, 'no empty database made');
    assert.equal(existsSync(join(dir, 'b.db')), false);
  });

  it('[postgres] refuses and names pg_dump; pg_dump and pg_restore of a live schema bring its rows back', { skip: postgres!.skip }, async () => {
    const db = await postgres!.create();
    cleanup.push(() => db.drop());
    const refused = await cli(['backup', '--to', join(scratch(), 'x')], { DATABASE_URL: db.url });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /back up PostgreSQL with pg_dump/);
    // The smoke test of the documented command: a custom-format dump of the database, restored into a new one.
    const live = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY });
    cleanup.push(() => live.stop('SIGKILL'));
    const admin = new RefkitClient({ baseUrl: live.url, secretKey: KEY });
    const id = (await admin.createCampaign({ campaignName: 'Dump', hostURL: 'https://dump.example' })).campaignId!;
    await admin.addParticipant({ id, email: 'ann@example.com' });
    const url = new URL(db.url);
    const schema = /search_path=(\S+)/.exec(decodeURIComponent(url.searchParams.get('options') ?? ''))![1]!;
    const dump = join(scratch(), 'refkit.dump');
    const base = `${url.protocol}//${url.username}@${url.host}`;
    execFileSync('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, `${base}${url.pathname}`]);
    const target = `refkit_restore_${process.pid}`;
    execFileSync('psql', [`${base}/test`, '-qc', `create database ${target}`]);
    cleanup.push(() => void execFileSync('psql', [`${base}/test`, '-qc', `drop database if exists ${target} with (force)`]));
    execFileSync('pg_restore', ['--no-owner', `--dbname=${base}/${target}`, dump]);
    const restored = await startProcess({ DATABASE_URL: `${base}/${target}?options=${encodeURIComponent(`-c search_path=${schema}`)}`, REFKIT_SECRET_KEY: KEY });
    cleanup.push(() => restored.stop('SIGKILL'));
    assert.equal((await new RefkitClient({ baseUrl: restored.url, secretKey: KEY }).getParticipant(id, 'ann@example.com')).email, 'ann@example.com');
  });
});
