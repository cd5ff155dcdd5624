/**
 * The benchmark of the mode `npm run bench` was given (./options.ts lists them), run once ./run.ts has
 * read its command line: loaded only then, as it loads the service and the test harness.
 */
import { databaseKinds } from '../test/server/helpers/databases.js';
import { parseBenchArgs } from './options.js';
import { runBacktest } from './backtest.js';
import { runCompare } from './compare.js';
import { runGrowth } from './growth.js';
import { startLoader } from './loader.js';
import { runProcesses } from './processes.js';
import { runProfile } from './profile.js';
import { runRetention } from './retention.js';
import { runSignupOptions } from './signup-options.js';
import { runSoak } from './soak.js';
import { runStaleStatistics } from './stale-statistics.js';
import { KIND_TITLES, machine, writeSection } from './report.js';
import { benchKind, failures, markdown, type KindReport, type Timing } from './routes.js';

const values = parseBenchArgs(process.argv.slice(2));
/** --routes: the names (their beginnings) of the routes to measure, for every mode that takes it. */
const only = values.routes?.split(',').map((r) => r.trim());
const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
const log = (line: string) => process.stdout.write(`${line}\n`);

// Every kind, PgBouncer included: the benchmark measures each way of deploying.
const kinds = await databaseKinds({ pgbouncer: true });
for (const k of kinds.filter((k) => k.skip)) log(`[${k.name}] skipped: ${k.skip}`);
const runnable = kinds.filter((k) => !k.skip && (values.db === undefined || k.name === values.db));
if (runnable.length === 0) throw new Error(`no database to run on (--db ${values.db ?? ''})`);
/** The PostgreSQL kind, for a mode that runs on it alone; throws when it is not reachable or --db excluded it. */
const postgresOnly = (mode: string) => {
  const postgres = runnable.find((k) => k.name === 'postgres');
  if (!postgres) throw new Error(`${mode} runs on PostgreSQL only: PostgreSQL is not reachable or --db excluded it`);
  return postgres;
};
const loader = startLoader();
try {
  if (values.backtest) {
    await runBacktest(runnable, command, log, values.db === undefined);
  } else if (values.processes !== undefined) {
    // --quick: few connections, so that even a busy machine answers some calls of each load within its 2 s.
    const timing = values.quick ? { connections: 8, warmupSeconds: 1, seconds: 2 } : { connections: 48, warmupSeconds: 2, seconds: 8 };
    const counts = values.processes.split(',').map((n) => Number(n.trim()));
    if (counts.some((n) => !Number.isInteger(n) || n < 1 || timing.connections % n !== 0)) throw new Error(`--processes takes counts of processes that divide ${timing.connections} (the connections): 1,2,4 for example`);
    const postgres = postgresOnly('--processes');
    if ((await runProcesses(postgres, counts, loader, timing, command, log, !values.quick)) > 0) process.exitCode = 1;
  } else if (values.soak) {
    const minutes = Number(values.minutes ?? 10);
    if (!Number.isInteger(minutes) || minutes < 1) throw new Error('--minutes takes a whole number of minutes, at least 1');
    const postgres = postgresOnly('--soak');
    await runSoak(postgres, minutes, loader, command, log, values.minutes === undefined);
  } else if (values['signup-options']) {
    const timing = values.quick ? { connections: 20, warmupSeconds: 0.5, pairs: 2, sliceSeconds: 0.75 } : { connections: 50, warmupSeconds: 3, pairs: 5, sliceSeconds: 2 };
    if ((await runSignupOptions(runnable, loader, timing, command, log, !values.quick && values.db === undefined)) > 0) {
      log('\nFAILED: some sign-ups did not succeed');
      process.exitCode = 1;
    }
  } else if (values['stale-statistics']) {
    const postgres = postgresOnly('--stale-statistics');
    // The warm-up outlasts the service's first ANALYZE (10 s after the seed's, polled every 5 s).
    const [slices, warmup] = values.quick ? [3, 15] : [15, 20];
    if ((await runStaleStatistics(postgres, slices, warmup, loader, command, log, !values.quick)) > 0) {
      log('\nFAILED: some sign-ups did not succeed, or a second had none');
      process.exitCode = 1;
    }
  } else if (values.retention) {
    const rows = Number(values.rows ?? 1_000_000);
    if (!Number.isInteger(rows) || rows < 1_000) throw new Error('--rows takes a whole number of rows, at least 1000');
    await runRetention(runnable, rows, command, log, values.rows === undefined);
  } else if (values.growth) {
    const sizes = (values.sizes ?? '10000,100000,1000000').split(',').map((s) => Number(s.trim()));
    if (sizes.some((n) => !Number.isInteger(n) || n < 2_000)) throw new Error('--sizes takes whole numbers of participants, each at least 2000');
    await runGrowth(runnable, sizes, loader, command, log, only);
  } else if (values.compare !== undefined) {
    const timing = values.quick ? { connections: 50, warmupSeconds: 0.5, pairs: 2, sliceSeconds: 0.75 } : { connections: 50, warmupSeconds: 3, pairs: 10, sliceSeconds: 2 };
    log(machine(command));
    const { report, failedRequests } = await runCompare(runnable, loader, values.compare, timing, log, only, values.webhook);
    log(`\n${report}`);
    if (failedRequests > 0) {
      log(`\nFAILED: ${failedRequests} requests did not succeed`);
      process.exitCode = 1;
    }
  } else if (values.profile) {
    await runProfile(runnable, loader, command, log, only, values['keep-profiles']);
  } else {
    await runRoutes(values.quick, only);
  }
} finally {
  loader.close();
}

