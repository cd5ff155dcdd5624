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
  /** A service route's baseline (the mean of its two measurements) and target. */
  baseline?: { name: string; result: LoadResult; target: number };
  /** A baseline row's two measurements, before and after the routes. */
  drift?: { before: LoadResult; after: LoadResult };
}

export interface KindReport {
  kind: string;
  rows: RouteRow[];
}

/** The routes whose names start with one of `only` (every route without it), in their usual order. */
export function pickRoutes(routes: Route[], only?: string[]): Route[] {
  const picked = only ? routes.filter((r) => only.some((name) => r.name.startsWith(name))) : routes;
  if (picked.length === 0) throw new Error(`no route named ${only!.join(' or ')} in bench/routes.ts`);
  return picked;
}

/**
 * Measures the baselines, then the service's routes, then the baselines again, on fresh databases of one
 * kind; with `only`, just those routes and the baselines they are judged against (bare JSON always, as
 * the first row). A route's ratio is to the mean of its baseline's two measurements, which bracket the
 * routes in time: a machine shared with others drifts over the minutes a run takes, and the two
 * measurements show by how much.
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
    const needed = (Object.keys(loads) as Baseline[]).filter((b) => b === 'json' || routes.some((r) => r.baseline === b));
    const measureBaselines = async (when: string) => {
      const baseline = await startBaseline(baseDb.url, baseSeed.campaignId);
      try {
        const results = {} as Record<Baseline, LoadResult>;
        for (const b of needed) results[b] = await measure(`${BASELINE_NAMES[b]} (${when})`, baseline, loads[b]);
        return results;
      } finally {
        await baseline.stop();
      }
    };

    const before = await measureBaselines('before');
    const service = await startService(serviceDb.url);
    const measured: { route: Route; result: LoadResult }[] = [];
    try {
      for (const route of routes) measured.push({ route, result: await measure(route.name, service, route.load) });
    } finally {
      await service.stop();
    }
    const after = await measureBaselines('after');
    const baselineRow = (b: Baseline): RouteRow => ({ name: BASELINE_NAMES[b], result: meanOf(before[b], after[b]), drift: { before: before[b], after: after[b] } });
    const baselines = Object.fromEntries(needed.map((b) => [b, baselineRow(b)])) as Record<Baseline, RouteRow>;
    const rows: RouteRow[] = [
      ...needed.map((b) => baselines[b]),
      ...measured.map(({ route, result }) => {
        const { name, result: judgedBy } = baselines[route.baseline];
        return { name: route.name, result, baseline: { name, result: judgedBy, target: route.target } };
      }),
    ];
    return { kind: kind.name, rows };
  } finally {
    await baseDb.drop();
    await serviceDb.drop();
  }
}

/** Two measurements of one load as one: throughput, latencies and CPU averaged, counts added. */
function meanOf(a: LoadResult, b: LoadResult): LoadResult {
  const mean = (x: number, y: number) => (x + y) / 2;
  const statuses = { ...a.statuses };
  for (const [code, n] of Object.entries(b.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    rps: mean(a.rps, b.rps),
    p50: mean(a.p50, b.p50),
    p99: mean(a.p99, b.p99),
    requests: a.requests + b.requests,
    allRequests: a.allRequests + b.allRequests,
    cpuMicrosPerRequest: a.cpuMicrosPerRequest !== undefined && b.cpuMicrosPerRequest !== undefined ? mean(a.cpuMicrosPerRequest, b.cpuMicrosPerRequest) : undefined,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    statuses,
  };
}

/** Requests that failed: any non-2xx answer or connection error is a broken harness or a broken route. */
export function failures(report: KindReport): string[] {
  return report.rows
    .filter((r) => r.result.non2xx > 0 || r.result.errors > 0)
    .map((r) => `[${report.kind}] ${r.name}: ${r.result.non2xx} non-2xx (${JSON.stringify(r.result.statuses)}), ${r.result.errors} errors`);
}

export function markdown(report: KindReport): string {
  const json = report.rows[0]!.result.rps;
  const rows = report.rows.map((r) => {
    const ratio = r.baseline ? r.result.rps / r.baseline.result.rps : r.result.rps / json;
    const against = r.baseline ? r.baseline.name : 'bare Fastify JSON';
    const target = r.baseline ? `>= ${r.baseline.target.toFixed(1)}x: ${ratio >= r.baseline.target ? 'met' : 'missed'}` : '';
    const p99 = r.baseline ? (r.result.p99 < P99_TARGET_MS ? 'met' : 'missed') : '';
    const cpu = r.result.cpuMicrosPerRequest;
    const baseCpu = r.baseline?.result.cpuMicrosPerRequest;
    const cpuRatio = cpu !== undefined && baseCpu !== undefined ? `${(baseCpu / cpu).toFixed(2)}x` : '';
    const reqs = r.drift ? `${rps(r.result.rps)} (${rps(r.drift.before.rps)} before, ${rps(r.drift.after.rps)} after)` : rps(r.result.rps);
    return [r.name, reqs, ms(r.result.p50), ms(r.result.p99), against, `${ratio.toFixed(2)}x`, target, p99, cpu?.toFixed(0) ?? '', cpuRatio];
  });
  return table(['route', 'req/s', 'p50 ms', 'p99 ms', 'ratio to', 'ratio', 'target', `p99 < ${P99_TARGET_MS} ms`, 'server CPU µs/req', 'CPU ratio'], rows);
}
