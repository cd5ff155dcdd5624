/**
 * Queries built and compiled once. Kysely builds a query (a tree of frozen nodes) and compiles it to SQL
 * on every call, which costs more than running a point read on a cached statement. A prepared query is
 * built once with a slot in place of each argument; each call reuses its SQL and puts the arguments in
 * the slots' places among the parameters. Whatever runs it (a database, or a transaction) runs it as
 * Kysely would (same SQL, same parameters).
 */
import { InsertQueryNode, PrimitiveValueListNode, SelectQueryNode, ValueListNode, ValueNode, sql, type Compilable, type CompiledQuery, type Kysely, type OperationNodeSource, type QueryResult } from 'kysely';
import type { Database } from './tables.js';

const SLOT = Symbol('slot');

/**
 * The SQL texts of prepared queries, each with a name: on PostgreSQL they run as named statements
 * (./connect.ts), which each connection parses and plans once instead of on every call. Their number
 * is fixed by the code (one per prepared query and dialect, and per combination runAsOne makes, which
 * for a sign-up varies only with how many endpoints take its event), so the server-side statements stay
 * few.
 */
const names = new Map<string, string>();
export const statementName = (text: string): string | undefined => names.get(text);
const named = (query: CompiledQuery): void => {
  if (!names.has(query.sql)) names.set(query.sql, `refkit_${names.size + 1}`);
};
interface Slot {
  readonly [SLOT]: number;
}
const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && SLOT in v;

type RowOf<Q> = Q extends Compilable<infer R> ? R : never;

/**
 * A database's own way to run a select at once, registered by whoever opened it (./connect.ts: SQLite's
 * read connection). A prepared select on that database (never on one of its transactions, which are
 * other objects) goes straight to it: Kysely's executor would give the same rows, as no plugin is set,
 * through five more awaited calls (about 3 µs of getParticipant's 70-100 in a profile).
 */
type DirectRead = (query: CompiledQuery) => QueryResult<unknown>;
const directReads = new WeakMap<Kysely<Database>, DirectRead>();
export const readDirectly = (db: Kysely<Database>, read: DirectRead): void => void directReads.set(db, read);

/**
 * A database's own way to run several writes as one unit of work without awaiting between them (SQLite's
 * group commit, ./group-commit.ts): `work` runs synchronously with a `write` that runs one statement, all
 * of it or none of it is kept, and the promise resolves with what `work` returned once that is on disk.
 */
export type UnitOfWork = <T>(work: (write: (query: CompiledQuery) => QueryResult<unknown>) => T) => Promise<T>;
const directUnits = new WeakMap<Kysely<Database>, UnitOfWork>();
export const writeUnitsDirectly = (db: Kysely<Database>, unit: UnitOfWork): void => void directUnits.set(db, unit);
/** The database's UnitOfWork, if it has one (never a transaction's, which is another object). */
export const directUnit = (db: Kysely<Database>): UnitOfWork | undefined => directUnits.get(db);

/**
 * A prepared query: called, it runs with these arguments; `build` gives the query itself, to put in a
 * larger statement; `compile` gives the statement with the arguments in place, to run in a UnitOfWork.
 */
export type Prepared<A extends unknown[], Q extends Compilable<unknown>> = ((db: Kysely<Database>, ...args: A) => Promise<RowOf<Q>[]>) & {
  build: (db: Kysely<Database>, ...args: A) => Q;
  compile: (db: Kysely<Database>, ...args: A) => CompiledQuery<RowOf<Q>>;
};

/**
 * `build` receives one slot per argument, to use where the value goes (any value position: comparisons,
 * inserted or updated values, limits). It must not branch on them: they are placeholders, not the values.
 */
export function prepare<A extends unknown[], Q extends Compilable<unknown>>(build: (db: Kysely<Database>, ...slots: A) => Q): Prepared<A, Q> {
  type R = RowOf<Q>;
  // One compilation per SQL dialect (a process may use both: the tests do), told apart by its adapter's class.
  const compiled = new Map<unknown, CompiledQuery<R>>();
  let select: boolean | undefined;
  const compile = (db: Kysely<Database>, ...args: A): CompiledQuery<R> => {
    const dialect = db.getExecutor().adapter.constructor;
    let query = compiled.get(dialect);
    if (!query) {
      compiled.set(dialect, (query = build(db, ...(slots(args, 0) as A)).compile() as CompiledQuery<R>));
      named(query);
    }
    return { ...query, parameters: filled(query, args) };
  };
  const run = async (db: Kysely<Database>, ...args: A): Promise<R[]> => {
    const query = compile(db, ...args);
    const direct = directReads.get(db);
    if (direct && (select ??= SelectQueryNode.is(query.query))) return direct(query).rows as R[];
    return (await db.executeQuery<R>(query)).rows;
  };
  return Object.assign(run, { build, compile });
}

/** One slot per argument, numbered from `first`. */
const slots = (args: readonly unknown[], first: number): Slot[] => args.map((_, i) => ({ [SLOT]: first + i }));
/** The parameters of a query compiled with slots, each slot replaced by its argument. */
const filled = (query: CompiledQuery, args: readonly unknown[]): readonly unknown[] => query.parameters.map((p) => (isSlot(p) ? args[p[SLOT]] : p));

