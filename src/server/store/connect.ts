/**
 * Opens the database named by a `DATABASE_URL`: `sqlite:<path>` (or a bare path, or `:memory:`) for the
 * embedded default, `postgres://...` for PostgreSQL. Everything above this file sees one Kysely<Database>.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { LRUCache } from 'lru-cache';
import { Kysely, PostgresDialect, type PostgresCursor, type PostgresPool, type SqliteDatabase } from 'kysely';
import { Checkpointer } from './checkpointer.js';
import { GroupCommit, GroupCommitDialect, truncatesWal } from './group-commit.js';
import { secondsSince, type DbObserver } from './observer.js';
import { readDirectly, statementName, writeUnitsDirectly } from './prepared.js';
import type { Database } from './tables.js';
import { behindTransactionPooler, driverUrl, migrateWithTransactionLock } from './transaction-pooling.js';
import { markDatabaseError } from '../kernel/unavailable.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The SQLite writer, whose counters tests read. */
  groupCommit?: GroupCommit;
  /** Units of work waiting now for a pool connection (PostgreSQL) or for the writer (SQLite). */
  waiting(): number;
  close(): Promise<void>;
}

let pgModule: typeof pg | undefined;

/**
 * The PostgreSQL driver, loaded by the first PostgreSQL connection: a process on SQLite never needs it,
 * and loading it is a tenth of a process's start-up (every CLI command, every cluster worker).
 */
export function postgresDriver(): typeof pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)('pg') as typeof pg;
  // PostgreSQL's bigint (times, ids) arrives as a string by default; ours all fit in a JS number.
  pgModule.types.setTypeParser(pgModule.types.builtins.INT8, (v) => Number(v));
  pgModule.types.setTypeParser(pgModule.types.builtins.NUMERIC, (v) => Number(v));
  return pgModule;
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

const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * `journal_mode = WAL`, tried again for up to the busy timeout: even with one set, SQLite can answer the
 * switch with SQLITE_BUSY at once, without waiting, when another process is opening the same new file at
 * that moment (seen with three processes started together: 1 run in 8).
 */
function switchToWal(sqlite: SQLite.Database): void {
  const giveUpAt = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > giveUpAt) throw err;
      // Opening is synchronous (better-sqlite3), so is this pause: only ever at start-up.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Opens a SQLite database with the pragmas the service runs with (the benchmark's baseline uses them too). */
export function openSqlite(path: string): SQLite.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // First: switching a new file to WAL takes a lock that another process opening it at the same moment
  // may hold, and without a busy timeout that switch fails at once with "database is locked".
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  switchToWal(sqlite);
  // FULL: a commit is on disk before the client hears of it, even if the machine (not just the process) dies.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Deleted and rewritten content is overwritten with zeros, not left in free space: an erased person's
  // address must not stay readable in the file (../privacy/domain/erasure.ts truncates the WAL as well).
  sqlite.pragma('secure_delete = ON');
  return sqlite;
}

/** Connections a PostgreSQL pool opens at most, unless the caller asks for another size. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * The pool as Kysely sees it, running the prepared queries (./prepared.ts) as named statements: Kysely
 * sends every query unnamed, which PostgreSQL parses and plans on each call. Not `naming`: behind a
 * transaction-pooling PgBouncer (./transaction-pooling.ts), every query runs unnamed.
 */
function namingStatements(pool: pg.Pool, observer: DbObserver | undefined, naming: boolean): PostgresPool {
  return {
    async connect() {
      const asked = observer && performance.now();
      const client = await pool.connect().catch((err: unknown) => {
        throw markDatabaseError(err);
      });
      if (observer) observer.poolWait(secondsSince(asked!));
      const run: RunQuery = observer ? timed(client, observer) : (query, values) => client.query(query as string, values);
      // A migration by another process can change a table under a statement this connection prepared:
      // that statement then fails with "cached plan must not change result type". It runs again unnamed,
      // and the connection is closed on release, so its successor prepares afresh.
      let stale = false;
      return {
        query: ((text: string | PostgresCursor<unknown>, values?: unknown[]) => {
          // A cursor (a streamed read) is not timed, and reports its own errors as it is read: it answers row by row.
          if (typeof text !== 'string') return client.query(text as never, values);
          const name = naming ? statementName(text) : undefined;
          if (!name) return run(text, values).catch(rethrowMarked);
          return run({ name, text, values })
            .catch((err: { code?: string }) => {
              if (err.code === UNDEFINED_PREPARED_STATEMENT) throw pooledSessions(err);
              if (err.code !== FEATURE_NOT_SUPPORTED) throw err;
              stale = true;
              return run(text, values);
            })
            .catch(rethrowMarked);
        }) as never,
        release: () => client.release(stale),
      };
    },
    end: () => pool.end(),
  };
}

