/**
 * The databases the service suite runs on: SQLite always, PostgreSQL (127.0.0.1:5432, database `test`,
 * or TEST_DATABASE_URL) when reachable. Under CI an unreachable PostgreSQL fails the run, never skips.
 * Each service gets its own fresh schema (PostgreSQL) or file (SQLite), so tests never see each other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres';
  /** Why this kind is skipped here, or undefined when it runs. */
  skip: string | undefined;
  create(): Promise<TestDatabase>;
}

let pgReachable: Promise<string | undefined> | undefined;
async function checkPostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    const why = `PostgreSQL at ${PG_URL} is unreachable: ${(err as Error).message}`;
    if (process.env.CI) throw new Error(`${why} (CI must run the PostgreSQL tests)`);
    return why;
  } finally {
    await client.end().catch(() => {});
  }
}

const sqlite: DatabaseKind = {
  name: 'sqlite',
  skip: undefined,
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-test-'));
    return { url: `sqlite:${join(dir, 'refkit.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

function postgres(skip: string | undefined): DatabaseKind {
  return {
    name: 'postgres',
    skip,
    async create() {
      const schema = `refkit_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return {
        url: url.href,
        async drop() {
          const c = new pg.Client({ connectionString: PG_URL });
          await c.connect();
          await c.query(`drop schema if exists ${schema} cascade`);
          await c.end();
        },
      };
    },
  };
}

/** Both kinds; PostgreSQL carries a skip reason when it cannot be reached outside CI. */
export async function databaseKinds(): Promise<DatabaseKind[]> {
  pgReachable ??= checkPostgres();
  return [sqlite, postgres(await pgReachable)];
}
