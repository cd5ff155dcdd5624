/** Every row of every table of a service's database, as sorted text: equal dumps mean nothing changed. */
import { sql, type Kysely } from 'kysely';

/**
 * Tables a refused call writes to on purpose, left out of the comparison: a failed dashboard sign-in is
 * counted (the throttle), which is the one write a refusal must make.
 */
const WRITTEN_BY_REFUSALS = new Set(['signin_failures']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function dumpDatabase(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<string> {
  // The tables are listed from the database itself, so tables added by later migrations are compared too.
  const tables =
    dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db)).rows.map((r) => r.name)
      : (
          await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by table_name`.execute(db)
        ).rows.map((r) => r.name);
  const parts: string[] = [];
  for (const table of tables.filter((t) => !WRITTEN_BY_REFUSALS.has(t))) {
    const rows = (await db.selectFrom(table).selectAll().execute()).map((r) => JSON.stringify(r)).sort();
    parts.push(`${table}\n${rows.join('\n')}`);
  }
  return parts.join('\n\n');
}
