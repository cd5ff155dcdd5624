/** Every row of every table of a service's database, as sorted text: equal dumps mean nothing changed. */
import { sql, type Kysely } from 'kysely';

/**
 * Tables a refused call writes to on purpose, left out of the comparison: a failed dashboard sign-in is
 * counted (the throttle), which is the one write a refusal must make.
 */
const WRITTEN_BY_REFUSALS = new Set(['signin_failures']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The tables, listed from the database itself, so tables added by later migrations are compared too. Read
 * once per connection: a test does not change the schema, and the fuzz tests dump the database hundreds
 * of times (PostgreSQL's information_schema is slow to ask).
 */
const tablesOf = new WeakMap<AnyDb, Promise<string[]>>();
async function listTables(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by table_name`.execute(db)).rows;
  return rows.map((r) => r.name).filter((t) => !WRITTEN_BY_REFUSALS.has(t));
}

export async function dumpDatabase(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<string> {
  let tables = tablesOf.get(db);
  if (!tables) tablesOf.set(db, (tables = listTables(db, dialect)));
  // All tables at once: on PostgreSQL they are read over several connections of the pool.
  const parts = await Promise.all(
    (await tables).map(async (table) => {
      const rows = (await db.selectFrom(table).selectAll().execute()).map((r) => JSON.stringify(r)).sort();
      return `${table}\n${rows.join('\n')}`;
    }),
  );
  return parts.join('\n\n');
}
