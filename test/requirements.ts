/**
 * What the test suites need of the machine beyond `npm install`, checked by `npm test` before it runs any
 * suite (scripts/test-all.ts), so that a missing piece is one clear message up front instead of a suite
 * failing half-way. PostgreSQL and Redis are optional on a developer's machine (the service suite then
 * runs on SQLite only, and the shared rate-limit test is skipped, each saying so); under CI every piece is
 * required, as nothing may be skipped there.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Debian's Chromium, which the widget tests (web-test-runner) and the end-to-end tests (Playwright) drive. */
export const CHROMIUM = '/usr/bin/chromium';
/** The PostgreSQL the service suite runs on besides SQLite; each test file makes its own databases beside it. */
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The Redis the shared rate-limit counters are tested against. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Requirement {
  name: string;
  /** What needs it. */
  neededBy: string;
  /** The suites of `npm test` (scripts/test-all.ts) that need it: `npm test -- <suite>` checks only theirs. */
  suites: readonly string[];
  /** How to get it on Debian. */
  fix: string;
  /** Whether the suites can go on without it (outside CI), and what they then leave out. */
  withoutIt?: string;
  /** Why it is missing, or undefined when it is there. */
  check(): Promise<string | undefined>;
}

/** A program on PATH that runs: `undefined`, or why not. */
function program(command: string): () => Promise<string | undefined> {
  return async () => {
    const run = spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    if (run.error) return (run.error as NodeJS.ErrnoException).code === 'ENOENT' ? `no \`${command}\` on PATH` : run.error.message;
    return run.status === 0 ? undefined : `\`${command} --version\` exited with ${run.status ?? run.signal}`;
  };
}

/** Why the test PostgreSQL cannot be used, or undefined when it answers. */
export async function postgresProblem(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why the test Redis cannot be used, or undefined when it answers. */
export async function redisProblem(): Promise<string | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  // The client's own error (say, ECONNREFUSED) says more than the rejection ("Connection is closed").
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause = err));
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    return (cause ?? (err as Error)).message || String(err);
  } finally {
    redis.disconnect();
  }
}

/**
 * The folder of PostgreSQL's server programs (initdb, pg_ctl, postgres), for the fault tests' cluster of
 * their own: `pg_config --bindir`, else Debian's newest /usr/lib/postgresql/<version>/bin; or undefined.
 */
export function postgresBinDir(): string | undefined {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = fromConfig.status === 0 ? [fromConfig.stdout.trim()] : [];
  if (existsSync('/usr/lib/postgresql')) {
    candidates.push(...readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  return candidates.find((dir) => ['initdb', 'pg_ctl', 'postgres'].every((p) => existsSync(join(dir, p))));
}

/** User postgres's ids (from /etc/passwd), which a cluster started by root runs as; or undefined. */
export function postgresUser(): { uid: number; gid: number } | undefined {
  const line = (existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '').split('\n').find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

/** Why no PostgreSQL cluster of a test's own can run here, or undefined. PostgreSQL refuses root: then it runs as user postgres. */
export async function postgresServerProblem(): Promise<string | undefined> {
  if (!postgresBinDir()) return 'no initdb, pg_ctl and postgres under `pg_config --bindir` or /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && !postgresUser()) return 'running as root, and there is no user postgres to run it as';
  return undefined;
}

/** Why the service suite cannot run through a PgBouncer of its own (test/server/helpers/own-pgbouncer.ts), or undefined. */
export const pgbouncerProblem = program('pgbouncer');

export const REQUIREMENTS: Requirement[] = [
  {
    name: `Chromium at ${CHROMIUM}`,
    neededBy: 'the widget, end-to-end and packages suites',
    suites: ['widget', 'e2e', 'packages'],
    fix: 'apt-get install -y chromium',
    check: async () => {
      try {
        accessSync(CHROMIUM, constants.X_OK);
        return undefined;
      } catch {
        return 'not there, or not executable';
      }
    },
  },
  {
    name: 'Ruby',
    neededBy: "the service suite (docs/privacy.md's Ruby signature snippet, run as written)",
    suites: ['server'],
    fix: 'apt-get install -y ruby',
    check: program('ruby'),
  },
  {
    name: 'python3',
    neededBy: "the service suite (docs/privacy.md's Python signature snippet, run as written)",
    suites: ['server'],
    fix: 'apt-get install -y python3',
    check: program('python3'),
  },
  {
    name: 'Prometheus (prometheus and promtool)',
    neededBy: 'the service suite (prometheus.test.ts scrapes the service with it and checks docs/ops/alerts.yml)',
    suites: ['server'],
    fix: 'apt-get install -y prometheus',
    check: async () => (await program('prometheus')()) ?? program('promtool')(),
  },
  {
    name: `PostgreSQL at ${PG_URL}`,
    neededBy: 'the service suite on PostgreSQL (the user needs CREATEDB)',
    suites: ['server', 'e2e'],
    fix: 'start PostgreSQL with a database `test` (trust auth), or set TEST_DATABASE_URL',
    withoutIt: 'the service suite runs on SQLite only',
    check: postgresProblem,
  },
  {
    name: `Redis at ${REDIS_URL}`,
    neededBy: 'the test of rate-limit counters shared through Redis',
    suites: ['server'],
    fix: 'start redis-server, or set TEST_REDIS_URL',
    withoutIt: 'that test is skipped',
    check: redisProblem,
  },
  {
    name: 'PostgreSQL server programs',
    neededBy: 'the fault tests (test/server/database-faults.test.ts restarts a PostgreSQL of its own)',
    suites: ['server'],
    fix: 'apt-get install -y postgresql',
    withoutIt: 'those tests are skipped',
    check: postgresServerProblem,
  },
  {
    name: 'redis-server',
    neededBy: 'the fault tests (test/server/database-faults.test.ts stops and starts a Redis of its own)',
    suites: ['server'],
    fix: 'apt-get install -y redis-server',
    withoutIt: 'those tests are skipped',
    check: program('redis-server'),
  },
  {
    name: 'pgbouncer',
    neededBy: 'the service suite through PgBouncer (the pgbouncer database kind, test/server/helpers/databases.ts)',
    suites: ['server'],
    fix: 'apt-get install -y pgbouncer (it is in /usr/sbin: put that on PATH)',
    withoutIt: 'the service suite does not run through PgBouncer',
    check: pgbouncerProblem,
  },
];

export interface Preflight {
  /** Pieces whose absence stops the run: one message naming them all. */
  missing: string[];
  /** Optional pieces that are absent: what the run leaves out without them. */
  skipped: string[];
}

/**
 * Checks the requirements of the suites named (all at once); under `ci`, an optional piece that is absent
 * is missing too.
 */
export async function preflight(ci: boolean, suites: readonly string[], requirements = REQUIREMENTS): Promise<Preflight> {
  const needed = requirements.filter((r) => r.suites.some((s) => suites.includes(s)));
  const found = await Promise.all(needed.map(async (r) => ({ r, why: await r.check() })));
  const result: Preflight = { missing: [], skipped: [] };
  for (const { r, why } of found) {
    if (why === undefined) continue;
    if (r.withoutIt && !ci) result.skipped.push(`${r.name} is not available (${why}): ${r.withoutIt}. Under CI this fails.`);
    else result.missing.push(`${r.name} (${why}): needed by ${r.neededBy}. To fix: ${r.fix}.`);
  }
  return result;
}
