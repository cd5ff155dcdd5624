/** A PostgreSQL database of a benchmark's own (fresh schemas beside the test database), with a client on it. */
import pg from 'pg';
import { driverUrl } from '../src/server/store/transaction-pooling.js';
import type { DatabaseKind, TestDatabase } from '../test/server/helpers/databases.js';

/** Runs `body` on a fresh database of `kind` and a client connected to it; drops the database after. */
export async function onFreshPostgres<T>(kind: DatabaseKind, body: (db: TestDatabase, client: pg.Client) => Promise<T>): Promise<T> {
  const db = await kind.create();
  const client = new pg.Client({ connectionString: driverUrl(db.url) });
  await client.connect();
  try {
    return await body(db, client);
  } finally {
    await client.end();
    await db.drop();
  }
}
