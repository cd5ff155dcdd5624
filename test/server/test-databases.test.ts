/**
 * The suite's own databases (helpers/databases.ts): every test's is at the current schema and holds only
 * what the migrations put there, even when it is one an earlier test used (PostgreSQL schemas are reused).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { connect } from '../../src/server/store/connect.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { dumpDatabase } from './helpers/dump.js';
import { startService } from './helpers/service.js';

// Through PgBouncer too: the test databases of each kind, this one included.
const kinds = await databaseKinds({ pgbouncer: true });

async function dump(db: TestDatabase, dialect: 'sqlite' | 'postgres'): Promise<string> {
  const c = connect(db.url);
  try {
    return await dumpDatabase(c.db, dialect);
  } finally {
    await c.close();
  }
}

for (const kind of kinds) {
  describe(`test databases [${kind.name}]`, { skip: kind.skip }, () => {
    it('a database handed out after a used one was dropped is as new: same rows, same next ids', async () => {
      const first = await kind.create();
      const fresh = await dump(first, kind.dialect);
      assert.match(fresh, /^accounts\n.*\bdefault\b/m, 'migrated: the default account is there');
      // Rows in most tables, including ones the migrations also write (accounts, through the key's account).
      let s = await startService(kind, { database: first });
      const id = await s.campaign();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] });
      const ids = async () => (await s.ctx.store.db.selectFrom('participants').select('id').orderBy('id').execute()).map((r) => r.id);
      const firstIds = await ids();
      assert.notEqual(await dump(first, kind.dialect), fresh);
      await s.close();

      const second = await kind.create();
      // On PostgreSQL the same schema comes back, emptied: the path under test. SQLite copies a file each time.
      if (kind.dialect === 'postgres') assert.equal(second.url, first.url);
      assert.equal(await dump(second, kind.dialect), fresh);
      s = await startService(kind, { database: second });
      try {
        const again = await s.campaign();
        const cat = await s.admin.addParticipant({ id: again, email: 'cat@example.com' });
        await s.admin.addParticipant({ id: again, email: 'dan@example.com', referredByCode: cat.referralCode! });
        assert.deepEqual(await ids(), firstIds, 'sequences start where they did on the new database');
      } finally {
        await s.close();
      }
    });

    it('createEmpty() is not migrated: no tables at all', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        const tables =
          kind.dialect === 'sqlite'
            ? await sql`select name from sqlite_master where type = 'table'`.execute(c.db)
            : await sql`select table_name from information_schema.tables where table_schema = current_schema()`.execute(c.db);
        assert.deepEqual(tables.rows, []);
      } finally {
        await c.close();
        await db.drop();
      }
    });
  });
}