/** A write: run alone, or put in one statement with others (runAsOne). */
export interface Write {
  run(): Promise<unknown>;
  /** The statement with its arguments, to run in a UnitOfWork. */
  compile(): CompiledQuery;
  readonly query: OperationNodeSource;
  /** How a prepared write builds its query, and its arguments: what lets runAsOne compile it once. */
  readonly prepared?: { readonly build: (db: Kysely<Database>, ...args: never[]) => OperationNodeSource; readonly args: readonly unknown[] };
}

/** A prepared write with its arguments: run on the statement compiled once. */
export function preparedWrite<A extends unknown[], Q extends Compilable<unknown> & OperationNodeSource>(p: Prepared<A, Q>, db: Kysely<Database>, ...args: A): Write {
  return { run: () => p(db, ...args), compile: () => p.compile(db, ...args), get query() { return p.build(db, ...args); }, prepared: { build: p.build as never, args } };
}

/** A write built by Kysely (the rare ones, not worth preparing). */
export const builtWrite = (q: OperationNodeSource & Compilable<unknown> & { execute(): Promise<unknown> }): Write => ({ run: () => q.execute(), compile: () => q.compile(), query: q });

/** The writes as one statement: each a CTE, in the order given, and the rows of the first. */
const asOne = (queries: OperationNodeSource[]) => sql`with ${sql.join(queries.map((q, i) => sql`${sql.raw(`s${i}`)} as (${q})`))} select * from s0`;

/** Statements of prepared writes run as one, compiled once per combination (their builders in order). */
const combined = new Map<string, CompiledQuery>();
const builderIds = new WeakMap<object, number>();
let builders = 0;
const builderId = (build: object): number => {
  let id = builderIds.get(build);
  if (id === undefined) builderIds.set(build, (id = ++builders));
  return id;
};

/**
 * PostgreSQL only (a data-modifying CTE): runs the writes as one statement, one round trip and one
 * transaction, answering with the rows of the first. When every write is prepared, the statement is
 * built and compiled once per combination of writes and runs as a named statement, so that PostgreSQL
 * parses and plans it once per connection; the combinations are few (fixed by the code). A write built
 * for the call (e.g. a delivery per endpoint, whose number varies) makes the statement one-off.
 */
export async function runAsOne<R>(db: Kysely<Database>, writes: readonly Write[]): Promise<R[]> {
  const prepared = writes.map((w) => w.prepared);
  if (!prepared.every((p) => p !== undefined)) return (await asOne(writes.map((w) => w.query)).execute(db)).rows as R[];
  const key = prepared.map((p) => builderId(p.build)).join(',');
  let statement = combined.get(key);
  if (!statement) {
    let first = 0;
    const queries = prepared.map((p) => {
      const query = p.build(db, ...(slots(p.args, first) as never[]));
      first += p.args.length;
      return query;
    });
    combined.set(key, (statement = asOne(queries).compile(db)));
    named(statement);
  }
  return (await db.executeQuery<R>({ ...statement, parameters: filled(statement, prepared.flatMap((p) => p.args)) } as CompiledQuery<R>)).rows;
}

/** A one-row INSERT's table, its columns, and the value of each: what insertedRow answers. */
export interface InsertedRow {
  readonly table: string;
  readonly columns: readonly string[];
  readonly values: readonly unknown[];
}

/** Where each inserted value of a prepared INSERT comes from: an argument (its index) or the builder's own constant. */
type RowShape = { table: string; columns: string[]; from: ({ arg: number } | { value: unknown })[] };
const rowShapes = new WeakMap<object, RowShape | null>();

const valueSource = (v: unknown): { arg: number } | { value: unknown } | undefined => {
  const inner = typeof v === 'object' && v !== null && ValueNode.is(v as never) ? (v as ValueNode).value : v;
  if (isSlot(inner)) return { arg: inner[SLOT] };
  return typeof inner === 'object' && inner !== null ? undefined : { value: inner };
};

/** The shape of a plain one-row INSERT (no conflict clause, no RETURNING, no CTE), or null for any other statement. */
function rowShapeOf(node: unknown): RowShape | null {
  if (!InsertQueryNode.is(node as never)) return null;
  const q = node as InsertQueryNode;
  const rows = q.values && 'values' in q.values ? (q.values.values as readonly unknown[]) : [];
  if (!q.into || q.into.table.schema || q.onConflict || q.returning || q.with || q.onDuplicateKey || q.replace || !q.columns || rows.length !== 1) return null;
  const [row] = rows;
  if (!PrimitiveValueListNode.is(row as never) && !ValueListNode.is(row as never)) return null;
  const from = (row as PrimitiveValueListNode | ValueListNode).values.map(valueSource);
  if (from.some((f) => f === undefined)) return null;
  return { table: q.into.table.identifier.name, columns: q.columns.map((c) => c.column.name), from: from as RowShape['from'] };
}

/**
 * A prepared write that inserts one row and nothing else, as the row it inserts (what lets several such
 * writes of one table be put in one statement: ../referrals/store/signup-batch.ts); undefined for any other write.
 */
export function insertedRow(db: Kysely<Database>, write: Write): InsertedRow | undefined {
  const p = write.prepared;
  if (!p) return undefined;
  let shape = rowShapes.get(p.build);
  if (shape === undefined) rowShapes.set(p.build, (shape = rowShapeOf(p.build(db, ...(slots(p.args, 0) as never[])).toOperationNode())));
  return shape ? { table: shape.table, columns: shape.columns, values: shape.from.map((f) => ('arg' in f ? p.args[f.arg] : f.value)) } : undefined;
}
