/**
 * `npm run bench -- --profile`: where the service's main thread spends its time. The service runs under
 * `node --cpu-prof` during one load (getCampaign, then a new referred sign-up, each in a fresh process
 * so that the profiles do not mix); the top functions by self time go to the terminal and BENCHMARKS.md.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { readProfile, topSelfTime } from './cpuprofile-top.js';
import type { Loader } from './loader.js';
import { KIND_TITLES, machine, ms, rps, table, writeSection } from './report.js';
import { pickRoutes, serviceRoutes } from './routes.js';
import { seed } from './seed.js';
import { startService } from './servers.js';

const TIMING = { connections: 50, warmupSeconds: 1, seconds: 8 };
const PLAN = { participants: 2_000, hubReferrals: 1_000 };
/** The routes profiled unless `--routes` names others (each the start of a route's name in routes.ts). */
export const PROFILED = ['getCampaign', 'addParticipant'];

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
      const db = await kind.create();
      const dir = mkdtempSync(join(tmpdir(), 'refkit-profile-'));
      try {
        const seeded = await seed(db.url, PLAN);
        const route = pickRoutes(serviceRoutes(seeded), [name])[0]!;
        const service = await startService(db.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
        let result;
        try {
          result = await loader.measure({ origin: service.url, ...TIMING, ...route.load });
        } finally {
          await service.stop();
        }
        const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
        if (!file) throw new Error(`the service wrote no profile in ${dir}`);
        if (keepIn) {
          mkdirSync(keepIn, { recursive: true });
          const kept = join(keepIn, `${kind.name}-${name}.cpuprofile`);
          copyFileSync(join(dir, file), kept);
          log(`profile kept: ${kept}`);
        }
        const { busyMs, idleMs, top } = topSelfTime(readProfile(join(dir, file)));
        const title = `${KIND_TITLES[kind.name]}, ${route.name}: ${rps(result.rps)} req/s, p99 ${ms(result.p99)} ms; main thread busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms`;
        const section = `### ${title}\n\n${table(['self ms', 'share of busy', 'function', 'where'], top.map((t) => [t.ms.toFixed(0), `${(t.share * 100).toFixed(1)}%`, `\`${t.name}\``, t.where]))}`;
        log(`\n${section}`);
        sections.push(section);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await db.drop();
      }
    }
  }
  writeSection(
    'Profile',
    [
      header,
      `- The service under \`node --cpu-prof\`, ${TIMING.connections} connections, ${TIMING.seconds} s of one route after ${TIMING.warmupSeconds} s of warm-up (the warm-up is in the profile too). Top 15 functions by self time.`,
      ...sections.map((s) => `\n${s}`),
    ].join('\n'),
  );
}
