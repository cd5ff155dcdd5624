/**
 * The rows a SQLite statement reads, as plain objects built by one generated constructor per statement.
 *
 * better-sqlite3 builds each row object property by property in C++; for a participant's 29 columns
 * that was most of a page read (about 230 µs of a 20-row page, against 15 µs for the index walk).
 * Reading the row as an array (`raw` mode) and building the object with an object literal costs less
 * than half that, and every row of a statement gets the same hidden class with fast properties, which
 * the code reading them (present.ts, the serializers) is faster on too. Measured, and the numbers are in
 * BENCHMARKS.md (getAllParticipants, getReferrals).
 */
import type SQLite from 'better-sqlite3';

type Build = (values: unknown[]) => Record<string, unknown>;

const builders = new WeakMap<SQLite.Statement, Build>();

/**
 * The constructor of a statement's rows. Column names are written as JSON string literals, so any name
 * is a safe key; `__proto__` is computed, so that it is an own property instead of setting the prototype
 * (better-sqlite3 loses such a column). Like better-sqlite3, a repeated name keeps the last column's value.
 */
function compile(names: string[]): Build {
  const fields = names.map((name, i) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as Build;
}

function builderOf(statement: SQLite.Statement): Build {
  let build = builders.get(statement);
  if (!build) {
    build = compile(statement.columns().map((c) => c.name));
    // From now on this statement answers with arrays; every read of it goes through here.
    statement.raw(true);
    builders.set(statement, build);
  }
  return build;
}

/** All rows of a reading statement (a SELECT, or a write with RETURNING). */
export function allRows(statement: SQLite.Statement, parameters: readonly unknown[]): Record<string, unknown>[] {
  const build = builderOf(statement);
  const values = statement.all(parameters) as unknown[][];
  const rows = new Array<Record<string, unknown>>(values.length);
  for (let i = 0; i < values.length; i++) rows[i] = build(values[i]!);
  return rows;
}

/** The rows of a reading statement one at a time, for streamed queries. */
export function* iterateRows(statement: SQLite.Statement, parameters: readonly unknown[]): Iterable<Record<string, unknown>> {
  const build = builderOf(statement);
  for (const values of statement.iterate(parameters) as Iterable<unknown[]>) yield build(values);
}
