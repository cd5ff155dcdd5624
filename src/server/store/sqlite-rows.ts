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

/** A statement's row constructor, and the schema epoch it was made in. */
const shapes = new WeakMap<SQLite.Statement, { build: Build; epoch: number }>();
let epoch = 0;

/**
 * Makes every statement's row constructor again at its next run. Called when the schema may have changed
 * under statements prepared before (another process migrated: ./caches.ts hears of it as of any change
 * to what it caches). A constructor names the columns a statement had when it was made; SQLite prepares
 * a statement again when it runs after a schema change, and the columns may then have moved.
 */
export function forgetRowShapes(): void {
  epoch++;
}

/**
 * Column names are written as JSON string literals, so any name is a safe key; `__proto__` is computed,
 * so that it is an own property instead of setting the prototype (better-sqlite3 loses such a column).
 * Like better-sqlite3, a repeated name keeps the last column's value.
 */
function compile(names: string[]): Build {
  const fields = names.map((name, i) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as Build;
}

/**
 * Call after the statement has run: a statement prepared on a connection whose schema was out of date
 * (one that had read before this process migrated, say) reports the old columns until its first run
 * has prepared it again.
 */
function builderOf(statement: SQLite.Statement): Build {
  let shape = shapes.get(statement);
  if (!shape || shape.epoch !== epoch) {
    shape = { build: compile(statement.columns().map((c) => c.name)), epoch };
    shapes.set(statement, shape);
  }
  return shape.build;
}

/** From now on this statement answers with arrays; every read of it goes through here. */
function rawMode(statement: SQLite.Statement): void {
  if (!shapes.has(statement)) statement.raw(true);
}

/** All rows of a reading statement (a SELECT, or a write with RETURNING). */
export function allRows(statement: SQLite.Statement, parameters: readonly unknown[]): Record<string, unknown>[] {
  rawMode(statement);
  const values = statement.all(parameters) as unknown[][];
  const build = builderOf(statement);
  const rows = new Array<Record<string, unknown>>(values.length);
  for (let i = 0; i < values.length; i++) rows[i] = build(values[i]!);
  return rows;
}

/** The rows of a reading statement one at a time, for streamed queries. */
export function* iterateRows(statement: SQLite.Statement, parameters: readonly unknown[]): Iterable<Record<string, unknown>> {
  rawMode(statement);
  let build: Build | undefined;
  for (const values of statement.iterate(parameters) as Iterable<unknown[]>) yield (build ??= builderOf(statement))(values);
}
