/**
 * `npm run bench`'s command line: its modes and options (what `npm run bench -- --help` prints), read
 * before anything starts, so that --help or a mistyped option answers at once.
 */
import { parseArgs } from 'node:util';

export const HELP = `Usage: npm run bench [-- <mode> [options]]

The service's hot routes against their baselines, on SQLite and PostgreSQL (and PostgreSQL through
PgBouncer), results in BENCHMARKS.md. PostgreSQL is measured when 127.0.0.1:5432 database test (or
TEST_DATABASE_URL) is reachable.

Modes:
  (none)              full run: 50 connections; per route a warm-up of it and of its baseline, then
                      five pairs of 2 s slices of the two in turns (bench/routes.ts). Rewrites the
                      Routes section of BENCHMARKS.md; takes about 5 minutes per database kind.
  --quick             a few seconds per route, for CI: checks the harness end to end and fails on any
                      non-2xx answer or error; asserts no speed and writes no file.
  --growth            seeds 10k, 100k and 1M participants and measures every read route and a sign-up
                      at each size; writes the Growth section (not with --routes).
  --profile           the service under --cpu-prof during a getCampaign load and a sign-up load;
                      writes the Profile section.
  --compare REV       the working tree's service against REV's, in turns, each started first once
                      (bench/compare.ts): by default on new sign-ups, or on --routes; writes no file.
  --retention         the retention pruner through 1,000,000 old rows, and sign-ups' latency while it
                      runs (bench/retention.ts); writes the Retention section (not with --rows).
  --processes 1,2,4   N \`refkit serve\` processes on one PostgreSQL for each N, one load generator per
                      process, on sign-ups and paid qualifications: req/s, latency, the CPU of the
                      services, the database backends and the generators, WAL and statements per call
                      (bench/processes.ts); writes the Processes section (not with --quick). PostgreSQL only.
  --soak              new referred sign-ups on PostgreSQL for 10 minutes with autovacuum off on the
                      run's tables, measured a minute at a time with the dead rows left behind
                      (bench/soak.ts); writes the Soak section (not with --minutes). PostgreSQL only.
  --signup-options    new referred sign-ups on a campaign with each sign-up option (blocklist, captcha,
                      autoApprove, refereeDiscount) against one without (bench/signup-options.ts):
                      what each costs a sign-up; writes the Sign-up options section (not with --quick
                      or --db).
  --stale-statistics  keyless sign-ups on PostgreSQL through share links of a campaign that grew after
                      participants was last analysed, a second at a time, before and after an owner's
                      edit empties the caches (bench/stale-statistics.ts); writes the Stale statistics
                      section (not with --quick). PostgreSQL only.
  --backtest          the offer backtest over 100,000 participants and 1,000,000 ledger entries
                      (bench/backtest.ts); writes the Offer backtest section (not with --db).

Options:
  --routes A,B        only the routes whose names start with A or B: without a mode, with their
                      baselines (an A/B check while optimising; writes no file); with --growth,
                      --profile (default getCampaign and a sign-up) or --compare, the routes they measure.
  --sizes N,M         --growth: these numbers of participants (each at least 2000), e.g. 10000,100000.
  --keep-profiles DIR --profile: keep the .cpuprofile files there, for Chrome DevTools or a script.
  --webhook           --compare: a webhook endpoint taking every event, on both databases.
  --rows N            --retention: this many old rows (at least 1000) instead of 1,000,000.
  --minutes N         --soak: this many minutes instead of 10.
  --db KIND           one database kind only (sqlite, postgres, or pgbouncer: PostgreSQL through a
                      transaction-pooling PgBouncer of the run's own), with any of the above.
  -h, --help          print this and exit.
`;

/**
 * What a bare `npm run bench` says before it starts: it takes a while and rewrites a committed file.
 * About 26 s a route (a 3 s warm-up of it and of its baseline, then 10 s of each), nine routes, and the
 * INSERT baselines' extra runs: 4 to 5 minutes per database kind.
 */
export const FULL_RUN_NOTICE =
  'npm run bench: a full run. It measures every hot route against its baseline on each database kind it can reach ' +
  '(SQLite, PostgreSQL, PostgreSQL through PgBouncer), about 5 minutes each (about 15 minutes for all three), ' +
  'then rewrites the Routes section of BENCHMARKS.md. For a check of the harness that writes nothing: npm run bench -- --quick. ' +
  'Modes: npm run bench -- --help.';

/** The options parseArgs accepts: every one is in HELP (test/server/bench-help.test.ts). */
export const OPTIONS = {
  help: { type: 'boolean', short: 'h', default: false },
  quick: { type: 'boolean', default: false },
  growth: { type: 'boolean', default: false },
  sizes: { type: 'string' },
  profile: { type: 'boolean', default: false },
  routes: { type: 'string' },
  compare: { type: 'string' },
  webhook: { type: 'boolean', default: false },
  'keep-profiles': { type: 'string' },
  db: { type: 'string' },
  retention: { type: 'boolean', default: false },
  backtest: { type: 'boolean', default: false },
  soak: { type: 'boolean', default: false },
  'signup-options': { type: 'boolean', default: false },
  'stale-statistics': { type: 'boolean', default: false },
  minutes: { type: 'string' },
  rows: { type: 'string' },
  processes: { type: 'string' },
} as const;

export type BenchOptions = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** The options of `argv`; throws parseArgs's error (its message names the option) on one it does not know. */
export const parseBenchArgs = (argv: string[]): BenchOptions => parseArgs({ args: argv, options: OPTIONS }).values;

/** True when the options choose the full run of the routes, the one that rewrites BENCHMARKS.md's Routes section. */
export const isFullRun = (o: BenchOptions): boolean =>
  !o.quick && !o.growth && !o.profile && o.routes === undefined && o.compare === undefined && !o.retention && !o.backtest && !o.soak && !o['signup-options'] && !o['stale-statistics'] && o.processes === undefined;
