/**
 * LIMIT and OFFSET values as the store writes them: `cast(? as integer)` rather than a bare `?`.
 *
 * SQLite (built with STAT4, as better-sqlite3 is) treats a bare parameter in LIMIT as one its plan may
 * depend on: binding it marks the prepared statement expired, so every call parsed and planned the
 * statement again. Measured on a 20,000-participant database: a fraud count 13-17 µs against 5 µs, a
 * page of 20 participants 138 µs against 89 µs. Wrapped in a cast, the value is the same to SQLite and
 * to PostgreSQL, but no longer a bare parameter to SQLite's planner, and the statement keeps its plan.
 */
import { sql, type RawBuilder } from 'kysely';

export const bound = (n: number): RawBuilder<number> => sql<number>`cast(${n} as integer)`;
