/**
 * The databases the service suite runs on: SQLite always, PostgreSQL (127.0.0.1:5432, database `test`,
 * or TEST_DATABASE_URL) when reachable. Under CI an unreachable PostgreSQL fails the run, never skips.
 *
 * Every test gets a database of its own, fresh and at the current schema, without paying for the
 * migrations each time (they are most of a short test's time on PostgreSQL): the schema is migrated once
 * per kind per test file, and then
 *   - SQLite: each database is a copy of that migrated file;
 *   - PostgreSQL: each database is a schema; `drop()` empties it back to what the migrations left (rows and
 *     sequences) and keeps it for the next test. The schemas are in a database of this process's own, made
 *     beside the test database and dropped at the end: the service's migrations list the tables of every
 *     schema of their database (Kysely's introspection), which fails when another process drops a schema
 *     meanwhile, as other test files running at the same time would. That database is a copy (CREATE
 *     DATABASE ... TEMPLATE) of one whose first schema is migrated, made once per version of the migrations
 *     and kept on the server, so most test files migrate nothing at all.
 * `createEmpty()` is for the tests of migration itself: nothing in it, not even the schema.
 *
 * The third kind, `pgbouncer`, is PostgreSQL reached through a transaction-pooling PgBouncer of this
 * process's own (./own-pgbouncer.ts), as docs/deployment.md#behind-pgbouncer deploys it: the same
 * schemas, each served under an alias of its own, with URLs that say `pgbouncer=true`. Under CI a missing
 * `pgbouncer` fails the run. Only the files whose outcome a transaction pooler can change run through it
 * (`databaseKinds({ pgbouncer: true })`, or `pgbouncer: true` to `eachDatabase`, each saying why;
 * docs/testing.md lists them).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { connect } from '../../../src/server/store/connect.js';
import { migrate } from '../../../src/server/store/migrations.js';
import type { Dialect } from '../../../src/server/store/connect.js';
import { PG_URL, pgbouncerProblem, postgresProblem } from '../../requirements.js';
import { startOwnPgbouncer, type OwnPgbouncer } from './own-pgbouncer.js';
import { ROOT } from './root.js';


export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres' | 'pgbouncer';
  /** The SQL the service speaks to it (pgbouncer: PostgreSQL's). */
  dialect: Dialect;
  /** Why this kind is skipped here, or undefined when it runs. */
  skip: string | undefined;
  /** A database of its own at the current schema, holding only what the migrations put there. */
  create(): Promise<TestDatabase>;
  /** A database with nothing in it (not migrated): for tests of what happens on a brand-new one. */
  createEmpty(): Promise<TestDatabase>;
}

let pgReachable: Promise<string | undefined> | undefined;
async function checkPostgres(): Promise<string | undefined> {
  const problem = await postgresProblem();
  if (problem === undefined) return undefined;
  const why = `PostgreSQL at ${PG_URL} is unreachable: ${problem}`;
  if (process.env.CI) throw new Error(`${why} (CI must run the PostgreSQL tests)`);
  return why;
}

/** Connects to `url`, migrates to the current schema, disconnects. */
async function migrated(url: string): Promise<void> {
  const { db, dialect, close } = connect(url);
  try {
    await migrate(db, dialect);
  } finally {
    await close();
  }
}

/** Temporary directories of this process, removed when its tests are done (even those a test left behind). */
const directories: string[] = [];
function directory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-test-'));
  directories.push(dir);
  return dir;
}
const removeDirectory = (dir: string) => rmSync(dir, { recursive: true, force: true });

function sqliteDatabase(dir: string): TestDatabase {
  return { url: `sqlite:${join(dir, 'refkit.db')}`, drop: async () => removeDirectory(dir) };
}

/** The migrated SQLite file the databases of this process are copied from. */
let sqliteTemplate: Promise<string> | undefined;
async function makeSqliteTemplate(): Promise<string> {
  const { url } = sqliteDatabase(directory());
  await migrated(url);
  // Closing the last connection checkpointed the write-ahead log into the file: the file alone is the database.
  return url.slice('sqlite:'.length);
}

