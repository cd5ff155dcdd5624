/**
 * `refkit migrate [--check]` and `refkit backup --to FILE`: the database's schema and its copies, acted on
 * without opening the service (no runtime, no migration unless asked for). See docs/operate.md.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { jsonOption, type Run } from './cli-run.js';
import { ConfigError } from '../config.js';
import { databaseOpenError } from '../database-url.js';
import { backupSqlite } from '../operations/store/backup.js';
import { connect, dialectOf, sqlitePath, type Db } from '../store/connect.js';
import { migrate, migrationNames, schemaStatus, type SchemaStatus } from '../store/migrations.js';
import { commandConfig } from './project-database.js';

/**
 * `migrate --check`'s exit codes past 0 (up to date), one per answer a deploy script acts on differently
 * (1 stays what any failure exits with: the database could not be read).
 */
export const CHECK_EXIT = { behind: 3, ahead: 4, diverged: 5 } as const;

type Standing = 'current' | keyof typeof CHECK_EXIT;

function standing({ pending, unknown }: SchemaStatus): Standing {
  if (pending.length > 0 && unknown.length > 0) return 'diverged';
  if (pending.length > 0) return 'behind';
  if (unknown.length > 0) return 'ahead';
  return 'current';
}

const count = (n: number) => `${n} migration${n === 1 ? '' : 's'}`;
const AHEAD = (unknown: string[]) =>
  `the database has ${count(unknown.length)} this release does not know (${unknown.join(', ')}): this code is older than the schema`;

/** The sentence `migrate --check` prints for a standing. */
function describe(status: SchemaStatus): string {
  switch (standing(status)) {
    case 'current':
      return 'up to date: the database has run every migration of this release, and no other';
    case 'behind':
      return `behind: ${count(status.pending.length)} to run (${status.pending.join(', ')}); run refkit migrate`;
    case 'ahead':
      return `ahead: ${AHEAD(status.unknown)}. It serves on it (migrations are expand/contract)`;
    case 'diverged':
      return `diverged: ${count(status.pending.length)} to run (${status.pending.join(', ')}) and ${AHEAD(status.unknown)}; neither this release nor the newer one can migrate it`;
  }
}

/** Runs `task` on the database, opened without migrating; a missing one is a ConfigError. */
async function withConnection<T>(databaseUrl: string, task: (c: Db) => Promise<T>): Promise<T> {
  const c = connect(databaseUrl);
  try {
    return await task(c);
  } catch (err) {
    throw databaseOpenError(err, databaseUrl);
  } finally {
    await c.close();
  }
}

/** The standing of the database's schema, changing nothing (a SQLite file that does not exist is not made). */
async function readStanding(databaseUrl: string): Promise<SchemaStatus> {
  if (dialectOf(databaseUrl) === 'sqlite' && sqlitePath(databaseUrl) !== ':memory:' && !existsSync(sqlitePath(databaseUrl))) {
    return { pending: migrationNames('sqlite'), unknown: [] };
  }
  return withConnection(databaseUrl, (c) => schemaStatus(c.db, c.dialect));
}

export function addDatabaseCommands(program: Command, run: Run): void {
  program
    .command('migrate')
    .description('bring the database schema up to date, then exit; --check only says whether it is behind or ahead')
    .option('--check', `change nothing: exit 0 when up to date, ${CHECK_EXIT.behind} when behind (migrations to run), ${CHECK_EXIT.ahead} when ahead (a newer release migrated it), ${CHECK_EXIT.diverged} when both`)
    .addOption(jsonOption)
    .action(async (o: { check?: boolean; json?: boolean }) => {
      // Outside a project it migrates ./data/refkit.db, as `serve` makes it there.
      const { databaseUrl } = commandConfig(run, { fallback: 'here' });
      const before = await readStanding(databaseUrl);
      // Refused before connecting to migrate: the migrator would fail on it with a less helpful message.
      if (!o.check && standing(before) === 'diverged') throw new ConfigError(describe(before));
      const status = o.check ? before : await withConnection(databaseUrl, (c) => migrate(c.db, c.dialect));
      const state = standing(status);
      if (o.json) run.stdout.write(`${JSON.stringify({ state, ...status })}\n`);
      else if (o.check) run.stdout.write(`${describe(status)}\n`);
      else run.stdout.write(state === 'ahead' ? `nothing to run; ${AHEAD(status.unknown)}\n` : 'database is up to date\n');
      if (o.check && state !== 'current') run.exitCode = CHECK_EXIT[state];
    });

  program
    .command('backup')
    .description('copy the live SQLite database to a new file, consistent while the service writes (PostgreSQL: pg_dump)')
    .requiredOption('--to <file>', 'the copy; must not exist yet (its folder is made if need be)')
    .action(async (o: { to: string }) => {
      const { databaseUrl } = commandConfig(run);
      if (dialectOf(databaseUrl) === 'postgres') {
        throw new ConfigError('refkit backup copies a SQLite database; back up PostgreSQL with pg_dump or your provider\'s point-in-time recovery (docs/operate.md)');
      }
      const from = sqlitePath(databaseUrl);
      if (!existsSync(from)) throw new ConfigError(`there is no database at ${from} to back up: check DATABASE_URL, or run this in the project's folder`);
      if (existsSync(o.to)) throw new ConfigError(`${o.to} exists already: a backup goes to a new file`);
      // A folder for the backups is made when it is new (`--to backups/refkit-2026-11-26.db`, as docs/operate.md shows).
      mkdirSync(dirname(o.to), { recursive: true });
      const { bytes, ms } = backupSqlite(from, o.to);
      run.stdout.write(`backed up to ${o.to} (${(bytes / 1e6).toFixed(1)} MB in ${ms} ms)\n`);
    });
}
