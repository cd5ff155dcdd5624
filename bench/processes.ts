/**
 * `npm run bench -- --processes 1,2,4 --db postgres`: N `refkit serve` processes on one PostgreSQL,
 * each driven by a load generator of its own (autocannon, each in its own process, the connections split
 * between them), on new sign-ups and repeated qualifications. For each N: req/s summed over the
 * generators, p50/p99 of all their answers together, the ratio to one process, and where the machine's
 * CPU went (the services', the database backends', the generators') against the cores there are: what
 * says whether more processes could go faster here, and what stops them.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { startLoader, type LoadResult, type Loader } from './loader.js';
import { observePostgres, type PgWindow } from './pg-cost.js';
import { machine, ms, rps, table, writeSection } from './report.js';
import { countRoundTrips, type RoundTrips } from './round-trips.js';
import { PLAN, combined, pickRoutes, serviceRoutes, type Route } from './routes.js';
import { seed } from './seed.js';
import { processCpuMs, startService, type Server } from './servers.js';

export interface ProcessesTiming {
  /** Connections in all, split evenly between the processes (48: whole for 1, 2, 3, 4, 6 and 8). */
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

/** The loads measured: sign-ups from many links, sign-ups all through one link, paid qualifications. */
const ROUTES = ['addParticipant (new, referred, keyless)', 'addParticipant (new, all referred by one)', 'qualifyParticipant (repeated, amountPaid)'];
/** Where each generator's numbering starts (bench/loader.ts): far enough apart that no two send one email. */
const NUMBERING_STRIDE = 50_000_000;

interface Row {
  processes: number;
  route: string;
  result: LoadResult;
  /** CPU per request, in µs: the service processes', the database backends', the load generators'. */
  serviceUs: number;
  postgresUs?: number;
  loaderUs: number;
  /** The machine's busy share over the run, of all its cores (from /proc/stat), in percent. */
  busyPercent: number;
  pg: PgWindow;
}

/** Busy and total jiffies of all the machine's cores so far (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the fourth and fifth fields.
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** Several generators' results as one: as combined() takes slices, but their req/s added (they ran at the same time). */
const together = (results: LoadResult[]): LoadResult => ({ ...combined(results), rps: results.reduce((t, r) => t + r.rps, 0) });

/** One load on every server at once, each from its own generator; the CPU of everything involved over the measured run. */
async function measureAll(servers: Server[], loaders: Loader[], load: Route['load'], timing: ProcessesTiming, pgUrl: string): Promise<Omit<Row, 'processes' | 'route'>> {
  const each = (seconds: number) => Promise.all(servers.map((s, i) => loaders[i]!.measure({ origin: s.url, connections: timing.connections / servers.length, warmupSeconds: 0, seconds, ...load })));
  if (timing.warmupSeconds > 0) await each(timing.warmupSeconds);
  const observer = await observePostgres(pgUrl);
  try {
    const cpu = () => ({ service: servers.reduce((t, s) => t + s.cpuMs(), 0), loader: loaders.slice(0, servers.length).reduce((t, l) => t + processCpuMs(l.pid), 0), ticks: machineTicks() });
    const closeWindow = await observer.open();
    const before = cpu();
    const result = together(await each(timing.seconds));
    const after = cpu();
    const pg = await closeWindow();
    const perRequest = (msTotal: number) => (msTotal * 1000) / result.requests;
    return {
      result,
      serviceUs: perRequest(after.service - before.service),
      ...(pg.backendCpuMs !== undefined && { postgresUs: perRequest(pg.backendCpuMs) }),
      loaderUs: perRequest(after.loader - before.loader),
      busyPercent: (100 * (after.ticks.busy - before.ticks.busy)) / (after.ticks.total - before.ticks.total),
      pg,
    };
  } finally {
    await observer.close();
  }
}

export async function runProcesses(kind: DatabaseKind, counts: number[], first: Loader, timing: ProcessesTiming, command: string, log: (line: string) => void, write: boolean): Promise<number> {
  const most = Math.max(...counts);
  const loaders = [first, ...Array.from({ length: most - 1 }, (_, i) => startLoader((i + 1) * NUMBERING_STRIDE))];
  const rows: Row[] = [];
  const trips = await countRoundTrips(kind);
  log(`  statements per call: ${Object.entries(trips).map(([load, n]) => `${load} ${n.toFixed(2)}`).join('; ')}`);
  try {
    for (const n of counts) {
      for (const name of ROUTES) {
        // A fresh database for each measurement: sign-ups measured earlier would make the next table bigger.
        const db = await kind.create();
        try {
          const seeded = await seed(db.url, PLAN);
          const [route] = pickRoutes(serviceRoutes(seeded), [name]);
          const servers = await Promise.all(Array.from({ length: n }, () => startService(db.url)));
          try {
            const row = { processes: n, route: route!.name, ...(await measureAll(servers, loaders, route!.load, timing, db.url)) };
            rows.push(row);
            log(`  ${String(n)} x serve  ${row.route.padEnd(44)} ${rps(row.result.rps).padStart(7)} req/s  p50 ${ms(row.result.p50)}  p99 ${ms(row.result.p99)} ms  CPU µs/req: service ${row.serviceUs.toFixed(0)}, postgres ${row.postgresUs?.toFixed(0) ?? '?'}, load generators ${row.loaderUs.toFixed(0)}; machine ${row.busyPercent.toFixed(0)}% busy`);
          } finally {
            await Promise.all(servers.map((s) => s.stop()));
          }
        } finally {
          await db.drop();
        }
      }
    }
  } finally {
    for (const l of loaders.slice(1)) l.close();
  }
  // A row with no answer at all (every request outlasted the run) measured nothing: not a figure to
  // write. --quick asserts no speed (a busy machine may answer none of a load's calls within its 2 s).
  const failed = rows.filter((r) => (write && r.result.requests === 0) || r.result.non2xx > 0 || r.result.errors > 0);
  for (const r of failed) log(`FAILED: ${r.processes} x ${r.route}: ${r.result.non2xx} non-2xx (${JSON.stringify(r.result.statuses)}), ${r.result.errors} errors`);
  const body = [machine(command), describe(timing), '', markdown(rows, trips), '', ...limits(rows)].join('\n');
  log(`\n${body}`);
  if (write && failed.length === 0) writeSection('Processes', body);
  return failed.length;
}

