/**
 * PostgreSQL behind a transaction-pooling PgBouncer (`pool_mode = transaction`): each transaction, and
 * each statement outside one, may run on another server session, so nothing may rely on a session
 * outliving a transaction. DATABASE_URL says so with `?pgbouncer=true` (the parameter is taken off
 * before the URL reaches the driver), and then:
 *   - queries run unnamed (./connect.ts): a named statement is parsed on one session and looked for on
 *     whichever one runs the next call ("prepared statement refkit_3 does not exist");
 *   - migrations take their lock inside their transaction (pg_advisory_xact_lock, below): Kysely's
 *     migrator takes a session-level pg_advisory_lock before its transaction and unlocks after, which
 *     through the pooler can lock one session and unlock another, leaving the lock held for good;
 *   - other processes' changes reach the caches by the change counter alone (./caches.ts): LISTEN
 *     would listen on a session the pooler hands to other clients, and hear nothing.
 * The store uses no other session state (no SET, temporary tables, or session advisory locks; its own
 * locks are pg_advisory_xact_lock). The switch is in the URL so that it goes wherever DATABASE_URL goes
 * (every worker and CLI command), and cannot be forgotten on one of them.
 */
import { CompiledQuery, Kysely, PostgresAdapter, PostgresDialect, PostgresDriver, type DatabaseConnection, type PostgresDialectConfig, type TransactionSettings } from 'kysely';

/** The query parameter of DATABASE_URL that says a transaction-pooling PgBouncer is in between. */
export const POOLER_PARAMETER = 'pgbouncer';

/** Whether `url` (a postgres:// DATABASE_URL) says `pgbouncer=true`; any value but true or false is refused. */
export function behindTransactionPooler(url: string): boolean {
  const value = postgresUrl(url).searchParams.get(POOLER_PARAMETER);
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`DATABASE_URL's ${POOLER_PARAMETER}= must be true or false, not "${value}"`);
}

/** The URL as the driver is given it: without our parameter, which PostgreSQL would not know. */
export function driverUrl(url: string): string {
  const parsed = postgresUrl(url);
  if (!parsed.searchParams.has(POOLER_PARAMETER)) return url;
  parsed.searchParams.delete(POOLER_PARAMETER);
  return parsed.href;
}

// WHATWG URL parses the query of any scheme; host and path are left as they are written.
const postgresUrl = (url: string) => new URL(url);

/** Kysely's own migration lock id (postgres-adapter.js), so a direct and a pooled process exclude each other. */
const MIGRATION_LOCK_ID = '3853314791062309107';

/** No session lock: the driver below takes a transaction's instead. */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

/**
 * The migrator runs everything it reads and changes in one transaction (PostgreSQL's DDL is
 * transactional): locking at its start holds the lock until it commits or rolls back, on the one
 * session that ran it, whichever the pooler chose.
 */
class TransactionLockDriver extends PostgresDriver {
  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await super.beginTransaction(connection, settings);
    await connection.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`));
  }
}

class TransactionLockDialect extends PostgresDialect {
  constructor(private readonly config: PostgresDialectConfig) {
    super(config);
  }
  override createDriver() {
    return new TransactionLockDriver(this.config);
  }
  override createAdapter() {
    return new TransactionLockAdapter();
  }
}

/**
 * The database migrations run on, where it is not the one queries run on: a pooled database's is one
 * over the same pool whose transactions lock out other migrations (used for nothing else). Never
 * destroyed: it shares the pool, which the database's own close ends.
 */
const migrationDatabases = new WeakMap<object, object>();
export function migrateWithTransactionLock<D>(db: Kysely<D>, config: PostgresDialectConfig): void {
  migrationDatabases.set(db, new Kysely<D>({ dialect: new TransactionLockDialect(config) }));
}
export const migrationDatabase = <D>(db: Kysely<D>): Kysely<D> => (migrationDatabases.get(db) as Kysely<D> | undefined) ?? db;
