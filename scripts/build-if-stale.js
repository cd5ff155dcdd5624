// Builds (npm run build) only when a source or build setting changed since the last build, so that
// `npm start` right after `npm install` (whose prepare step built everything) starts at once.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Paths below are the repository's, whatever directory this was started from.
process.chdir(fileURLToPath(new URL('../', import.meta.url)));

const STAMP = 'dist/.build-stamp';
const INPUTS = ['src', 'packages/widget/src', 'packages/widget/package.json', 'packages/widget/tsconfig.json', 'packages/widget/vite.config.ts', 'packages/widget/scripts', 'custom-elements.json', 'packages/node/src', 'packages/node/package.json', 'packages/node/tsconfig.json', 'scripts/bundle-cli.js', 'scripts/node-bundle.js', 'index.html', 'vite.config.ts', 'vite.portal.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (Math.max(...INPUTS.map(newest)) > built) {
  execSync('npm run build', { stdio: 'inherit' });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
} else {
  process.stdout.write('build is up to date\n');
}
