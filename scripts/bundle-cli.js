// Replaces the compiled CLI (dist/server/cli.js, from tsc) with one bundle of it and everything it
// imports but the packages in ./node-bundle.js: `refkit --help` went from 0.9 s to about 0.3 s, and so
// does the start of `refkit serve` and of every WORKERS process. The rest of dist/server stays tsc's
// output, file for file.
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE, nodeBundlePlugins } from './node-bundle.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'dist/server/cli.js');

// A module's own URL: where tsc put it (dist/server/..., from src/server/...), relative to the bundle,
// so that the bundle can be moved with dist/ (a container copies it).
const compiledPath = (file) => join(ROOT, 'dist', relative(join(ROOT, 'src'), file)).replace(/\.ts$/, '.js');
const ownUrl = (file) => `new URL(${JSON.stringify(`./${relative(join(OUT, '..'), compiledPath(file))}`)}, import.meta.url).href`;

await build({
  ...NODE_BUNDLE,
  entryPoints: [join(ROOT, 'src/server/cli.ts')],
  outfile: OUT,
  allowOverwrite: true,
  plugins: nodeBundlePlugins(ROOT, ownUrl),
});
