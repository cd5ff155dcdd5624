/**
 * `npm run bench -- --profile`: where the service's main thread spends its time. The service runs under
 * `node --cpu-prof` during one load (getCampaign, then a new referred sign-up, each in a fresh process
 * so that the profiles do not mix), and so does the bare server the route is judged against, under the
 * same load; the top functions by self time, and the time by the project's own functions with what they
 * called, go to the terminal and BENCHMARKS.md.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { attribute, readProfile, topSelfTime } from './cpuprofile-top.js';
import type { Loader } from './loader.js';
import { KIND_TITLES, machine, ms, rps, table, writeSection } from './report.js';
import { PLAN, baselineLoads, pickRoutes, serviceRoutes, type Route } from './routes.js';
import { seed } from './seed.js';
import { startBaseline, startService, type Server } from './servers.js';

const TIMING = { connections: 50, warmupSeconds: 1, seconds: 8 };
/** The routes profiled unless `--routes` names others (each the start of a route's name in routes.ts). */
export const PROFILED = ['getCampaign', 'addParticipant'];

/** One server's profile during one load: self times, and the time by the project's functions (cpuprofile-top.ts). */
interface Profiled {
  title: string;
  section: string;
}

/** Runs `load` on a server started by `start` with --cpu-prof, and renders its profile; `keepAs` names the kept file. */
async function profileOne(
  loader: Loader,
  start: (nodeArgs: string[]) => Promise<Server>,
  load: Route['load'],
  label: string,
  log: (line: string) => void,
  keepIn: string | undefined,
  keepAs: string,
): Promise<Profiled> {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-profile-'));
  try {
    const server = await start(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let result;
    try {
      result = await loader.measure({ origin: server.url, ...TIMING, ...load });
    } finally {
      await server.stop();
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${label} wrote no profile in ${dir}`);
    if (keepIn) {
      mkdirSync(keepIn, { recursive: true });
      const kept = join(keepIn, `${keepAs}.cpuprofile`);
      copyFileSync(join(dir, file), kept);
      log(`profile kept: ${kept}`);
    }
    const profile = readProfile(join(dir, file));
    const { busyMs, idleMs, top } = topSelfTime(profile);
    const { owners } = attribute(profile);
    // Per request: the profile spans the warm-up too, so its requests are the measured ones and the warm-up's.
    const requests = result.allRequests * ((TIMING.seconds + TIMING.warmupSeconds) / TIMING.seconds);
    const us = (msTotal: number) => ((msTotal * 1000) / requests).toFixed(1);
    const title = `${label}: ${rps(result.rps)} req/s, p99 ${ms(result.p99)} ms; main thread busy ${busyMs.toFixed(0)} ms (${us(busyMs)} µs a request), idle ${idleMs.toFixed(0)} ms`;
    const selfTable = table(['self ms', 'share of busy', 'function', 'where'], top.map((t) => [t.ms.toFixed(0), `${(t.share * 100).toFixed(1)}%`, `\`${t.name}\``, t.where]));
    const ownersTable = table(
      ['µs a request', 'share of busy', 'nearest own function', 'where', 'spent in (ms)'],
      owners.map((a) => [us(a.ms), `${(a.share * 100).toFixed(1)}%`, `\`${a.owner}\``, a.where, a.spentIn.slice(0, 4).map((l) => `${l.library} ${l.ms.toFixed(0)}`).join(', ')]),
    );
    const section = `### ${title}\n\nTop functions by self time:\n\n${selfTable}\n\nThe time by the nearest of the project's own functions on the stack, with what it called (a sample with none goes to its library):\n\n${ownersTable}`;
    log(`\n${section}`);
    return { title, section };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runProfile(
  kinds: DatabaseKind[],
  loader: Loader,
  command: string,
  log: (line: string) => void,
  routes = PROFILED,
  keepIn?: string,
): Promise<void> {
  const header = machine(command);
  log(header);
  const sections: string[] = [];
  for (const kind of kinds) {
    for (const name of routes) {
      // Fresh databases for each side, so that neither profile runs on the other's writes.
      const [db, baseDb] = [await kind.create(), await kind.create()];
      try {
        const [seeded, baseSeed] = await Promise.all([seed(db.url, PLAN), seed(baseDb.url, PLAN)]);
        const route = pickRoutes(serviceRoutes(seeded), [name])[0]!;
        const service = await profileOne(loader, (args) => startService(db.url, args), route.load, `${KIND_TITLES[kind.name]}, ${route.name}`, log, keepIn, `${kind.name}-${name}`);
        // The bare server under the same load: what the route's baseline spends on HTTP, the driver and the disk.
        const baseLoad = baselineLoads(baseSeed, kind.name)[route.baseline];
        const bare = await profileOne(loader, (args) => startBaseline(baseDb.url, baseSeed.campaignId, args), baseLoad, `${KIND_TITLES[kind.name]}, ${route.name}'s baseline (${baseLoad.paths[0]!.split('?')[0]})`, log, keepIn, `${kind.name}-${name}-baseline`);
        sections.push(service.section, bare.section);
      } finally {
        await db.drop();
        await baseDb.drop();
      }
    }
  }
  writeSection(
    'Profile',
    [
      header,
      `- The service, then the bare server its route is judged against, each under \`node --cpu-prof\` in a fresh process, ${TIMING.connections} connections, ${TIMING.seconds} s of one route after ${TIMING.warmupSeconds} s of warm-up (the warm-up is in the profile too, and in the requests the µs are divided by). Top 15 functions by self time, then the time by the project's own functions.`,
      ...sections.map((s) => `\n${s}`),
    ].join('\n'),
  );
}
