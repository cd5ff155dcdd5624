/** What a benchmark run says about itself (machine, command) and how its tables land in BENCHMARKS.md. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BENCHMARKS_FILE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

export function machine(command: string): string {
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const cpu = cpus();
  return [
    `- Date: ${new Date().toISOString()}; commit ${commit}`,
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`,
    `- Node ${process.version}`,
    `- Command: \`${command}\``,
  ].join('\n');
}

/** The median of values in any order (of an even number, the mean of the middle two). */
export const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The q-quantile of sorted values (nearest rank). */
export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
export const rps = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)}k` : v.toFixed(0));

export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/**
 * Puts `body` under the `## <title>` heading of BENCHMARKS.md: replaces that section when the file has
 * it, appends it otherwise, and leaves every other section (another mode's figures) as it was.
 */
export function writeSection(title: string, body: string): void {
  const heading = `## ${title}`;
  const before = existsSync(BENCHMARKS_FILE) ? readFileSync(BENCHMARKS_FILE, 'utf8') : '# Benchmarks\n\nWritten by `npm run bench` (see docs/benchmarks.md).\n';
  const section = `${heading}\n\n${body.trim()}\n`;
  const start = before.indexOf(`\n${heading}\n`);
  let after: string;
  if (start === -1) {
    after = `${before.trimEnd()}\n\n${section}`;
  } else {
    const next = before.indexOf('\n## ', start + heading.length + 1);
    after = `${before.slice(0, start + 1)}${section}${next === -1 ? '' : `\n${before.slice(next + 1)}`}`;
  }
  writeFileSync(BENCHMARKS_FILE, after);
}

/** Each database kind's heading in the reports. */
export const KIND_TITLES: Record<string, string> = {
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
  pgbouncer: 'PostgreSQL through PgBouncer (transaction pooling)',
};
