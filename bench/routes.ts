/**
 * The route benchmark: every hot route of the service next to the baseline it is judged against, both
 * measured in this run on the same database kind, with the load generator in its own process.
 */
import type { Dialect } from '../src/server/store/connect.js';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import type { LoadResult, LoadSpec, Loader } from './loader.js';
import { median, ms, quantile, rps, table } from './report.js';
import { seed, type Seeded } from './seed.js';
import { startBaseline, startService, type Server } from './servers.js';

export interface Timing {
  connections: number;
  /** Load on each server before a route's measured slices, thrown away (JIT, caches, connections). */
  warmupSeconds: number;
  /** Measured time per route, and as much for its baseline: `pairs` slices of seconds / pairs each. */
  seconds: number;
  pairs: number;
}

type Baseline = 'json' | 'point' | 'page' | 'insert';
const BASELINE_NAMES: Record<Baseline, string> = {
  json: 'bare Fastify JSON',
  point: 'bare + one point read',
  page: 'bare + one page read (20 rows)',
  insert: 'bare + one INSERT',
};
/**
 * The names of the baselines on one database kind. On SQLite the writes' baseline is the INSERT run as
 * a unit of the service's own group commit: the service group-commits its writes, so an INSERT that
 * commits alone (one fsync each) is a limit the service passes for free and judges nothing.
 */
const baselineNames = (kind: string): Record<Baseline, string> => (kind === 'sqlite' ? { ...BASELINE_NAMES, insert: GROUPED_INSERT } : BASELINE_NAMES);

/**
 * The INSERT baseline with one connection instead of many: each request waits for its own fsync and for
 * nothing else, so its p50 and p99 are the disk's, a floor for the latency of any answer given only once
 * its write is on disk (every sign-up and qualify).
 */
const ONE_INSERT_AT_A_TIME = 'bare + one INSERT, one connection';
/**
 * On SQLite, the INSERT baseline run as a unit of the service's group commit, with as many connections
 * as the routes: how fast, and how late, a durable write can answer through that mechanism alone. It is
 * what SQLite's writes are judged against; the INSERT that commits alone is measured once beside it, for
 * reference (SOLO_INSERT).
 */
const GROUPED_INSERT = 'bare + one INSERT, group-committed';
/** On SQLite, the INSERT committed alone (each its own fsync) at the routes' connections: measured once, no longer a judge. */
const SOLO_INSERT = 'bare + one INSERT, each committed alone';

/** The targets (BENCHMARKS.md, "Current figures"): a share of the baseline's throughput, and p99 under 25 ms for every route. */
export const P99_TARGET_MS = 25;
export interface Route {
  name: string;
  baseline: Baseline;
  /** The least ratio to its baseline asked of the route, by database dialect. */
  target: Record<Dialect, number>;
  load: Omit<LoadSpec, 'origin' | keyof Timing>;
}

/** Reads: 0.8x their bare read. Writes: 0.8x the bare durable INSERT (on SQLite, the group-committed one). */
export const READ: Route['target'] = { sqlite: 0.8, postgres: 0.8 };
const WRITE: Route['target'] = { sqlite: 0.8, postgres: 0.8 };

/** How many seeded participants the reads and the qualify calls go round. */
const ROTATION = 100;
export const PLAN = { participants: 2_000, hubReferrals: 1_000 };

const rotate = <T>(f: (i: number) => T, from = 0) => Array.from({ length: ROTATION }, (_, i) => f(from + i));

const soloInsertLoad: Route['load'] = { paths: ['/insert'], method: 'POST', bodyTemplates: ['{"email":"b{n}@bench.example"}'] };

export function baselineLoads(s: Seeded, kind: string): Record<Baseline, Route['load']> {
  return {
    json: { paths: ['/json'] },
    point: { paths: rotate((i) => `/point?email=${encodeURIComponent(s.email(i))}`) },
    page: { paths: ['/page'] },
    insert: kind === 'sqlite' ? { paths: ['/insert-grouped'], method: 'POST', bodyTemplates: ['{"email":"g{n}@bench.example"}'] } : soloInsertLoad,
  };
}

