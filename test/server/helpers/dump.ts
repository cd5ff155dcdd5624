/** Every row of every table of a service's database, as sorted text: equal dumps mean nothing changed. */
import { sql, type Kysely } from 'kysely';

/**
 * Tables a refused call writes to on purpose, left out of the comparison: a failed dashboard sign-in is
 * counted (the throttle), which is the one write a refusal must make.
 */
const WRITTEN_BY_REFUSALS = new Set(['signin_failures']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The one statement that reads every table as text, each table's rows sorted, built from the database's
 * own list of tables (so tables added by later migrations are compared too). Built once per connection:
 * a test does not change the schema, and the fuzz tests dump the database after every call, thousands of
 * times: one statement the database answers by itself costs a fraction of reading every row into
 * JavaScript (PostgreSQL's information_schema is slow to ask, too).
 */
const statementOf = new WeakMap<AnyDb, Promise<string>>();
async function dumpStatement(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<string> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
    const tables = rows.map((r) => r.name).filter((t) => !WRITTEN_BY_REFUSALS.has(t));
    // A row's text form (t::text) holds every column, whatever its type.
    return tables.map((t) => `select '${t}' as name, (select coalesce(string_agg(r::text, E'\\n' order by r::text), '') from ${quoted(t)} r) as rows`).join('\nunion all ');
  }
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db);
  const tables = rows.map((r) => r.name).filter((t) => !WRITTEN_BY_REFUSALS.has(t));
  const parts = await Promise.all(
    tables.map(async (t) => {
      const columns = (await sql<{ name: string }>`select name from pragma_table_info(${t})`.execute(db)).rows.map((c) => c.name);
      // quote() writes any value as its SQL literal (text, number, blob or NULL alike).
      const row = columns.map((c) => `quote(${quoted(c)})`).join(` || ',' || `);
      return `select '${t}' as name, (select coalesce(group_concat(r, char(10)), '') from (select ${row} as r from ${quoted(t)} order by r)) as rows`;
    }),
  );
  return parts.join('\nunion all ');
}

/** Every table's rows as sorted text, one line a row, by table name. */
export async function dumpTables(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<Map<string, string[]>> {
  let statement = statementOf.get(db);
  if (!statement) statementOf.set(db, (statement = dumpStatement(db, dialect)));
  const { rows } = await sql<{ name: string; rows: string }>`${sql.raw(await statement)}`.execute(db);
  return new Map(rows.map((r) => [r.name, r.rows === '' ? [] : r.rows.split('\n')]));
}

export async function dumpDatabase(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<string> {
  return [...(await dumpTables(db, dialect))].map(([name, rows]) => `${name}\n${rows.join('\n')}`).join('\n\n');
}

/**
 * The rows of a service's database as `dumpDatabase` gives them, dumped again only when something may
 * have written since the last dump: the fuzz tests compare the rows after every one of thousands of
 * calls, and most calls are refused before any statement, so most dumps found what the one before did.
 * The mark that tells is read before each dump, so a write during a dump is seen by the next look.
 * - SQLite: `PRAGMA data_version` on a connection of this helper's own, which changes whenever another
 *   connection (the service's writer) commits;
 * - PostgreSQL: a sequence that a statement-level trigger on every table of the schema advances on any
 *   INSERT, UPDATE, DELETE or TRUNCATE (a sequence is never rolled back: a write that was undone only
 *   costs a dump, never hides one).
 * Sound both ways round: an unchanged mark means no write, and any write changes the mark.
 */
export interface RowsWatch {
  rows(): Promise<string>;
  close(): Promise<void>;
}

export async function watchRows(db: AnyDb, dialect: 'sqlite' | 'postgres', url: string): Promise<RowsWatch> {
  let mark: () => Promise<string>;
  let close = async () => {};
  if (dialect === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const own = new Database(url.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    mark = async () => String(own.pragma('data_version', { simple: true }));
    close = async () => void own.close();
  } else {
    const [{ schema }] = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows as [{ schema: string }];
    const q = quoted(schema);
    await sql.raw(`create sequence if not exists ${q}.refkit_test_writes`).execute(db);
    await sql.raw(`create or replace function ${q}.refkit_test_write() returns trigger language plpgsql as $$ begin perform nextval('${q}.refkit_test_writes'); return null; end $$`).execute(db);
    const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema} and table_type = 'BASE TABLE'`.execute(db);
    for (const { name } of tables) {
      await sql.raw(`create or replace trigger refkit_test_write after insert or update or delete or truncate on ${q}.${quoted(name)} for each statement execute function ${q}.refkit_test_write()`).execute(db);
    }
    mark = async () => {
      const { rows } = await sql.raw<{ last_value: string; is_called: boolean }>(`select last_value, is_called from ${q}.refkit_test_writes`).execute(db);
      return `${rows[0]!.last_value}:${rows[0]!.is_called}`;
    };
  }
  let seen: string | undefined;
  let last = '';
  return {
    async rows() {
      const now = await mark();
      if (now !== seen) {
        last = await dumpDatabase(db, dialect);
        seen = now;
      }
      return last;
    },
    close,
  };
}
