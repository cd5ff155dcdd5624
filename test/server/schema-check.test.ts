/**
 * `refkit migrate --check` tells a deployment's schema behind, ahead, diverged or up to date by its exit
 * code, changing nothing; a schema ahead of the code (a rolled-back deploy) is served, with a warning;
 * a diverged one is refused by `migrate` and `serve` alike. On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RefkitClient } from '../../src/api/client.js';
import { CHECK_EXIT } from '../../src/server/cli/database-commands.js';
import { connect, sqlitePath } from '../../src/server/store/connect.js';
import { migrationNames } from '../../src/server/store/migrations.js';
import { cli } from './helpers/cli.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { startProcess } from './helpers/process.js';

// Through PgBouncer too: the schema check reads the catalog through the pooler.
const kinds = await databaseKinds({ pgbouncer: true });
const KEY = 'sk_test_0123456789abcdefghijklmnop';
const FUTURE = '9999_from_a_newer_release';

/** Runs one statement on the database (as another release's migrator would). */
async function execute(url: string, statement: ReturnType<typeof sql>): Promise<void> {
  const c = connect(url);
  try {
    await statement.execute(c.db);
  } finally {
    await c.close();
  }
}

for (const kind of kinds) {
  describe(`migrate --check [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    /**
     * A database of its own, migrated unless `empty`. Not kind.create(): those are handed out again with
     * their rows reset but Kysely's bookkeeping, which these tests change, left as it is.
     */
    async function database(empty: boolean): Promise<TestDatabase> {
      const db = await kind.createEmpty();
      cleanup.push(() => db.drop());
      if (!empty) assert.equal((await cli(['migrate'], { DATABASE_URL: db.url })).code, 0);
      return db;
    }
    const check = (db: TestDatabase, ...more: string[]) => cli(['migrate', '--check', ...more], { DATABASE_URL: db.url });

    it('behind on a new database: every migration named, exit 3, nothing made; after migrate, up to date: exit 0', async () => {
      const db = await database(true);
      const names = migrationNames(kind.dialect);
      const behind = await check(db);
      assert.equal(behind.code, CHECK_EXIT.behind, behind.stderr);
      assert.equal(behind.stdout, `behind: ${names.length} migrations to run (${names.join(', ')}); run refkit migrate\n`);
      if (kind.dialect === 'sqlite') assert.equal(existsSync(sqlitePath(db.url)), false, 'checking made no database file');
      else assert.equal((await check(db, '--json')).code, CHECK_EXIT.behind, 'and still behind: the check migrated nothing');
      const migrated = await cli(['migrate'], { DATABASE_URL: db.url });
      assert.deepEqual([migrated.code, migrated.stdout], [0, 'database is up to date\n']);
      const current = await check(db);
      assert.deepEqual([current.code, current.stdout], [0, 'up to date: the database has run every migration of this release, and no other\n']);
      assert.deepEqual(JSON.parse((await check(db, '--json')).stdout), { state: 'current', pending: [], unknown: [] });
    });

    it('one migration behind: names it', async () => {
      const db = await database(false);
      const newest = migrationNames(kind.dialect).at(-1)!;
      await execute(db.url, sql`delete from kysely_migration where name = ${newest}`);
      const behind = await check(db, '--json');
      assert.equal(behind.code, CHECK_EXIT.behind);
      assert.deepEqual(JSON.parse(behind.stdout), { state: 'behind', pending: [newest], unknown: [] });
    });

    it('ahead (a newer release migrated it): exit 4 naming the migration; migrate runs nothing; serve serves, and warns', async () => {
      const db = await database(false);
      await execute(db.url, sql`insert into kysely_migration (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`);
      const ahead = await check(db);
      assert.equal(ahead.code, CHECK_EXIT.ahead);
      assert.match(ahead.stdout, new RegExp(`^ahead: the database has 1 migration this release does not know \\(${FUTURE}\\): this code is older than the schema`));
      const migrated = await cli(['migrate'], { DATABASE_URL: db.url });
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.match(migrated.stdout, /^nothing to run; the database has 1 migration this release does not know/);
      const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, LOG_LEVEL: 'info' });
      cleanup.push(() => p.stop('SIGKILL'));
      const admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
      const id = (await admin.createCampaign({ campaignName: 'Rolled back', hostURL: 'https://rb.example' })).campaignId!;
      assert.ok((await admin.addParticipant({ id, email: 'ann@example.com' })).referralCode);
      assert.match(p.output(), /"unknownMigrations":\["9999_from_a_newer_release"\].*this code is older than the schema/);
      assert.equal(await p.stop('SIGTERM'), 0);
    });

    it('diverged (ahead and behind at once): exit 5; migrate and serve refuse it, changing nothing', async () => {
      const db = await database(false);
      const newest = migrationNames(kind.dialect).at(-1)!;
      await execute(db.url, sql`insert into kysely_migration (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`);
      await execute(db.url, sql`delete from kysely_migration where name = ${newest}`);
      const diverged = await check(db);
      assert.equal(diverged.code, CHECK_EXIT.diverged);
      assert.match(diverged.stdout, new RegExp(`^diverged: 1 migration to run \\(${newest}\\) and the database has 1 migration this release does not know \\(${FUTURE}\\)`));
      const migrated = await cli(['migrate'], { DATABASE_URL: db.url });
      assert.equal(migrated.code, 1);
      assert.match(migrated.stderr, /^Database: .*\nrefkit: diverged: /);
      await assert.rejects(startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY }), /does not know \(9999_from_a_newer_release\) and lacks ones it needs/);
      assert.deepEqual(JSON.parse((await check(db, '--json')).stdout), { state: 'diverged', pending: [newest], unknown: [FUTURE] });
    });

    it('a database that cannot be read exits 1, not as up to date', async () => {
      const url = kind.dialect === 'sqlite' ? 'sqlite:/proc/no-such-dir/refkit.db' : 'postgres://127.0.0.1:1/none';
      const result = await cli(['migrate', '--check'], { DATABASE_URL: url });
      if (kind.dialect === 'postgres') {
        assert.equal(result.code, 1);
        assert.match(result.stderr, /cannot reach PostgreSQL/);
      } else {
        // A SQLite file that does not exist is a new database: every migration to run.
        assert.equal(result.code, CHECK_EXIT.behind);
      }
    });
  });
}
