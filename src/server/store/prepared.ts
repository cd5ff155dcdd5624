/**
 * Queries built and compiled once. Kysely builds a query (a tree of frozen nodes) and compiles it to SQL
 * on every call, which costs more than running a point read on a cached statement. A prepared query is
 * built once with a slot in place of each argument; each call reuses its SQL and puts the arguments in
 * the slots' places among the parameters. Whatever runs it (a database, or a transaction) runs it as
 * Kysely would (same SQL, same parameters).
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './tables.js';

const SLOT = Symbol('slot');
interface Slot {
  readonly [SLOT]: number;
}
const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && SLOT in v;

/**
 * `build` receives one slot per argument, to use where the value goes (any value position: comparisons,
 * inserted values, limits). It must not branch on them: they are placeholders, not the values.
 */
export function prepare<A extends unknown[], R>(build: (db: Kysely<Database>, ...slots: A) => Compilable<R>) {
  // One compilation per SQL dialect (a process may use both: the tests do), told apart by its adapter's class.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  return async (db: Kysely<Database>, ...args: A): Promise<R[]> => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (!query) compiled.set(dialect, (query = build(db, ...(args.map((_, i) => ({ [SLOT]: i })) as A)).compile()));
    const parameters = query.parameters.map((p) => (isSlot(p) ? args[p[SLOT]] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
