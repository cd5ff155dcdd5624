/**
 * The layout's rules that no import checker sees (docs/architecture.md#layout), run by `npm run lint`:
 * no folder under src/ holds more than 25 source files, and every folder directly under src/server opens
 * with a README.md saying what it owns and what it may import. Exits 1 naming each folder that breaks one.
 */
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const MAX_FILES = 25;
const problems = [];

function walk(dir) {
  const entries = readdirSync(dir);
  const sources = entries.filter((e) => /\.(ts|js|mjs)$/.test(e) && !e.endsWith('.d.ts') && statSync(join(dir, e)).isFile());
  if (sources.length > MAX_FILES) problems.push(`${dir} holds ${sources.length} source files (at most ${MAX_FILES}: split it by what the files do)`);
  for (const e of entries) if (statSync(join(dir, e)).isDirectory()) walk(join(dir, e));
}
walk('src');

for (const e of readdirSync('src/server')) {
  const dir = join('src/server', e);
  if (statSync(dir).isDirectory() && !existsSync(join(dir, 'README.md'))) problems.push(`${dir} has no README.md (what it owns, what it may import)`);
}

if (problems.length > 0) {
  console.error(`The layout breaks its rules:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