const rethrowMarked = (err: unknown): never => {
  throw markDatabaseError(err);
};

type RunQuery = (query: string | pg.QueryConfig, values?: unknown[]) => Promise<pg.QueryResult>;

/** A client's query, telling `observer` how long each statement took to answer. */
function timed(client: pg.PoolClient, observer: DbObserver): RunQuery {
  return async (query, values) => {
    const start = performance.now();
    try {
      return await client.query(query as string, values);
    } finally {
      observer.query(secondsSince(start));
    }
  };
}

/** PostgreSQL's code for "cached plan must not change result type" (among others). */
const FEATURE_NOT_SUPPORTED = '0A000';
/** "prepared statement ... does not exist": this connection prepared it, so another session answered. */
const UNDEFINED_PREPARED_STATEMENT = '26000';

/**
 * A named statement this connection prepared is unknown to the session that got the next call: the
 * connection is pooled per transaction (PgBouncer's pool_mode = transaction), which DATABASE_URL must say.
 */
function pooledSessions(err: { code?: string; message?: string }): Error {
  return Object.assign(
    new Error(`${err.message ?? 'prepared statement does not exist'}: DATABASE_URL reaches PostgreSQL through a transaction-pooling PgBouncer? Add ?pgbouncer=true to it (docs/deployment.md#behind-pgbouncer)`),
    { code: err.code, cause: err },
  );
}

/**
 * How long a query waits for a connection (a free one of the pool, or a new one to the server) before
 * it fails as "database unavailable" (DATABASE_CONNECT_TIMEOUT_MS): the bound on how long a request can
 * wait while PostgreSQL is away or every connection is busy. A query in flight when the server goes away
 * fails as soon as its connection closes.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** TCP keepalive on every connection: a server that vanished without closing it is noticed. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface ConnectOptions {
  poolSize?: number;
  /** Told each statement's time, waits and SQLite's batches (./observer.ts; metrics). */
  observer?: DbObserver;
  /** PostgreSQL: see DEFAULT_CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

/**
 * A PostgreSQL pool that outlives its server's restarts: a connection the server ends while it is idle
 * in the pool, or while a query holds it, emits 'error', and an 'error' nobody listens to ends the
 * process. The pool drops such a connection (idle, or on release), and the query it held has already
 * failed; new connections are made when the server is back.
 */
function postgresPool(url: string, options: ConnectOptions): pg.Pool {
  const pool = new (postgresDriver().Pool)({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  const ignore = () => undefined;
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}

export function connect(url: string, options: ConnectOptions = {}): Db {
  const { observer } = options;
  if (dialectOf(url) === 'postgres') {
    const pooled = behindTransactionPooler(url);
    const pool = postgresPool(driverUrl(url), options);
    const config = { pool: namingStatements(pool, observer, !pooled) };
    const db = new Kysely<Database>({ dialect: new PostgresDialect(config) });
    if (pooled) migrateWithTransactionLock(db, config);
    return { db, dialect: 'postgres', waiting: () => pool.waitingCount, close: () => db.destroy() };
  }
  const path = sqlitePath(url);
  const writer = openSqlite(path);
  // WAL lets this second connection read committed data while the writer's batch is open.
  const reader = path === ':memory:' ? writer : openSqlite(path);
  const group = new GroupCommit(writer, reader, (c) => cachingStatements(c), path === ':memory:' ? undefined : new Checkpointer(path), observer);
  const db = new Kysely<Database>({ dialect: new GroupCommitDialect(group) });
  readDirectly(db, (query) => group.read(query));
  writeUnitsDirectly(db, (work) => group.unit(work));
  truncatesWal(db, () => group.truncateWal());
  return { db, dialect: 'sqlite', groupCommit: group, waiting: () => group.waiting, close: () => db.destroy() };
}