export function serviceRoutes(s: Seeded): Route[] {
  const id = s.campaignId;
  /**
   * New keyless sign-ups (unique emails) referred by these codes in turn, each from a visitor of its own:
   * from one address, every referrer's third referee would be held as a squatter.
   */
  const signups = (name: string, referrerCodes: string[]): Route => ({
    name,
    baseline: 'insert',
    target: WRITE,
    load: {
      distinctClients: true,
      method: 'POST',
      paths: ['/api/v1/addParticipant'],
      bodyTemplates: referrerCodes.map((code) => JSON.stringify({ id, email: 'new{n}@bench.example', referredByCode: code })),
    },
  });
  const auth = { authorization: `Bearer ${s.key}` };
  const q = (email: string) => encodeURIComponent(email);
  const codeChecks = rotate((i) => `/api/v1/validateCode?campaignId=${id}&code=${s.code(i)}`);
  return [
    { name: 'getCampaign', baseline: 'point', target: READ, load: { paths: [`/api/v1/getCampaign?id=${id}`] } },
    // Keyless, as the widget calls it: a visitor's first check of a code in a day counts an impression;
    // here one visitor checks 100 codes again and again, then every call is a new visitor's.
    { name: 'validateCode', baseline: 'point', target: READ, load: { paths: codeChecks } },
    { name: 'validateCode (a new visitor each call)', baseline: 'point', target: READ, load: { distinctClients: true, paths: codeChecks } },
    { name: 'getParticipant', baseline: 'point', target: READ, load: { headers: auth, paths: rotate((i) => `/api/v1/getParticipant?id=${id}&email=${q(s.email(i))}`) } },
    { name: 'getAllParticipants (first page)', baseline: 'page', target: READ, load: { headers: auth, paths: [`/api/v1/getAllParticipants?id=${id}`] } },
    { name: 'getReferrals (first page)', baseline: 'page', target: READ, load: { headers: auth, paths: [`/api/v1/getReferrals?id=${id}&email=${q(s.email(0))}`] } },
    // Referred by 100 different participants in turn, as sign-ups arrive from many share links.
    signups('addParticipant (new, referred, keyless)', rotate((i) => s.code(i), 1)),
    // Every sign-up adds to the same referrer's count: one link gone viral.
    signups('addParticipant (new, all referred by one)', [s.code(0)]),
    {
      name: 'qualifyParticipant (repeated, amountPaid)',
      baseline: 'insert',
      target: WRITE,
      load: {
        method: 'POST',
        headers: auth,
        paths: ['/api/v1/qualifyParticipant'],
        // Referees of 100 different referrers (the hub's own referees would all wait for the hub's row).
        bodies: rotate((k) => JSON.stringify({ id, email: s.email(s.chainReferee(k)), amountPaid: '9.99' })),
      },
    },
  ];
}

export interface RouteRow {
  name: string;
  /** The slices as one: the median slice's req/s; p50, p99 and CPU over all of their requests. */
  result: LoadResult;
  /** A service route's baseline (its slices next to the route's), target, and the median of the pairs' ratios. */
  baseline?: { name: string; result: LoadResult; target: number; ratio: number };
  /** A baseline row's slices, all of them, in the order they were taken. */
  slices?: LoadResult[];
}

export interface KindReport {
  kind: string;
  connections: number;
  rows: RouteRow[];
}

/** One load on one server, with the server's CPU time per request over it. */
export async function measureOn(loader: Loader, server: Server, load: Route['load'], seconds: number, connections: number): Promise<LoadResult> {
  const cpuBefore = server.cpuMs();
  const result = await loader.measure({ origin: server.url, connections, warmupSeconds: 0, seconds, ...load });
  result.cpuMicrosPerRequest = ((server.cpuMs() - cpuBefore) * 1000) / result.allRequests;
  return result;
}

/**
 * `pairs` pairs of slices of two loads in turns, which of the two goes first alternating (T M, M T, ...)
 * so that a steady drift cancels: the slices of each, each pair's ratio of `mine` to `theirs`, and the
 * median of those ratios, which a slice caught in a burst of other load does not move.
 */
export async function inTurns(pairs: number, theirs: () => Promise<LoadResult>, mine: () => Promise<LoadResult>) {
  const taken = { theirs: [] as LoadResult[], mine: [] as LoadResult[] };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) taken.theirs.push(await theirs());
    taken.mine.push(await mine());
    if (i % 2 === 1) taken.theirs.push(await theirs());
  }
  const ratios = taken.mine.map((m, i) => m.rps / taken.theirs[i]!.rps);
  return { ...taken, ratios, ratio: median(ratios) };
}

