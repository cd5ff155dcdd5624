/**
 * Opens the database named by a `DATABASE_URL`: `sqlite:<path>` (or a bare path, or `:memory:`) for the
 * embedded default, `postgres://...` for PostgreSQL. Everything above this file sees one Kysely<Database>.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { LRUCache } from 'lru-cache';
import { CompiledQuery, Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDatabase } from 'kysely';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// PostgreSQL's bigint (times, ids) arrives as a string by default; ours all fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/**
 * SQLite transactions start with BEGIN IMMEDIATE: a deferred transaction that reads and then writes can
 * fail with SQLITE_BUSY when another process holds the write lock, where IMMEDIATE waits (busy_timeout).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
/**
 * SQLite's DDL is transactional, though Kysely's adapter does not say so (and its SQLite migration lock
 * does nothing). Saying so makes the migrator run in one transaction, which BEGIN IMMEDIATE turns into
 * the lock: processes migrating a new file at once wait for the first, then find nothing left to do.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** Distinct SQL texts kept prepared. The store issues a few dozen; the bound only stops unbounded growth. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SqliteDriver calls `prepare()` for every query it runs, and preparing (parsing and planning
 * the SQL) costs more than running a point read. This gives Kysely back the Statement it had for the
 * same SQL text; better-sqlite3 binds parameters afresh on every run, so a statement is safe to reuse.
 */
export function cachingStatements(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new LRUCache<string, SQLite.Statement>({ max: size });
  return {
    prepare(sql) {
      const cached = cache.get(sql);
      // A statement still being iterated (a streamed query) cannot run again before it finishes.
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (!cached) cache.set(sql, statement);
      return statement;
    },
    close: () => sqlite.close(),
  };
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

/** The file path (or `:memory:`) a `sqlite:` URL names. */
export function sqlitePath(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '');
}

/** Opens a SQLite database with the pragmas the service runs with (the benchmark's baseline uses them too). */
export function openSqlite(path: string): SQLite.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before the client hears of it, even if the machine (not just the process) dies.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** Connections a PostgreSQL pool opens at most, unless the caller asks for another size. */
export const DEFAULT_POOL_SIZE = 10;

export function connect(url: string, options: { poolSize?: number } = {}): Db {
  if (dialectOf(url) === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? DEFAULT_POOL_SIZE });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const sqlite = openSqlite(sqlitePath(url));
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: cachingStatements(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}
