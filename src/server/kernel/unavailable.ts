/**
 * "The database is away": the one place that tells an outage (PostgreSQL restarting, shutting down, not
 * accepting connections yet, a connection cut under a query, no connection free within the connect
 * timeout; SQLite still locked by another process past its busy timeout) from a fault of ours. The
 * service answers the first 503 `database_unavailable` with Retry-After (../http/error-handler.ts) and
 * its background loops try again at their next tick; the second stays a 500.
 */

/** PostgreSQL's SQLSTATEs of an outage: class 08 (connection exception) and these. */
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set([
  '57P01', // admin_shutdown: the server is stopping (pg_ctl stop/restart -m fast), and ended this session
  '57P02', // crash_shutdown: another backend crashed, the server is resetting
  '57P03', // cannot_connect_now: starting up, shutting down, or in recovery
  '53300', // too_many_connections: the server's max_connections are all taken
]);

/**
 * What node-postgres says when a connection goes away or never comes: it gives these errors no code.
 * "Connection terminated" alone is our own pool closing at shutdown.
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated( unexpectedly| due to connection timeout)?$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

/** Socket failures: an outage when they come from the database's connection (see markDatabaseError). */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Errors the PostgreSQL pool or one of its connections gave (a socket error there is the database's). */
const fromDatabase = new WeakSet<object>();

/** Marks an error as the database connection's own, so that a socket code in it means an outage. */
export function markDatabaseError(err: unknown): unknown {
  if (typeof err === 'object' && err !== null) fromDatabase.add(err);
  return err;
}

interface Failure {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isOutage(err: Failure, database: boolean): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  if (UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  // SQLite: the busy timeout ran out while another process held the write lock.
  if (code.startsWith('SQLITE_BUSY')) return true;
  if (database && SOCKET_CODES.has(code)) return true;
  return typeof err.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(err.message as string));
}

/**
 * True when `err` (or what it wraps: its `cause`, or an AggregateError's `errors`, as a connection tried
 * on several addresses fails) says the database cannot be reached right now.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const failure = err as Failure;
  if (isOutage(failure, fromDatabase.has(err))) return true;
  if (Array.isArray(failure.errors) && failure.errors.some((e) => isDatabaseUnavailable(markedLike(e, err), depth + 1))) return true;
  return failure.cause !== undefined && isDatabaseUnavailable(markedLike(failure.cause, err), depth + 1);
}

/** What an error wraps is the database's when the error is. */
function markedLike(inner: unknown, outer: object): unknown {
  return fromDatabase.has(outer) ? markDatabaseError(inner) : inner;
}
