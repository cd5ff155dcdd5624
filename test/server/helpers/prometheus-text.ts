/** Reading the Prometheus text format in tests: one sample's value, by name and (some of its) labels. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return parseSamples(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The metric families the text declares (`# TYPE name type`). */
export const families = (text: string): Set<string> => new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
