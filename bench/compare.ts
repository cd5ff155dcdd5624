/**
 * `npm run bench -- --compare REV`: the working tree's service (B) against another revision's (A), on
 * the same routes, to judge a change by itself on a machine whose speed moves. REV is built in a git
 * worktree of its own (sharing this checkout's node_modules), and each service gets a database seeded
 * by its own revision's bench/seed.ts, so that each migrates only what it knows.
 *
 * Both services run at once and take turns: after a warm-up of each, pairs of slices, which of the two
 * goes first alternating, and the median of the pairs' B/A ratios. Which service was started second
 * matters by itself (an A/A run of two alike gave the second-started one up to 1.1x the req/s and a p99
 * 13-18 ms lower, BENCHMARKS.md), so the whole comparison runs twice, once with each started first, on
 * fresh databases. Writes nothing; prints a table.
 *
 * With `webhook`, each database also gets one webhook endpoint that takes every event type, at a
 * receiver this process runs (it answers 204): what a program with webhooks pays, the events with their
 * deliveries written and each service's dispatcher sending them.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import type { LoadResult, Loader } from './loader.js';
import { KIND_TITLES, ms, rps, table } from './report.js';
import { PLAN, combined, inTurns, measureOn, pickRoutes, serviceRoutes } from './routes.js';
import { WEBHOOK_EVENT_TYPES } from '../src/api/schemas.js';
import { connect } from '../src/server/store/connect.js';
import { CAMPAIGN_ID, seed } from './seed.js';
import { startService, type Server } from './servers.js';
import { buildRevision } from '../scripts/revision.js';

/** Compared when no --routes is given: the route this comparison was made for. */
const DEFAULT_ROUTES = ['addParticipant (new, referred'];

export interface CompareTiming {
  connections: number;
  warmupSeconds: number;
  /** Pairs of slices per route, and each slice's length. */
  pairs: number;
  sliceSeconds: number;
}

