// Transpiles the sources and the server and end-to-end tests to plain JavaScript in .test-build/, so
// that each test file's process starts without tsx: tsx compiles every module of the service again in
// every test process (about 2 s of CPU per file, most of the suite's overhead). Types are checked by
// `npm run typecheck`, not here; esbuild only strips them (a fraction of a second for the whole tree).
//
// The layout mirrors the repository (.test-build/src, .test-build/test), and every other top-level entry
// (demo/, dist/, README.md, ...) is linked in, so paths written relative to a module's own file
// (`new URL('../../README.md', import.meta.url)`) mean the same thing in the build as in the sources.
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, '.test-build');
const TRANSPILED = ['src', 'test'];
// Not linked: what is transpiled, dot-files (.git, this build), and what module resolution finds by walking up.
const NOT_LINKED = new Set([...TRANSPILED, 'node_modules']);

function files(dir, keep) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: TRANSPILED.flatMap((dir) => files(join(ROOT, dir), isSource)),
  outdir: OUT,
  outbase: ROOT,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
// Plain JavaScript and data files among the tests (a child-process script, fixtures) as they are.
for (const path of files(join(ROOT, 'test'), (name) => !isSource(name))) {
  const to = join(OUT, relative(ROOT, path));
  mkdirSync(join(to, '..'), { recursive: true });
  cpSync(path, to);
}
for (const name of readdirSync(ROOT)) {
  if (!NOT_LINKED.has(name) && !name.startsWith('.')) symlinkSync(join('..', name), join(OUT, name));
}
