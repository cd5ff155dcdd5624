// Builds the server and end-to-end tests into .test-build/ as plain JavaScript, one bundle per test file
// (the modules they share split into .test-build/chunks/), so that each test file's process starts in a
// fraction of the time: tsx compiled every module of the service again in every test process (about 2 s
// of CPU per file), and unbundled JavaScript still loads about 900 modules per file (0.7 s before the
// first test, against 0.2 s bundled; see ./node-bundle.js). Types are checked by `npm run typecheck`, not
// here; esbuild only strips them (a couple of seconds for every file).
//
// Paths written relative to a module's own file (`new URL('../../README.md', import.meta.url)`) keep their
// meaning: `import.meta.url` in a bundled source is the URL its file would have in a mirror of the
// repository (.test-build/src, .test-build/test), and every other top-level entry (demo/, dist/,
// README.md, ...) is linked into .test-build/.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE, nodeBundlePlugins } from './node-bundle.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, '.test-build');
const SUITES = ['test/server', 'test/e2e'];
// Scripts the tests run as child processes of their own, bundled like the test files.
const CHILD_SCRIPTS = ['test/server/helpers/open-at.ts'];
// Not linked: what is bundled from, dot-files (.git, this build), and what module resolution finds by walking up.
const NOT_LINKED = new Set(['src', 'test', 'node_modules']);

function files(dir, keep) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');
// The service's dependencies are bundled as the CLI bundles them; the tests' own tools (Playwright,
// fast-check, smtp-server, ...) are loaded from node_modules as they are published.
const TEST_TOOLS = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies);
// Absolute: a module may land in any chunk, at any depth.
const ownUrl = (file) => JSON.stringify(pathToFileURL(join(OUT, relative(ROOT, file)).replace(/\.ts$/, '.js')).href);

rmSync(OUT, { recursive: true, force: true });
await build({
  ...NODE_BUNDLE,
  entryPoints: [...SUITES.flatMap((dir) => files(join(ROOT, dir), (name) => name.endsWith('.test.ts'))), ...CHILD_SCRIPTS.map((f) => join(ROOT, f))],
  outdir: OUT,
  outbase: ROOT,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: nodeBundlePlugins(ROOT, ownUrl, TEST_TOOLS),
});
// Plain JavaScript and data files among the tests (fixtures) as they are.
for (const path of files(join(ROOT, 'test'), (name) => !isSource(name))) {
  const to = join(OUT, relative(ROOT, path));
  mkdirSync(join(to, '..'), { recursive: true });
  cpSync(path, to);
}
for (const name of readdirSync(ROOT)) {
  if (!NOT_LINKED.has(name) && !name.startsWith('.')) symlinkSync(join('..', name), join(OUT, name));
}
