/**
 * `npm test`: checks first that the machine has what the suites need (test/requirements.ts), and stops
 * with one message naming everything missing; then runs every suite (typecheck and lint count as suites)
 * and reports each one's result, exiting non-zero if any failed.
 *
 *   npm test                      every suite
 *   npm test -- server e2e        only those suites
 *   npm test -- --preflight       only the check of the machine
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preflight } from '../test/requirements.js';
import { report, runSuites, type Suite } from './suites.js';
import { slowestList } from './test-times.mjs';

/** The suites, by name, each an npm script of package.json; those of one stage run at the same time (scripts/suites.ts). */
const SUITES: Record<string, { script: string; stage?: string }> = {
  typecheck: { script: 'typecheck', stage: 'static' },
  lint: { script: 'lint', stage: 'static' },
  manifest: { script: 'test:manifest', stage: 'static' },
  server: { script: 'test:server' },
  widget: { script: 'test:widget' },
  e2e: { script: 'test:e2e' },
  // The packages as users install them (test/packages/): npm pack, a fresh project, a browser.
  packages: { script: 'test:packages' },
};
/** `npm run test:quick`, the inner loop: types, lint, and the service suite on SQLite without its process and crash files. */
const QUICK: Record<string, { script: string; stage?: string }> = {
  typecheck: SUITES.typecheck!,
  lint: SUITES.lint!,
  server: { script: 'test:server:quick' },
};

const args = process.argv.slice(2);
const onlyPreflight = args.includes('--preflight');
const quick = args.includes('--quick');
const chosen = quick ? QUICK : SUITES;
const names = args.filter((a) => !a.startsWith('--'));
const unknown = names.filter((n) => !(n in chosen));
if (unknown.length > 0) {
  console.error(`Unknown suite ${unknown.join(', ')}; the suites are ${Object.keys(chosen).join(', ')}.`);
  process.exit(2);
}

const ci = Boolean(process.env.CI);
const running = names.length > 0 ? names : Object.keys(chosen);
// Each suite's own needs only: `npm test -- lint` asks nothing of the machine.
const { missing, skipped } = await preflight(ci, running);
for (const line of skipped) console.log(`npm test: ${line}`);
if (missing.length > 0) {
  console.error(
    [
      `npm test cannot run: this machine lacks what the tests need${ci ? ' (under CI nothing may be skipped)' : ''}:`,
      ...missing.map((m) => `  - ${m}`),
      'bash scripts/test-on-debian.sh installs the programs, starts the databases (as root, on Debian) and runs the tests.',
    ].join('\n'),
  );
  process.exit(1);
}
if (onlyPreflight) {
  console.log('npm test: this machine has what the tests need.');
  process.exit(0);
}

const suites: Suite[] = running.map((name) => ({ name, command: 'npm', args: ['run', chosen[name]!.script], stage: chosen[name]!.stage }));
// Each node:test suite's reporter (scripts/slowest-files.mjs) leaves its files' times here.
const timesDir = (process.env.TEST_TIMES_DIR = mkdtempSync(join(tmpdir(), 'refkit-test-times-')));
const results = await runSuites(suites);
const times = Object.assign({}, ...readdirSync(timesDir).map((f) => JSON.parse(readFileSync(join(timesDir, f), 'utf8')) as Record<string, number>));
rmSync(timesDir, { recursive: true, force: true });
if (Object.keys(times).length > 0) console.log(`\n${slowestList(times)}`);
console.log(`\n${report(results)}`);
process.exit(results.every((r) => r.passed) ? 0 : 1);