function describe(timing: ProcessesTiming): string {
  const cores = cpus().length;
  return [
    `- Each row: N \`refkit serve\` processes (rate limits off) on one PostgreSQL database seeded with ${PLAN.participants.toLocaleString('en')} participants, fresh for the row; N load generators (autocannon, each in a process of its own), one per service process, ${timing.connections} connections in all split evenly; ${timing.warmupSeconds} s of warm-up, then ${timing.seconds} s measured. req/s is the generators' summed, p50 and p99 are over all their answers together.`,
    `- CPU µs/req is CPU time over the measured run per answered request: of the service processes together (/proc/<pid>/stat), of the PostgreSQL backends serving this database (their /proc/<pid>/stat; the server's own WAL writer and checkpointer are not in it), and of the load generators (what spreading the load costs). "cores used" is their sum times req/s, against ${cores} cores; "machine busy" is the whole machine's busy share over the run (/proc/stat: every process, other work on this shared machine included).`,
    '- WAL B/req: the write-ahead log this database\'s transactions wrote (pg_waldump over the run\'s span, by relation and transaction), per request. statements/req: the statements one such call sends to PostgreSQL (round trips), counted on the service run in the benchmark\'s own process over 40 calls of each kind (bench/round-trips.ts).',
  ].join('\n');
}

/** Where each process count's CPU went, summed over its loads: the service's, the database's, the generators', and the rest of the machine's. */
function limits(rows: Row[]): string[] {
  const cores = cpus().length;
  return [...new Set(rows.map((r) => r.processes))].map((n) => {
    const mine = rows.filter((r) => r.processes === n);
    const mean = (f: (r: Row) => number) => mine.reduce((t, r) => t + f(r), 0) / mine.length;
    const [service, postgres, generators] = [(r: Row) => r.serviceUs, (r: Row) => r.postgresUs ?? 0, (r: Row) => r.loaderUs].map((f) => mean((r) => (f(r) * r.result.rps) / 1e6));
    const busy = mean((r) => (r.busyPercent / 100) * cores);
    const pgPerService = mean((r) => (r.postgresUs ?? 0) / r.serviceUs);
    return `- ${n} process${n === 1 ? '' : 'es'}: of the ${cores} cores, the service used ${service!.toFixed(2)}, PostgreSQL's backends ${postgres!.toFixed(2)}, the load generators ${generators!.toFixed(2)} (the mean over the loads); the machine was ${((100 * busy) / cores).toFixed(0)}% busy, so other work took ${Math.max(0, busy - service! - postgres! - generators!).toFixed(2)}. The database's CPU per request was ${pgPerService.toFixed(2)}x the service's.`;
  });
}

function markdown(rows: Row[], trips: RoundTrips): string {
  const single = (r: Row) => rows.find((o) => o.processes === 1 && o.route === r.route);
  return table(
    ['processes', 'load', 'req/s', 'ratio to 1 process', 'p50 ms', 'p99 ms', 'service CPU µs/req', 'postgres CPU µs/req', 'load generators µs/req', 'cores used (service + postgres + generators)', 'machine busy', 'WAL B/req', 'statements/req'],
    rows.map((r) => {
      const one = single(r);
      const cores = ((r.serviceUs + (r.postgresUs ?? 0) + r.loaderUs) * r.result.rps) / 1e6;
      return [
        String(r.processes),
        r.route,
        rps(r.result.rps),
        one ? `${(r.result.rps / one.result.rps).toFixed(2)}x` : '',
        ms(r.result.p50),
        ms(r.result.p99),
        r.serviceUs.toFixed(0),
        r.postgresUs?.toFixed(0) ?? 'not on this machine',
        r.loaderUs.toFixed(0),
        `${cores.toFixed(2)} (${((r.serviceUs * r.result.rps) / 1e6).toFixed(2)} + ${(((r.postgresUs ?? 0) * r.result.rps) / 1e6).toFixed(2)} + ${((r.loaderUs * r.result.rps) / 1e6).toFixed(2)})`,
        `${r.busyPercent.toFixed(0)}%`,
        r.pg.walBytes === undefined ? '' : (r.pg.walBytes / r.result.requests).toFixed(0),
        trips[r.route]?.toFixed(2) ?? '',
      ];
    }),
  );
}