const sqlite: DatabaseKind = {
  name: 'sqlite',
  dialect: 'sqlite',
  skip: undefined,
  async create() {
    const template = await (sqliteTemplate ??= makeSqliteTemplate());
    const db = sqliteDatabase(directory());
    copyFileSync(template, db.url.slice('sqlite:'.length));
    return db;
  },
  async createEmpty() {
    return sqliteDatabase(directory());
  },
};

/** This process's PostgreSQL database; made on first use (see the top of this file). */
const processDatabase = `refkit_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
let processDatabaseMade: Promise<unknown> | undefined;
const databaseUrl = (name: string) => {
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url;
};
const processDatabaseUrl = () => databaseUrl(processDatabase);

/** Runs SQL on this process's PostgreSQL database (outside any test schema), or on the test database itself. */
async function admin<T extends pg.QueryResultRow>(text: string, values: unknown[] = [], on = processDatabaseUrl().href): Promise<T[]> {
  const client = new pg.Client({ connectionString: on });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const schemaUrl = (schema: string, database = processDatabase) => {
  const url = databaseUrl(database);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
};
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The schema of the template that is migrated: every process database starts with it. */
const MIGRATED_SCHEMA = 'refkit_test_1';
/** Named for the migrations' source, so a changed migration gets a template of its own. */
const TEMPLATE = `refkit_test_template_${createHash('sha256')
  .update(readFileSync(join(ROOT, 'src/server/store/migrations.ts')))
  .digest('hex')
  .slice(0, 16)}`;

/**
 * PostgreSQL refuses to rename or copy a database while a session is connected to it, and a backend
 * outlives its client's disconnection by a moment: a few tries.
 */
async function whileInUse<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt === 20 || !/is being accessed by other users/.test((err as Error).message)) throw err;
      await sleep(50);
    }
  }
}

/** Makes TEMPLATE unless it is there: built under a name of this process's own, then renamed. */
async function ensureTemplate(): Promise<void> {
  if ((await admin(`select 1 from pg_database where datname = $1`, [TEMPLATE], PG_URL)).length > 0) return;
  const building = `${processDatabase}_template`;
  await admin(`create database ${building}`, [], PG_URL);
  try {
    await admin(`create schema ${MIGRATED_SCHEMA}`, [], databaseUrl(building).href);
    await migrated(schemaUrl(MIGRATED_SCHEMA, building));
    // Test files starting together may each build one: the first rename wins, the others drop theirs.
    await whileInUse(() => admin(`alter database ${building} rename to ${TEMPLATE}`, [], PG_URL));
  } catch (err) {
    await admin(`drop database if exists ${building} with (force)`, [], PG_URL);
    if (!/already exists/.test((err as Error).message)) throw err;
    return;
  }
  // Templates of earlier versions of the migrations are of no more use.
  const stale = await admin<{ name: string }>(
    `select datname as name from pg_database where starts_with(datname, 'refkit_test_template_') and datname <> $1`,
    [TEMPLATE],
    PG_URL,
  );
  for (const { name } of stale) await admin(`drop database if exists ${name} with (force)`, [], PG_URL).catch(() => {});
}

async function makeProcessDatabase(): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await ensureTemplate();
    try {
      await whileInUse(() => admin(`create database ${processDatabase} template ${TEMPLATE}`, [], PG_URL));
      return;
    } catch (err) {
      // A test run of another checkout, whose migrations differ, dropped ours as stale between the two
      // statements (seen when two checkouts ran their suites at once): make it again.
      if (attempt === 3 || (err as { code?: string }).code !== '3D000') throw err;
    }
  }
}

/** The template's migrated schema, until a test takes it; then new schemas, which the caller migrates. */
let schemaCount = 0;
async function newSchema(): Promise<{ schema: string; migrated: boolean }> {
  await (processDatabaseMade ??= makeProcessDatabase());
  const schema = `refkit_test_${++schemaCount}`;
  if (schema === MIGRATED_SCHEMA) return { schema, migrated: true };
  await admin(`create schema ${schema}`);
  return { schema, migrated: false };
}

/** Migrated schemas no test is using, ready to be handed out. */
const idle: string[] = [];
/**
 * SQL that takes a used schema back to what the migrations left; `big` when the schema holds many rows (a
 * benchmark's), for which TRUNCATE is the faster way.
 */
let resetSql: Promise<(schema: string, big: boolean) => string> | undefined;

/** More participants than this make a schema's reset TRUNCATE its tables instead of deleting their rows. */
const BIG_SCHEMA_ROWS = 10_000;

/** Whether the schema holds more than BIG_SCHEMA_ROWS participants. */
async function isBig(schema: string): Promise<boolean> {
  const [row] = await admin<{ big: boolean }>(`select exists (select 1 from ${quote(schema)}.participants offset ${BIG_SCHEMA_ROWS}) as big`);
  return row?.big ?? false;
}

/**
 * Reads what the migrations left in a just-migrated schema (the rows they inserted and the sequences'
 * positions) and builds the statements that put a schema back to exactly that: delete every row of every
 * table but the migrations' own bookkeeping (referencing tables first), insert those rows again, set the
 * sequences. Deleting the few rows a test wrote is several times faster than TRUNCATE, which makes new files
 * for every table and index. Not so after a benchmark: deleting 100,000 participants checks each against
 * the tables referencing it, some of them (payments by payer, migration 0021) with no index to do it by,
 * and took minutes; a big schema's tables are truncated, all in one statement.
 */
async function makeResetSql(schema: string): Promise<(schema: string, big: boolean) => string> {
  const tables = (
    await admin<{ name: string }>(
      `select table_name as name from information_schema.tables
        where table_schema = $1 and table_type = 'BASE TABLE' and table_name not like 'kysely_migration%' order by table_name`,
      [schema],
    )
  ).map((t) => t.name);
  const references = await admin<{ from: string; to: string }>(
    `select f.relname as from, t.relname as to from pg_constraint c
       join pg_class f on f.oid = c.conrelid join pg_class t on t.oid = c.confrelid join pg_namespace n on n.oid = c.connamespace
      where c.contype = 'f' and n.nspname = $1 and f.oid <> t.oid`,
    [schema],
  );
  // A table is emptied only once every table that references it has been.
  const order: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const next = [...left].filter((t) => !references.some((r) => r.to === t && left.has(r.from)));
    if (next.length === 0) throw new Error(`foreign keys in a cycle among ${[...left].join(', ')}`);
    for (const t of next) {
      order.push(t);
      left.delete(t);
    }
  }
  const rows = await admin<{ name: string; rows: string | null }>(
    tables.map((t) => `select ${literal(t)} as name, (select json_agg(r)::text from ${quote(schema)}.${quote(t)} r) as rows`).join(' union all '),
  );
  const sequences = await admin<{ name: string; value: string; called: boolean }>(
    `select sequencename as name, coalesce(last_value, start_value)::text as value, last_value is not null as called
       from pg_sequences where schemaname = $1`,
    [schema],
  );
  return (s, big) =>
    [
      // The cache triggers a delete fires name their table unqualified, as the service's connections do.
      `set search_path to ${quote(s)}`,
      // The audit log refuses DELETE (migration 0023: append-only triggers); TRUNCATE fires no row trigger.
      ...(big
        ? [`truncate ${order.map((t) => `${quote(s)}.${quote(t)}`).join(', ')}`]
        : order.map((t) => (t === 'audit_log' ? `truncate ${quote(s)}.${quote(t)}` : `delete from ${quote(s)}.${quote(t)}`))),
      ...rows
        .filter((r) => r.rows !== null)
        .map((r) => `insert into ${quote(s)}.${quote(r.name)} select * from json_populate_recordset(null::${quote(s)}.${quote(r.name)}, ${literal(r.rows!)})`),
      ...sequences.map((q) => `select setval(${literal(`${quote(s)}.${quote(q.name)}`)}, ${q.value}, ${q.called})`),
    ].join(';\n');
}

/** `urlOf`: the service's URL for a schema of this process's database (direct, or through PgBouncer). */
function postgres(name: 'postgres' | 'pgbouncer', skip: string | undefined, urlOf: (schema: string) => Promise<string>): DatabaseKind {
  return {
    name,
    dialect: 'postgres',
    skip,
    async create() {
      let schema = idle.pop();
      if (!schema) {
        const made = await newSchema();
        schema = made.schema;
        if (!made.migrated) await migrated(schemaUrl(schema));
        resetSql ??= makeResetSql(schema);
        await resetSql;
      }
      const mine = schema;
      let dropped = false;
      return {
        url: await urlOf(mine),
        async drop() {
          if (dropped) return;
          dropped = true;
          await admin((await resetSql!)(mine, await isBig(mine)));
          idle.push(mine);
        },
      };
    },
    async createEmpty() {
      let made = await newSchema();
      if (made.migrated) {
        // The template's migrated schema is kept for the next create(); this one must be empty.
        resetSql ??= makeResetSql(made.schema);
        await resetSql;
        idle.push(made.schema);
        made = await newSchema();
      }
      const { schema } = made;
      return { url: await urlOf(schema), drop: () => admin(`drop schema if exists ${schema} cascade`).then(() => undefined) };
    },
  };
}

/** This process's PgBouncer, started on first use; each schema is served under its own name. */
let pgbouncer: Promise<OwnPgbouncer> | undefined;
const served = new Map<string, Promise<string>>();
const pgbouncerUrl = (schema: string): Promise<string> => {
  let url = served.get(schema);
  if (!url) {
    url = (pgbouncer ??= startOwnPgbouncer(new URL(PG_URL))).then((b) => b.serve(schema, processDatabase, schema));
    served.set(schema, url);
  }
  return url;
};

let pgbouncerFound: Promise<string | undefined> | undefined;
async function checkPgbouncer(): Promise<string | undefined> {
  const problem = await pgbouncerProblem();
  if (problem === undefined) return undefined;
  const why = `pgbouncer cannot run: ${problem}`;
  if (process.env.CI) throw new Error(`${why} (CI must run the PostgreSQL tests through PgBouncer: apt-get install pgbouncer)`);
  return why;
}

/** Removes every directory and database this process made, including any a test left behind. */
async function removeAll(): Promise<void> {
  for (const dir of directories.splice(0)) removeDirectory(dir);
  if (pgbouncer) (await pgbouncer).stop();
  // With (force): a service process a test killed may not have been disconnected yet.
  if (processDatabaseMade) await admin(`drop database if exists ${processDatabase} with (force)`, [], PG_URL);
}
// Once the process has nothing left to do: after the last test of a file, or at the end of a benchmark.
process.once('beforeExit', () => void removeAll());

/**
 * SQLite, PostgreSQL and (with `pgbouncer: true`) PostgreSQL through PgBouncer; each PostgreSQL kind
 * carries a skip reason when it cannot run outside CI. Through PgBouncer is for the files whose outcome a
 * transaction pooler can change (docs/testing.md lists them and why): each says `pgbouncer: true`.
 */
export async function databaseKinds({ pgbouncer: throughPgbouncer = false }: { pgbouncer?: boolean } = {}): Promise<DatabaseKind[]> {
  // `npm run test:quick` (TEST_DATABASES=sqlite): the inner loop's run, SQLite only, by choice; the
  // PostgreSQL kinds are skipped saying so (a full `npm test` still runs them, and CI fails without them).
  if (process.env.TEST_DATABASES === 'sqlite') {
    const why = 'TEST_DATABASES=sqlite (npm run test:quick): SQLite only';
    return [sqlite, postgres('postgres', why, async (schema) => schemaUrl(schema)), ...(throughPgbouncer ? [postgres('pgbouncer', why, pgbouncerUrl)] : [])];
  }
  pgReachable ??= checkPostgres();
  const pgSkip = await pgReachable;
  const kinds = [sqlite, postgres('postgres', pgSkip, async (schema) => schemaUrl(schema))];
  if (!throughPgbouncer) return kinds;
  pgbouncerFound ??= checkPgbouncer();
  return [...kinds, postgres('pgbouncer', pgSkip ?? (await pgbouncerFound), pgbouncerUrl)];
}
