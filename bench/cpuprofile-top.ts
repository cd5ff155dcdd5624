/**
 * The functions that spent the most time themselves (self time) in a V8 .cpuprofile, as written by
 * `node --cpu-prof`. Usable alone: node --import tsx bench/cpuprofile-top.ts <file.cpuprofile> [count]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  /** Share of the time the thread was not idle. */
  share: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function where(url: string, line: number): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '').replace(ROOT, '').replace(/^.*node_modules\//, '');
  return `${path}:${line + 1}`;
}

export function topSelfTime(profile: CpuProfile, count = 15): { busyMs: number; idleMs: number; top: SelfTime[] } {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, SelfTime>();
  let idle = 0;
  let busy = 0;
  // timeDeltas[i] is the time from sample i-1 to sample i: the time spent where sample i was taken.
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    if (frame.functionName === '(idle)') return void (idle += us);
    busy += us;
    const key = `${frame.functionName}@${frame.url}:${frame.lineNumber}`;
    const entry = totals.get(key) ?? { name: frame.functionName || '(anonymous)', where: where(frame.url, frame.lineNumber), ms: 0, share: 0 };
    entry.ms += us / 1000;
    totals.set(key, entry);
  });
  const top = [...totals.values()].sort((a, b) => b.ms - a.ms).slice(0, count);
  for (const t of top) t.share = t.ms / (busy / 1000);
  return { busyMs: busy / 1000, idleMs: idle / 1000, top };
}

/** Where the project's own code is, in a profile's frame URLs: the built service, or its sources under tsx. */
const OWN_CODE = /\/(dist|src)\/(server|api)\//;

/** What a frame outside the project is: its npm package, node's internals, or V8's own entries ((garbage collector), (program)). */
function libraryOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return url.startsWith('node:') ? 'node' : url.replace(/^file:\/\//, '').replace(ROOT, '');
}

export interface Attributed {
  /** The nearest of the project's own functions on the stack, or, with none, the library the time was spent in. */
  owner: string;
  where: string;
  ms: number;
  share: number;
  /** Of that time, how much each library (or the project's code itself) spent, largest first. */
  spentIn: { library: string; ms: number }[];
}

/**
 * Each sample's time given to the nearest of the project's own functions on its stack (the function that
 * called into the driver, the JSON serialiser or node's socket code), with the library that spent it; a
 * sample with no project frame (HTTP parsing, Fastify's routing, the event loop, GC) goes to its library.
 * Read with the self times, this says what each step of a request costs with what it calls.
 */
export function attribute(profile: CpuProfile, count = 25): { busyMs: number; owners: Attributed[] } {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, Attributed & { libs: Map<string, number> }>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const leaf = byNode.get(id)!.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    if (leaf.functionName === '(idle)') return;
    busy += us;
    let ownerFrame: ProfileNode['callFrame'] | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byNode.get(at)!.callFrame;
      if (OWN_CODE.test(frame.url)) {
        ownerFrame = frame;
        break;
      }
    }
    const library = OWN_CODE.test(leaf.url) ? '(own code)' : libraryOf(leaf.url, leaf.functionName);
    const key = ownerFrame ? `${ownerFrame.functionName}@${ownerFrame.url}:${ownerFrame.lineNumber}` : `lib:${library}`;
    const entry = totals.get(key) ?? {
      owner: ownerFrame ? ownerFrame.functionName || '(anonymous)' : `[${library}]`,
      where: ownerFrame ? where(ownerFrame.url, ownerFrame.lineNumber) : '',
      ms: 0,
      share: 0,
      spentIn: [],
      libs: new Map<string, number>(),
    };
    entry.ms += us / 1000;
    entry.libs.set(library, (entry.libs.get(library) ?? 0) + us / 1000);
    totals.set(key, entry);
  });
  const owners = [...totals.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map(({ libs, ...a }) => ({ ...a, share: a.ms / (busy / 1000), spentIn: [...libs].map(([library, ms]) => ({ library, ms })).sort((x, y) => y.ms - x.ms) }));
  return { busyMs: busy / 1000, owners };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, count] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [count]');
  const { busyMs, idleMs, top } = topSelfTime(readProfile(file), count ? Number(count) : 15);
  console.log(`busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms`);
  for (const t of top) console.log(`${t.ms.toFixed(0).padStart(7)} ms ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.name}  ${t.where}`);
  console.log('\nby the nearest of the project\'s functions on the stack (with the libraries it called):');
  for (const a of attribute(readProfile(file), count ? Number(count) : 25).owners) {
    const libs = a.spentIn.map((l) => `${l.library} ${l.ms.toFixed(0)}`).join(', ');
    console.log(`${a.ms.toFixed(0).padStart(7)} ms ${(a.share * 100).toFixed(1).padStart(5)}%  ${a.owner}  ${a.where}  (${libs})`);
  }
}