async function runRoutes(quick: boolean, only?: string[]): Promise<void> {
  const timing: Timing = quick ? { connections: 50, warmupSeconds: 0.5, seconds: 1.5, pairs: 2 } : { connections: 50, warmupSeconds: 3, seconds: 10, pairs: 5 };
  const header = machine(command);
  log(header);
  const reports: KindReport[] = [];
  for (const kind of runnable) {
    log(`\n[${kind.name}] ${timing.connections} connections; per route ${timing.warmupSeconds} s warm-up each for it and its baseline, then ${timing.pairs} pairs of ${timing.seconds / timing.pairs} s slices`);
    reports.push(await benchKind(kind, loader, timing, log, only));
  }
  const body = [
    header,
    `- ${timing.connections} connections; per route ${timing.warmupSeconds} s warm-up of the route and of its baseline, then ${timing.seconds} s of each measured in ${timing.pairs} pairs of slices; load generator, service and baseline each in their own process; rate limits off; the service's database seeded with 2,000 participants (one with 1,000 referrals). Sign-ups and the new-visitor validateCode send each request from an address of its own (X-Forwarded-For; the service trusts one proxy hop); other routes come from one address. Server CPU is the service's (or baseline's) process CPU time over the measured slices, per request (on PostgreSQL the database server's own CPU is not in it).`,
    `- Each ratio compares a route with the baseline it is judged against, on the same database kind, measured in turns: after both are warmed up, ${timing.pairs} pairs of slices, which of the two goes first alternating (B R, R B, ...) so that a steady drift cancels. Each pair gives a ratio, and the route's is the median of them, which a slice caught in a burst of other load on this shared machine does not move. req/s is the median slice's (p50, p99 and the mean are over all the slices' answers, below); a baseline row gathers every slice of that baseline (the range shows the drift). The targets are listed under "Current figures".`,
    `- On SQLite the writes are judged against the INSERT run as a unit of the service's own group commit (bare + one INSERT, group-committed): a durable write through the mechanism the service writes with, with nothing else to do; the INSERT that commits alone is measured once beside it at ${timing.connections} connections (${timing.seconds} s after a warm-up), for reference only. The INSERT baseline is also measured once with one connection (when a route is judged against it): each INSERT then waits for its own fsync and nothing else, so its latencies are the disk's, a floor under any answer given only once its write is on disk (sign-ups, qualify).`,
    `- Latencies are autocannon's own timings of each 2xx answer, to the microsecond, taken together over a route's slices (p50, p99, mean). With every connection always waiting for one answer, the mean latency is the connections over req/s (Little's law): a p99 under 25 ms needs a mean well under 25 ms, so at ${timing.connections} connections a route must answer well over ${Math.round((timing.connections * 1000) / 25)} requests a second to meet it.`,
    ...reports.map((r) => `\n### ${KIND_TITLES[r.kind]}\n\n${markdown(r)}`),
  ].join('\n');
  log(`\n${body}`);
  if (!quick && !only) writeSection('Routes', body);
  const failed = reports.flatMap(failures);
  if (failed.length > 0) {
    log(`\nFAILED: some requests did not succeed:\n${failed.join('\n')}`);
    process.exitCode = 1;
  }
}
