// What the service's bundles (the CLI in dist/, the test files in .test-build/) share: which packages stay
// out of a bundle, and how a bundled module keeps knowing where its own file is.
//
// Why bundle at all: unbundled, Node loads about 900 modules to start the service (Kysely and TypeBox
// alone are hundreds of files): 0.7-0.9 s before anything runs, against about 0.2 s for the same code in
// one file. Every `refkit` command, every WORKERS process and every test file pays it.
import { readFileSync } from 'node:fs';

/**
 * Loaded from node_modules as usual, never bundled: packages that find their own files at run time
 * (__dirname: pino's worker, swagger's and redoc's files, commander, ioredis), pino-pretty (demo mode's alone: kept out of what every command loads),
 * mjml (large, and loaded only by a process that sends lifecycle emails), native ones (better-sqlite3), and pg,
 * which the store loads lazily with a runtime require the bundler cannot follow (one copy of it, so the
 * type parsers the store sets are the ones every connection uses).
 */
export const EXTERNAL = ['better-sqlite3', 'pg', 'pg-native', 'pino', 'thread-stream', '@fastify/swagger', 'redoc', 'commander', 'ioredis', 'pino-pretty', 'mjml'];

const inPackages = (path, packages) => packages.some((p) => path === p || path.startsWith(`${p}/`));

/**
 * esbuild plugins for a bundle of the repository's TypeScript under `root`:
 *   - `ownUrl(file)` gives, for a source file's absolute path, the JavaScript expression its
 *     `import.meta.url` becomes: the URL of the file it would have been compiled to on its own, so that
 *     paths written relative to it (`new URL('../../../', import.meta.url)`) keep their meaning;
 *   - the packages above stay external, and so do `alsoExternal` (the tests' own tools, say).
 */
export function nodeBundlePlugins(root, ownUrl, alsoExternal = []) {
  const external = [...EXTERNAL, ...alsoExternal];
  return [
    {
      name: 'own-url',
      setup(b) {
        b.onLoad({ filter: /\.ts$/ }, (args) => {
          if (!args.path.startsWith(root) || args.path.includes('/node_modules/')) return undefined;
          const contents = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', `(${ownUrl(args.path)})`);
          return { contents, loader: 'ts' };
        });
      },
    },
    {
      name: 'externals',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') || inPackages(args.path, external) ? { external: true } : undefined));
      },
    },
  ];
}

/** Options every such bundle uses: ES modules for Node 20, with require() for the CommonJS packages inside. */
export const NODE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  banner: { js: "import { createRequire as __refkitRequire } from 'node:module'; const require = __refkitRequire(import.meta.url);" },
  logLevel: 'warning',
};
