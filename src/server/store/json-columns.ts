/**
 * A big read's rows as columns of one JSON text, for reads of hundreds of thousands of rows (the offer
 * backtest's, ../rewards/store/backtest-store.ts). The drivers hand over a row's values one at a time: better-sqlite3
 * took about 0.3 µs a value (720,000 payments of 8 columns: 2.2 s, where SQLite itself scanned them in
 * 0.1 s), and node-postgres parses every row of text in JavaScript. One aggregate per column makes the
 * whole answer one value, which JSON.parse reads natively into arrays of numbers (the same payments: 0.7 s
 * with the scan, on the same machine). Memory: the text and its arrays, some tens of MB for a million values.
 */
import { sql, type AliasedSelectQueryBuilder, type Kysely } from 'kysely';
import type { Dialect } from './connect.js';
import type { Database } from './tables.js';

/** A select, any tables: what readColumns reads from. */
export interface Select<Row> {
  as<A extends string>(alias: A): AliasedSelectQueryBuilder<Row, A>;
}

/** Each selected column's values, all in the same order (the query's, when it has one). */
export type Columns<Row> = { [K in keyof Row]: Row[K][] };

/**
 * Runs `query` and answers its rows as columns. Values are as JSON has them: numbers (integers beyond
 * 2^53 lose precision, as Number() of the driver's value would), strings and nulls.
 */
export async function readColumns<Row extends object>(
  db: Kysely<Database>,
  dialect: Dialect,
  query: Select<Row>,
  names: readonly (keyof Row & string)[],
): Promise<Columns<Row>> {
  const agg = dialect === 'postgres' ? 'json_agg' : 'json_group_array';
  const pack = dialect === 'postgres' ? 'json_build_array' : 'json_array';
  const columns = sql.join(names.map((n) => sql`${sql.raw(agg)}(${sql.ref(`q.${n}`)})`));
  // Built as a select (not raw SQL), so that on SQLite it runs on the read connection, not in the writer's batch.
  const row = await db.selectFrom(query.as('q')).select(sql<unknown>`${sql.raw(pack)}(${columns})`.as('c')).executeTakeFirstOrThrow();
  // node-postgres parses json itself; SQLite answers the text. json_agg of no rows is null.
  const parsed = (typeof row.c === 'string' ? JSON.parse(row.c) : row.c) as (unknown[] | null)[];
  return Object.fromEntries(names.map((n, i) => [n, parsed[i] ?? []])) as Columns<Row>;
}