/** Seeds `url` with REV's own seeding code (its migrations), as the working tree's seed() does for B. */
function seedWithRevision(dir: string, url: string): void {
  // Evaluated as CommonJS (a dynamic import, no --input-type): the checkpoint worker's own code is
  // evaluated with the process's flags, and as a module it would have no require.
  const script = `import('./bench/seed.ts').then(({ seed }) => seed(process.argv[1], ${JSON.stringify(PLAN)}));`;
  execFileSync(process.execPath, ['--import', 'tsx', '-e', script, url], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}

interface CompareRow {
  route: string;
  first: 'A' | 'B';
  a: LoadResult;
  b: LoadResult;
  ratio: number;
}

export async function runCompare(
  kinds: DatabaseKind[],
  loader: Loader,
  rev: string,
  timing: CompareTiming,
  log: (line: string) => void,
  only?: string[],
  webhook = false,
): Promise<{ report: string; failedRequests: number }> {
  const revision = buildRevision(rev, log);
  const receiver = webhook ? await startReceiver() : undefined;
  try {
    const sections: string[] = [];
    let failedRequests = 0;
    for (const kind of kinds) {
      const rows: CompareRow[] = [];
      for (const first of ['A', 'B'] as const) rows.push(...(await compareOnce(kind, loader, revision.dir, first, timing, log, only, receiver?.url)));
      sections.push(`### ${KIND_TITLES[kind.name]}\n\n${compareTable(rows)}`);
      failedRequests += rows.reduce((n, r) => n + failed(r), 0);
    }
    const report = [
      `A: ${rev} (${revision.sha.slice(0, 7)}); B: the working tree. ${timing.connections} connections; per route ${timing.warmupSeconds} s warm-up of each, then ${timing.pairs} pairs of ${timing.sliceSeconds} s slices in turns; the whole run once with A started first and once with B.${receiver ? ` Each database has a webhook endpoint taking every event type, at a receiver answering 204 (${receiver.received()} deliveries received).` : ''}`,
      ...sections,
    ].join('\n\n');
    // With an endpoint, the services must have sent to it: otherwise the run did not measure webhooks at all.
    if (receiver && receiver.received() === 0) throw new Error('--webhook: the receiver got no delivery');
    return { report, failedRequests };
  } finally {
    await receiver?.close();
    revision.remove();
  }
}

/** A webhook receiver that answers every delivery 204 at once, counting them. */
async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One endpoint of the seeded campaign's account, taking every event type, as `refkit webhook add` makes. */
async function addEndpoint(url: string, target: string): Promise<void> {
  const { db, close } = connect(url);
  try {
    const { account_id } = await db.selectFrom('campaigns').select('account_id').where('id', '=', CAMPAIGN_ID).executeTakeFirstOrThrow();
    await db
      .insertInto('webhook_endpoints')
      .values({ id: 'wh_bench', account_id, url: target, event_types: JSON.stringify(WEBHOOK_EVENT_TYPES), secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`, created_on: Date.now(), deleted_on: null })
      .execute();
  } finally {
    await close();
  }
}

async function compareOnce(
  kind: DatabaseKind,
  loader: Loader,
  revisionDir: string,
  first: 'A' | 'B',
  timing: CompareTiming,
  log: (line: string) => void,
  only?: string[],
  webhookTarget?: string,
): Promise<CompareRow[]> {
  // A's database starts empty: REV migrates it with its own migrations, which may be older than these.
  const dbs = { A: await kind.createEmpty(), B: await kind.create() };
  const servers: Partial<Record<'A' | 'B', Server>> = {};
  try {
    seedWithRevision(revisionDir, dbs.A.url);
    const seeded = await seed(dbs.B.url, PLAN);
    if (webhookTarget) for (const db of Object.values(dbs)) await addEndpoint(db.url, webhookTarget);
    // The receiver is on loopback, which a service refuses to send to unless told otherwise.
    const env: Record<string, string> = webhookTarget ? { WEBHOOK_ALLOW_PRIVATE: 'true' } : {};
    const start = (side: 'A' | 'B') => startService(dbs[side].url, [], side === 'A' ? join(revisionDir, 'dist/server/cli.js') : undefined, env);
    for (const side of first === 'A' ? (['A', 'B'] as const) : (['B', 'A'] as const)) servers[side] = await start(side);
    const rows: CompareRow[] = [];
    for (const route of pickRoutes(serviceRoutes(seeded), only ?? DEFAULT_ROUTES)) {
      const run = (side: 'A' | 'B', seconds: number) => measureOn(loader, servers[side]!, route.load, seconds, timing.connections);
      await run('A', timing.warmupSeconds);
      await run('B', timing.warmupSeconds);
      const { theirs, mine, ratios, ratio } = await inTurns(
        timing.pairs,
        () => run('A', timing.sliceSeconds),
        () => run('B', timing.sliceSeconds),
      );
      const row = { route: route.name, first, a: combined(theirs), b: combined(mine), ratio };
      log(`[${kind.name}] ${first} started first, ${row.route}: B/A ${row.ratio.toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`);
      rows.push(row);
    }
    return rows;
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    await dbs.A.drop();
    await dbs.B.drop();
  }
}

const failed = (r: CompareRow) => r.a.non2xx + r.a.errors + r.b.non2xx + r.b.errors;

function compareTable(rows: CompareRow[]): string {
  const arrow = (a: string, b: string) => `${a} -> ${b}`;
  return table(
    ['route', 'started first', 'req/s, A -> B', 'B/A (median of pairs)', 'server CPU µs/req, A -> B', 'p50 ms, A -> B', 'p99 ms, A -> B', 'failed requests, A + B'],
    rows.map((r) => [
      r.route,
      r.first,
      arrow(rps(r.a.rps), rps(r.b.rps)),
      `${r.ratio.toFixed(3)}x`,
      arrow(r.a.cpuMicrosPerRequest?.toFixed(0) ?? '', r.b.cpuMicrosPerRequest?.toFixed(0) ?? ''),
      arrow(ms(r.a.p50), ms(r.b.p50)),
      arrow(ms(r.a.p99), ms(r.b.p99)),
      String(failed(r)),
    ]),
  );
}
