/**
 * Queries built and compiled once. Kysely builds a query (a tree of frozen nodes) and compiles it to SQL
 * on every call, which costs more than running a point read on a cached statement. A prepared query is
 * built once with a slot in place of each argument; each call reuses its SQL and puts the arguments in
 * the slots' places among the parameters. Whatever runs it (a database, or a transaction) runs it as
 * Kysely would (same SQL, same parameters).
 */
import type { Compilable, CompiledQuery, Kysely, OperationNodeSource } from 'kysely';
import type { Database } from './tables.js';

const SLOT = Symbol('slot');

/**
 * The SQL texts of prepared queries, each with a name: on PostgreSQL they run as named statements
 * (./connect.ts), which each connection parses and plans once instead of on every call. Their number
 * is fixed by the code (one per prepared query and dialect), so the server-side statements stay few.
 */
const names = new Map<string, string>();
export const statementName = (sql: string): string | undefined => names.get(sql);
interface Slot {
  readonly [SLOT]: number;
}
const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && SLOT in v;

type RowOf<Q> = Q extends Compilable<infer R> ? R : never;

/** A prepared query: called, it runs with these arguments; `build` gives the query itself, to put in a larger statement. */
export type Prepared<A extends unknown[], Q extends Compilable<unknown>> = ((db: Kysely<Database>, ...args: A) => Promise<RowOf<Q>[]>) & {
  build: (db: Kysely<Database>, ...args: A) => Q;
};

/**
 * `build` receives one slot per argument, to use where the value goes (any value position: comparisons,
 * inserted or updated values, limits). It must not branch on them: they are placeholders, not the values.
 */
export function prepare<A extends unknown[], Q extends Compilable<unknown>>(build: (db: Kysely<Database>, ...slots: A) => Q): Prepared<A, Q> {
  type R = RowOf<Q>;
  // One compilation per SQL dialect (a process may use both: the tests do), told apart by its adapter's class.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  const run = async (db: Kysely<Database>, ...args: A): Promise<R[]> => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (!query) {
      compiled.set(dialect, (query = build(db, ...(args.map((_, i) => ({ [SLOT]: i })) as A)).compile() as CompiledQuery<R>));
      if (!names.has(query.sql)) names.set(query.sql, `refkit_${names.size + 1}`);
    }
    const parameters = query.parameters.map((p) => (isSlot(p) ? args[p[SLOT]] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
  return Object.assign(run, { build });
}

/** A write: run alone, or its query put in one statement with others (a CTE, PostgreSQL). */
export interface Write {
  run(): Promise<unknown>;
  readonly query: OperationNodeSource;
}

/** A prepared write with its arguments: run on the statement compiled once; built only for a CTE. */
export function preparedWrite<A extends unknown[], Q extends Compilable<unknown> & OperationNodeSource>(p: Prepared<A, Q>, db: Kysely<Database>, ...args: A): Write {
  return { run: () => p(db, ...args), get query() { return p.build(db, ...args); } };
}

/** A write built by Kysely (the rare ones, not worth preparing). */
export const builtWrite = (q: OperationNodeSource & { execute(): Promise<unknown> }): Write => ({ run: () => q.execute(), query: q });
