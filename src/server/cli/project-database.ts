/**
 * Which database a `refkit` command acts on, and the line on stderr that names it.
 *
 * DATABASE_URL decides when set. Without it the command acts on the project's database: `data/refkit.db`
 * in the nearest folder, from where it runs upwards, that holds one or holds a package.json of Refkit or
 * of a project that depends on it. That is where `npm start` (and `refkit serve` from the project's
 * folder) keeps it, so a command run in a subfolder reaches the same database; before, it made a new one
 * in the subfolder and printed keys the running service refused. Outside any project, commands refuse,
 * but `serve` and `migrate`, which make ./data/refkit.db as they always have.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { shownDatabaseUrl } from '../database-url.js';

/** What choosing a command's database reads and sets of the command line being run (cli-run.ts's Run). */
interface CommandLine {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  stderr: NodeJS.WritableStream;
  databaseUrl?: string;
}

/** The database file of a project, relative to its folder. */
export const PROJECT_DATABASE = join('data', 'refkit.db');

/** True when `file` is a package.json naming Refkit itself or depending on it. */
function isRefkitPackage(file: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    return pkg.name === 'refkit' || Object.hasOwn(pkg.dependencies ?? {}, 'refkit') || Object.hasOwn(pkg.devDependencies ?? {}, 'refkit');
  } catch {
    // No package.json here, or one that is not JSON: not a sign of a project either way.
    return false;
  }
}

/** The nearest folder at or above `from` holding data/refkit.db or a package.json of (or depending on) Refkit. */
export function findProjectFolder(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, PROJECT_DATABASE)) || isRefkitPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Where a command acts when nothing says: `project` (refuse outside one) or `here` (serve, migrate: ./data/refkit.db). */
export type Fallback = 'project' | 'here';

/** The DATABASE_URL a command line acts on (see the top of this file). */
export function chooseDatabaseUrl(run: CommandLine, fallback: Fallback = 'project'): string {
  if (run.env.DATABASE_URL) return run.env.DATABASE_URL;
  const cwd = run.cwd ?? process.cwd();
  const folder = findProjectFolder(cwd);
  if (folder !== undefined) return `sqlite:${join(folder, PROJECT_DATABASE)}`;
  if (fallback === 'here') return `sqlite:${join(cwd, PROJECT_DATABASE)}`;
  throw new ConfigError(
    `no Refkit project in ${cwd} or above it (no data/refkit.db, no package.json of or depending on refkit) and DATABASE_URL is not set: ` +
      "run this in your project's folder, or set DATABASE_URL to the service's database",
  );
}

/**
 * The configuration of a command that opens a database, the database chosen as above; the first call of
 * a command line prints which it is on stderr (stdout stays the answer, for --json and pipes); `quiet`
 * for a `serve` worker process, whose primary has said it.
 */
export function commandConfig(run: CommandLine, { fallback = 'project', demo, quiet }: { fallback?: Fallback; demo?: boolean; quiet?: boolean } = {}): Config {
  const config = loadConfig({ ...run.env, DATABASE_URL: chooseDatabaseUrl(run, fallback) }, demo ? { demo } : {});
  if (run.databaseUrl === undefined && !quiet) run.stderr.write(`Database: ${shownDatabaseUrl(config.databaseUrl)}\n`);
  run.databaseUrl = config.databaseUrl;
  return config;
}
