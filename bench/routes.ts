/**
 * The route benchmark: every hot route of the service next to the baseline it is judged against, both
 * measured in this run on the same database kind, with the load generator in its own process.
 */
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import type { LoadResult, LoadSpec, Loader } from './loader.js';
import { ms, rps, table } from './report.js';
import { seed, type Seeded } from './seed.js';
import { startBaseline, startService, type Server } from './servers.js';

export interface Timing {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

type Baseline = 'json' | 'point' | 'page' | 'insert';
const BASELINE_NAMES: Record<Baseline, string> = {
  json: 'bare Fastify JSON',
  point: 'bare + one point read',
  page: 'bare + one page read (20 rows)',
  insert: 'bare + one INSERT',
};

/** The targets of issue 10: a share of the baseline's throughput, and p99 under 25 ms for every route. */
export const P99_TARGET_MS = 25;
interface Route {
  name: string;
  baseline: Baseline;
  target: number;
  load: Omit<LoadSpec, 'origin' | keyof Timing>;
}

/** How many seeded participants the reads and the qualify calls go round. */
const ROTATION = 100;
const PLAN = { participants: 2_000, hubReferrals: 1_000 };

const rotate = <T>(f: (i: number) => T, from = 0) => Array.from({ length: ROTATION }, (_, i) => f(from + i));

function baselineLoads(s: Seeded): Record<Baseline, Route['load']> {
  return {
    json: { paths: ['/json'] },
    point: { paths: rotate((i) => `/point?email=${encodeURIComponent(s.email(i))}`) },
    page: { paths: ['/page'] },
    insert: { paths: ['/insert'], method: 'POST', bodyTemplates: ['{"email":"b{n}@bench.example"}'] },
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
    target: 1.0,
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
    { name: 'getCampaign', baseline: 'point', target: 0.8, load: { paths: [`/api/v1/getCampaign?id=${id}`] } },
    // Keyless, as the widget calls it: a visitor's first check of a code in a day counts an impression;
    // here one visitor checks 100 codes again and again, then every call is a new visitor's.
    { name: 'validateCode', baseline: 'point', target: 0.8, load: { paths: codeChecks } },
    { name: 'validateCode (a new visitor each call)', baseline: 'point', target: 0.8, load: { distinctClients: true, paths: codeChecks } },
    { name: 'getParticipant', baseline: 'point', target: 0.8, load: { headers: auth, paths: rotate((i) => `/api/v1/getParticipant?id=${id}&email=${q(s.email(i))}`) } },
    { name: 'getAllParticipants (first page)', baseline: 'page', target: 0.8, load: { headers: auth, paths: [`/api/v1/getAllParticipants?id=${id}`] } },
    { name: 'getReferrals (first page)', baseline: 'page', target: 0.8, load: { headers: auth, paths: [`/api/v1/getReferrals?id=${id}&email=${q(s.email(0))}`] } },
    // Referred by 100 different participants in turn, as sign-ups arrive from many share links.
    signups('addParticipant (new, referred, keyless)', rotate((i) => s.code(i), 1)),
    // Every sign-up adds to the same referrer's count: one link gone viral.
    signups('addParticipant (new, all referred by one)', [s.code(0)]),
    {
      name: 'qualifyParticipant (repeated, amountPaid)',
      baseline: 'insert',
      target: 1.0,
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
  result: LoadResult;
  /** A service route's baseline (the mean of the measurements taken just before and just after it) and target. */
  baseline?: { name: string; result: LoadResult; target: number };
  /** A baseline row's measurements, in the order they were taken (its result is their mean). */
  measurements?: LoadResult[];
}

export interface KindReport {
  kind: string;
  connections: number;
  rows: RouteRow[];
}

/** The routes whose names start with one of `only` (every route without it), in their usual order. */
export function pickRoutes(routes: Route[], only?: string[]): Route[] {
  const picked = only ? routes.filter((r) => only.some((name) => r.name.startsWith(name))) : routes;
  if (picked.length === 0) throw new Error(`no route named ${only!.join(' or ')} in bench/routes.ts`);
  return picked;
}

/**
 * Measures the service's routes on a fresh database of one kind, each between two measurements of the
 * baseline it is judged against, and judges it against their mean; with `only`, just those routes. A
 * machine shared with others drifts over the minutes a run takes (a bare point read has measured 16.9k
 * req/s before the routes and 10.8k after them), so a baseline measured next to its route moves with it.
 * Routes with the same baseline follow one another and share the measurement between them: B R B R B.
 * Bare JSON is measured first and last, for scale. Both servers run throughout, idle when not measured.
 */
export async function benchKind(kind: DatabaseKind, loader: Loader, timing: Timing, log: (line: string) => void, only?: string[]): Promise<KindReport> {
  const baseDb = await kind.create();
  const serviceDb = await kind.create();
  try {
    const measure = async (name: string, server: Server, load: Route['load']) => {
      const cpuBefore = server.cpuMs();
      const result = await loader.measure({ origin: server.url, ...timing, ...load });
      result.cpuMicrosPerRequest = ((server.cpuMs() - cpuBefore) * 1000) / result.allRequests;
      log(`  ${name.padEnd(44)} ${rps(result.rps).padStart(7)} req/s  p50 ${ms(result.p50)} ms  p99 ${ms(result.p99)} ms  CPU ${result.cpuMicrosPerRequest.toFixed(0)} µs/req`);
      return result;
    };
    const [baseSeed, seeded] = await Promise.all([seed(baseDb.url, PLAN), seed(serviceDb.url, PLAN)]);
    const routes = pickRoutes(serviceRoutes(seeded), only);
    const loads = baselineLoads(baseSeed);
    const taken: Record<Baseline, LoadResult[]> = { json: [], point: [], page: [], insert: [] };
    const measured: { route: Route; result: LoadResult; judgedBy: LoadResult }[] = [];
    const baseline = await startBaseline(baseDb.url, baseSeed.campaignId);
    try {
      const service = await startService(serviceDb.url);
      try {
        const take = async (b: Baseline) => {
          const result = await measure(`${BASELINE_NAMES[b]} (${taken[b].length + 1})`, baseline, loads[b]);
          taken[b].push(result);
          return result;
        };
        await take('json');
        let previous: { baseline: Baseline; after: LoadResult } | undefined;
        for (const route of routes) {
          const before = previous?.baseline === route.baseline ? previous.after : await take(route.baseline);
          const result = await measure(route.name, service, route.load);
          const after = await take(route.baseline);
          measured.push({ route, result, judgedBy: meanOf([before, after]) });
          previous = { baseline: route.baseline, after };
        }
        await take('json');
      } finally {
        await service.stop();
      }
    } finally {
      await baseline.stop();
    }
    const used = (Object.keys(taken) as Baseline[]).filter((b) => taken[b].length > 0);
    const rows: RouteRow[] = [
      ...used.map((b) => ({ name: BASELINE_NAMES[b], result: meanOf(taken[b]), measurements: taken[b] })),
      ...measured.map(({ route, result, judgedBy }) => ({ name: route.name, result, baseline: { name: BASELINE_NAMES[route.baseline], result: judgedBy, target: route.target } })),
    ];
    return { kind: kind.name, connections: timing.connections, rows };
  } finally {
    await baseDb.drop();
    await serviceDb.drop();
  }
}

/** Measurements of one load as one: throughput, latencies and CPU averaged, counts added. */
function meanOf(results: LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number) => results.reduce((sum, r) => sum + f(r), 0) / results.length;
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const sum = (f: (r: LoadResult) => number) => results.reduce((total, r) => total + f(r), 0);
  return {
    rps: mean((r) => r.rps),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    requests: sum((r) => r.requests),
    allRequests: sum((r) => r.allRequests),
    cpuMicrosPerRequest: results.every((r) => r.cpuMicrosPerRequest !== undefined) ? mean((r) => r.cpuMicrosPerRequest!) : undefined,
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
 * The report's table. "mean ms" is the mean latency that the throughput implies at this many connections,
 * each always waiting for one answer (Little's law: connections / req/s): autocannon counts whole
 * milliseconds, and a p99 can be under 25 ms only where this mean is well under it.
 */
export function markdown(report: KindReport): string {
  const json = report.rows[0]!.result.rps;
  const rows = report.rows.map((r) => {
    const ratio = r.baseline ? r.result.rps / r.baseline.result.rps : r.result.rps / json;
    const against = r.baseline ? `${r.baseline.name}: ${rps(r.baseline.result.rps)}` : 'bare Fastify JSON';
    const target = r.baseline ? `>= ${r.baseline.target.toFixed(1)}x: ${ratio >= r.baseline.target ? 'met' : 'missed'}` : '';
    const p99 = r.baseline ? (r.result.p99 < P99_TARGET_MS ? 'met' : 'missed') : '';
    const cpu = r.result.cpuMicrosPerRequest;
    const baseCpu = r.baseline?.result.cpuMicrosPerRequest;
    const cpuRatio = cpu !== undefined && baseCpu !== undefined ? `${(baseCpu / cpu).toFixed(2)}x` : '';
    const spread = r.measurements && r.measurements.length > 1 ? ` (${r.measurements.length} runs: ${r.measurements.map((m) => rps(m.rps)).join(', ')})` : '';
    const meanMs = (report.connections * 1000) / r.result.rps;
    return [r.name, `${rps(r.result.rps)}${spread}`, meanMs.toFixed(1), ms(r.result.p50), ms(r.result.p99), against, `${ratio.toFixed(2)}x`, target, p99, cpu?.toFixed(0) ?? '', cpuRatio];
  });
  return table(['route', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'ratio to (req/s next to it)', 'ratio', 'target', `p99 < ${P99_TARGET_MS} ms`, 'server CPU µs/req', 'CPU ratio'], rows);
}
