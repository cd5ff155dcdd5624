/**
 * Starting on a database that is already up to date reads Kysely's own table and runs no migrator (which
 * would list the tables of every schema in the database first); a new or older database is migrated.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { Migrator, sql } from 'kysely';
import { connect } from '../../src/server/store/connect.js';
import { migrate } from '../../src/server/store/migrations.js';
import { databaseKinds } from './helpers/databases.js';

const kinds = await databaseKinds();

for (const kind of kinds) {
  describe(`migrate [${kind.name}]`, { skip: kind.skip }, () => {
    it('migrates a new database, skips the migrator once it is up to date, and migrates one a migration behind', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      const runs = mock.method(Migrator.prototype, 'migrateToLatest');
      try {
        await migrate(c.db, c.dialect);
        assert.equal(runs.mock.callCount(), 1, 'a new database is migrated');
        await migrate(c.db, c.dialect);
        assert.equal(runs.mock.callCount(), 1, 'an up-to-date one is left alone');
        // As if the newest migration had not run yet: its row gone, so the migrator runs (and finds its work done).
        const { rows } = await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(c.db);
        await sql`delete from kysely_migration where name = ${rows[0]!.name}`.execute(c.db);
        await assert.rejects(migrate(c.db, c.dialect), /Migration .* failed/, 'the newest migration ran again over its own tables');
        assert.equal(runs.mock.callCount(), 2);
      } finally {
        mock.restoreAll();
        await c.close();
        await db.drop();
      }
    });
  });
}
