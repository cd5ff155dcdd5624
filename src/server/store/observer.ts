/**
 * What the database layer tells whoever watches it (the metrics, ../operations/domain/service-metrics.ts): how long
 * each statement ran, how long a unit of work waited for a connection (PostgreSQL's pool) or for the writer
 * (SQLite's group commit), and how many units each SQLite batch committed. None is given unless metrics
 * are on, and then each costs a clock read or two per statement.
 */
export interface DbObserver {
  /** A statement ran, in seconds (from sending it to its rows, for PostgreSQL; the call, for SQLite). */
  query(seconds: number): void;
  /** A unit of work waited this long for a pool connection (PostgreSQL) or the writer (SQLite). */
  poolWait(seconds: number): void;
  /** SQLite's group commit committed one batch of this many units. */
  batch(units: number): void;
}

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