/** The routes whose names start with one of `only` (every route without it), in their usual order. */
export function pickRoutes(routes: Route[], only?: string[]): Route[] {
  const picked = only ? routes.filter((r) => only.some((name) => r.name.startsWith(name))) : routes;
  if (picked.length === 0) throw new Error(`no route named ${only!.join(' or ')} in bench/routes.ts`);
  return picked;
}

/**
 * Measures the service's routes on a fresh database of one kind, each in pairs of short slices with the
 * baseline it is judged against; with `only`, just those routes. A machine shared with others drifts,
 * and not slowly: the same route has measured 7.1k and 13.3k req/s in consecutive 6-second runs here.
 * So, after both servers are warmed up, route and baseline take turns: `pairs` pairs of slices, which of
 * the two goes first alternating (B R, R B, B R, ...) so that a steady drift cancels; each pair gives a
 * ratio, and the route's ratio is their median, which a slice caught in a burst of load elsewhere does
 * not move. Bare JSON is measured first, for scale. Both servers run throughout, idle when not measured.
 */
export async function benchKind(kind: DatabaseKind, loader: Loader, timing: Timing, log: (line: string) => void, only?: string[]): Promise<KindReport> {
  const baseDb = await kind.create();
  const serviceDb = await kind.create();
  try {
    const slice = timing.seconds / timing.pairs;
    const run = (server: Server, load: Route['load'], seconds: number, connections = timing.connections) => measureOn(loader, server, load, seconds, connections);
    const [baseSeed, seeded] = await Promise.all([seed(baseDb.url, PLAN), seed(serviceDb.url, PLAN)]);
    const routes = pickRoutes(serviceRoutes(seeded), only);
    const loads = baselineLoads(baseSeed, kind.name);
    const names = baselineNames(kind.name);
    const taken: Record<Baseline, LoadResult[]> = { json: [], point: [], page: [], insert: [] };
    const rows: RouteRow[] = [];
    /** Rows measured once, for what they show beside the routes rather than to judge one (shown after bare JSON). */
    const alongside: RouteRow[] = [];
    const baseline = await startBaseline(baseDb.url, baseSeed.campaignId);
    try {
      const service = await startService(serviceDb.url);
      try {
        await run(baseline, loads.json, timing.warmupSeconds);
        for (let i = 0; i < timing.pairs; i++) taken.json.push(await run(baseline, loads.json, slice));
        logSlices(log, names.json, taken.json, combined(taken.json));
        if (routes.some((r) => r.baseline === 'insert')) {
          // One durable INSERT at a time: its latency is the disk's sync, under which no durable answer goes.
          await run(baseline, loads.insert, timing.warmupSeconds, 1);
          const alone = await run(baseline, loads.insert, timing.seconds, 1);
          logSlices(log, ONE_INSERT_AT_A_TIME, [alone], alone);
          alongside.push({ name: ONE_INSERT_AT_A_TIME, result: alone, slices: [alone] });
          if (kind.name === 'sqlite') {
            // Each INSERT committed alone at the routes' connections: what SQLite's writes were once judged against.
            await run(baseline, soloInsertLoad, timing.warmupSeconds);
            const solo = await run(baseline, soloInsertLoad, timing.seconds);
            logSlices(log, SOLO_INSERT, [solo], solo);
            alongside.push({ name: SOLO_INSERT, result: solo, slices: [solo] });
          }
        }
        for (const route of routes) {
          const b = route.baseline;
          await run(baseline, loads[b], timing.warmupSeconds);
          await run(service, route.load, timing.warmupSeconds);
          const { mine, theirs, ratio } = await inTurns(
            timing.pairs,
            () => run(baseline, loads[b], slice),
            () => run(service, route.load, slice),
          );
          taken[b].push(...theirs);
          const [result, judgedBy] = [combined(mine), combined(theirs)];
          logSlices(log, `${names[b]}, next to it`, theirs, judgedBy);
          logSlices(log, route.name, mine, result, ratio);
          rows.push({ name: route.name, result, baseline: { name: names[b], result: judgedBy, target: route.target[kind.dialect], ratio } });
        }
      } finally {
        await service.stop();
      }
    } finally {
      await baseline.stop();
    }
    const used = (Object.keys(taken) as Baseline[]).filter((b) => taken[b].length > 0);
    // Baselines first (bare JSON, then the INSERTs measured once, when they were), then the routes.
    const [json, ...others] = used.map((b): RouteRow => ({ name: names[b], result: combined(taken[b]), slices: taken[b] }));
    rows.unshift(json!, ...alongside, ...others);
    return { kind: kind.name, connections: timing.connections, rows };
  } finally {
    await baseDb.drop();
    await serviceDb.drop();
  }
}

