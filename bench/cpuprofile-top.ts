/**
 * The functions that spent the most time themselves (self time) in a V8 .cpuprofile, as written by
 * `node --cpu-prof`. Usable alone: node --import tsx bench/cpuprofile-top.ts <file.cpuprofile> [count]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, count] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [count]');
  const { busyMs, idleMs, top } = topSelfTime(readProfile(file), count ? Number(count) : 15);
  console.log(`busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms`);
  for (const t of top) console.log(`${t.ms.toFixed(0).padStart(7)} ms ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.name}  ${t.where}`);
}
