/**
 * `npm run bench -- --growth`: the same routes on databases of growing size (10k, 100k, 1M participants
 * by default), to show which of them slow down as a campaign grows. Latency at a moderate load (10
 * connections) rather than throughput: a route that scans grows in latency long before it saturates.
 */
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import type { LoadResult, Loader } from './loader.js';
import { KIND_TITLES, machine, ms, table, writeSection } from './report.js';
import { MAX_PAGE_OFFSET } from '../src/server/kernel/paging.js';
import { READ, serviceRoutes } from './routes.js';
import { seed, type Seeded } from './seed.js';
import { startService } from './servers.js';

const TIMING = { connections: 10, warmupSeconds: 1, seconds: 3 };
const HUB_REFERRALS = 1_000;
/** Deep means near the end: 90% of the way through the campaign's participants. */
const DEEP = 0.9;
/**
 * A deep `page=`: near the deepest the service answers (past MAX_PAGE_OFFSET rows, `page` is refused
 * with a pointer to `cursor`), and within the smallest size, so that every size returns a full page.
 */
const DEEP_PAGE = Math.floor((0.8 * MAX_PAGE_OFFSET) / 20);

function growthRoutes(s: Seeded) {
  const routes = serviceRoutes(s).filter((r) => r.baseline !== 'insert' || r.name.startsWith('addParticipant'));
  const auth = { authorization: `Bearer ${s.key}` };
  const deep = Math.floor(s.participants * DEEP);
  const list = routes.findIndex((r) => r.name.startsWith('getAllParticipants'));
  routes.splice(
    list + 1,
    0,
    { ...routes[list]!, name: `getAllParticipants (page=${DEEP_PAGE}, 8,000 rows in)`, load: { headers: auth, paths: [`/api/v1/getAllParticipants?id=${s.campaignId}&page=${DEEP_PAGE}`] } },
    { ...routes[list]!, name: 'getAllParticipants (cursor at 90%)', load: { headers: auth, paths: [`/api/v1/getAllParticipants?id=${s.campaignId}&cursor=${s.cursorAfter(deep)}`] } },
  );
  routes.push(
    { name: 'getLeaderboard', baseline: 'point', target: READ, load: { paths: [`/api/v1/getLeaderboard?id=${s.campaignId}`] } },
    {
      name: 'getMyReferrals (rank and waitlist position at 90%)',
      baseline: 'point',
      target: READ,
      load: { method: 'POST', headers: { 'refkit-participant-token': s.token }, paths: ['/api/v1/getMyReferrals'], bodies: [JSON.stringify({ id: s.campaignId })] },
    },
  );
  return routes;
}

/**
 * The mean time a request took, from Little's law: the connections each wait for their answer, so the
 * mean latency is connections over throughput. It is the judged figure: it covers every answer, where a
 * p50 is one of them (and autocannon's own p50, in whole milliseconds, read 1 ms for a 1.4 ms route at
 * one size and 2 ms at another; bench/load.ts now times each answer to the microsecond).
 */
const meanMs = (r: LoadResult) => (TIMING.connections / r.rps) * 1000;

/** A route's figures at one size: latencies, or what went wrong instead. */
function cell(r: LoadResult): string {
  const figures = `${ms(r.p50)} / ${ms(r.p99)} / ${meanMs(r).toFixed(2)}`;
  if (r.non2xx === 0 && r.errors === 0) return figures;
  const statuses = Object.entries(r.statuses).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${n}x ${code}`);
  return `${figures} (${[...statuses, ...(r.errors ? [`${r.errors} errors`] : [])].join(', ')})`;
}

/** `only`: the routes whose names start with one of these (--routes); such a partial run writes no file. */
export async function runGrowth(kinds: DatabaseKind[], sizes: number[], loader: Loader, command: string, log: (line: string) => void, only?: string[]): Promise<void> {
  const header = machine(command);
  log(header);
  const sections: string[] = [];
  for (const kind of kinds) {
    const byRoute = new Map<string, LoadResult[]>();
    for (const size of sizes) {
      const db = await kind.create();
      try {
        const started = Date.now();
        const seeded = await seed(db.url, { participants: size, hubReferrals: HUB_REFERRALS, waitlist: true });
        log(`\n[${kind.name}] ${size.toLocaleString('en')} participants seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        const service = await startService(db.url);
        try {
          for (const route of growthRoutes(seeded).filter((r) => !only || only.some((o) => r.name.startsWith(o)))) {
            const key = route.name;
            const result = await loader.measure({ origin: service.url, ...TIMING, ...route.load });
            log(`  ${key.padEnd(44)} p50 ${ms(result.p50)} ms  p99 ${ms(result.p99)} ms  mean ${meanMs(result).toFixed(2)} ms${result.non2xx ? `  ${JSON.stringify(result.statuses)}` : ''}`);
            byRoute.set(key, [...(byRoute.get(key) ?? []), result]);
          }
        } finally {
          await service.stop();
        }
      } finally {
        await db.drop();
      }
    }
    const rows = [...byRoute].map(([name, results]) => [
      name,
      ...results.map(cell),
      `${(meanMs(results[results.length - 1]!) / meanMs(results[0]!)).toFixed(2)}x`,
    ]);
    const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));
    sections.push(
      `### ${KIND_TITLES[kind.name]}\n\n${table(['route (p50 / p99 / mean ms)', ...sizes.map(label), `mean ${label(sizes[sizes.length - 1]!)} / ${label(sizes[0]!)}`], rows)}`,
    );
  }
  const body = [
    header,
    `- ${TIMING.connections} connections; per route ${TIMING.warmupSeconds} s warm-up, then ${TIMING.seconds} s measured. Each size is a fresh database seeded directly (bench/seed.ts): referral chains of ten, one participant with ${HUB_REFERRALS.toLocaleString('en')} referrals (getReferrals reads theirs).`,
    `- p50 and p99 of the 2xx answers, each timed to the microsecond; the mean is ${TIMING.connections} connections over the measured req/s (Little's law), which covers every answer.`,
    '- Target: every route within 1.5x from the smallest to the largest size (last column, on the mean).',
    ...sections.map((s) => `\n${s}`),
  ].join('\n');
  log(`\n${body}`);
  if (!only) writeSection('Growth', body);
}