/** One line of progress: the slices taken together (`c`, from combined()), then each slice's req/s. */
function logSlices(log: (line: string) => void, name: string, slices: LoadResult[], c: LoadResult, ratio?: number): void {
  const each = slices.map((s) => rps(s.rps)).join(' ');
  log(`  ${name.padEnd(48)} ${rps(c.rps).padStart(7)} req/s (${each})  p50 ${ms(c.p50)}  p99 ${ms(c.p99)} ms  CPU ${c.cpuMicrosPerRequest?.toFixed(0)} µs/req${ratio === undefined ? '' : `  ratio ${ratio.toFixed(2)}x`}`);
}

/** Slices of one load as one: the median slice's req/s; p50 and p99 of all their answers together; CPU over all their requests; counts added. */
export function combined(results: LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const sum = (f: (r: LoadResult) => number) => results.reduce((total, r) => total + f(r), 0);
  const cpuKnown = results.every((r) => r.cpuMicrosPerRequest !== undefined);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    rps: median(results.map((r) => r.rps)),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    latencies,
    requests: sum((r) => r.requests),
    allRequests: sum((r) => r.allRequests),
    cpuMicrosPerRequest: cpuKnown ? sum((r) => r.cpuMicrosPerRequest! * r.allRequests) / sum((r) => r.allRequests) : undefined,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    statuses,
  };
}

/** Requests that failed: any non-2xx answer or connection error is a broken harness or a broken route. */
export function failures(report: KindReport): string[] {
  return report.rows
    .filter((r) => r.result.non2xx > 0 || r.result.errors > 0)
    .map((r) => `[${report.kind}] ${r.name}: ${r.result.non2xx} non-2xx (${JSON.stringify(r.result.statuses)}), ${r.result.errors} errors`);
}

/**
 * The report's table. "mean ms" is the mean latency of the answers: with every connection always waiting
 * for one, it is the connections over req/s (Little's law), and a p99 can be under 25 ms only where this
 * mean is well under it.
 */
export function markdown(report: KindReport): string {
  const json = report.rows[0]!.result.rps;
  const rows = report.rows.map((r) => {
    const ratio = r.baseline ? r.baseline.ratio : r.result.rps / json;
    const against = r.baseline ? `${r.baseline.name}: ${rps(r.baseline.result.rps)}` : 'bare Fastify JSON';
    const target = r.baseline ? `>= ${r.baseline.target.toFixed(1)}x: ${ratio >= r.baseline.target ? 'met' : 'missed'}` : '';
    const p99 = r.baseline ? (r.result.p99 < P99_TARGET_MS ? 'met' : 'missed') : '';
    const cpu = r.result.cpuMicrosPerRequest;
    const baseCpu = r.baseline?.result.cpuMicrosPerRequest;
    const cpuRatio = cpu !== undefined && baseCpu !== undefined ? `${(baseCpu / cpu).toFixed(2)}x` : '';
    const range = r.slices ? r.slices.map((m) => m.rps) : [];
    const spread = range.length > 1 ? ` (${range.length} slices, ${rps(Math.min(...range))} to ${rps(Math.max(...range))})` : '';
    const answered = r.result.latencies;
    const meanMs = answered.length > 0 ? answered.reduce((a, b) => a + b, 0) / answered.length : (report.connections * 1000) / r.result.rps;
    return [r.name, `${rps(r.result.rps)}${spread}`, meanMs.toFixed(1), ms(r.result.p50), ms(r.result.p99), against, `${ratio.toFixed(2)}x`, target, p99, cpu?.toFixed(0) ?? '', cpuRatio];
  });
  return table(['route', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'ratio to (its slices\' median)', 'ratio', 'target', `p99 < ${P99_TARGET_MS} ms`, 'server CPU µs/req', 'CPU ratio'], rows);
}
