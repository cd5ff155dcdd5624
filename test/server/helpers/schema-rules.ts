/**
 * The expand/contract rule (docs/architecture.md, "Writing a migration"), checked on schemas as the
 * database reports them: what a release's migrations do to the tables the previous release has must
 * leave that release's code working. Read from the database, not from the migrations' SQL, so that any
 * way of spelling a drop or a rename is caught.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/server/store/tables.js';
import type { Dialect } from '../../../src/server/store/connect.js';

export interface ColumnShape {
  dataType: string;
  isNullable: boolean;
  hasDefaultValue: boolean;
  isAutoIncrementing: boolean;
}
/** Table -> column -> shape. */
export type SchemaShape = Record<string, Record<string, ColumnShape>>;

/** The tables of the connection's own schema (PostgreSQL: not the other tests' schemas), Kysely's own left out. */
export async function schemaShape(db: Kysely<Database>, dialect: Dialect): Promise<SchemaShape> {
  const own = dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s : undefined;
  const tables = (await db.introspection.getTables()).filter((t) => !t.isView && (own === undefined || t.schema === own));
  return Object.fromEntries(
    tables.map((t) => [
      t.name,
      Object.fromEntries(t.columns.map((c) => [c.name, { dataType: c.dataType, isNullable: c.isNullable, hasDefaultValue: c.hasDefaultValue, isAutoIncrementing: c.isAutoIncrementing }])),
    ]),
  );
}

/**
 * What in `after` would break code written for `before`: a table or column gone (dropped, or renamed: a
 * rename is a column gone and another new), a column's type changed, a column that became NOT NULL, and
 * a new NOT NULL column without a default in a table that code inserts into.
 */
export function expandProblems(before: SchemaShape, after: SchemaShape): string[] {
  const problems: string[] = [];
  for (const [table, columns] of Object.entries(before)) {
    const now = after[table];
    if (!now) {
      problems.push(`table ${table} is gone: the previous release uses it`);
      continue;
    }
    for (const [column, was] of Object.entries(columns)) {
      const is = now[column];
      if (!is) problems.push(`column ${table}.${column} is gone (dropped or renamed): the previous release reads it`);
      else if (is.dataType !== was.dataType) problems.push(`column ${table}.${column} changed type from ${was.dataType} to ${is.dataType}`);
      else if (was.isNullable && !is.isNullable) problems.push(`column ${table}.${column} became NOT NULL: the previous release may write null`);
    }
    for (const [column, is] of Object.entries(now)) {
      if (!(column in columns) && !is.isNullable && !is.hasDefaultValue && !is.isAutoIncrementing) {
        problems.push(`new column ${table}.${column} is NOT NULL without a default: the previous release's inserts leave it out`);
      }
    }
  }
  return problems;
}
