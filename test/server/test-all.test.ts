/**
 * `npm test` itself (scripts/test-all.ts): the check of the machine before any suite runs, and a run that
 * reports every suite whatever the others did. The check runs as `npm test` runs it, with PATH and the
 * database addresses of each case: programs are fake ones in a directory of the test's own, and
 * PostgreSQL and Redis are addresses where nothing listens.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { report, runSuites, type SuiteResult } from '../../scripts/suites.js';
import { ROOT } from './helpers/root.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-test-all-'));
  dirs.push(dir);
  return dir;
};

/** A directory for PATH holding only these programs, each a script that answers `--version`. */
function pathWith(...programs: string[]): string {
  const dir = tempDir();
  for (const name of programs) {
    writeFileSync(join(dir, name), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

const NOBODY = { TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', TEST_REDIS_URL: 'redis://127.0.0.1:1' };

/** `npm test -- ...args` as npm runs it, in an environment of the case's own (CI only where given). */
function npmTest(args: string[], env: Record<string, string>) {
  const { CI: _ci, ...rest } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-all.ts', ...args], {
    cwd: ROOT,
    env: { ...rest, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output: `${run.stdout}\n${run.stderr}` };
}

describe('npm test: the check of the machine', () => {
  it('with no ruby on PATH, it stops before any suite with one message naming Ruby and how to get it', () => {
    const run = npmTest(['server'], { ...NOBODY, PATH: pathWith('python3', 'prometheus', 'promtool') });
    assert.equal(run.status, 1, run.output);
    assert.match(run.stderr, /^npm test cannot run: this machine lacks what the tests need:$/m);
    assert.match(run.stderr, /^ {2}- Ruby \(no `ruby` on PATH\): needed by the service suite .*To fix: apt-get install -y ruby\.$/m);
    assert.doesNotMatch(run.stderr, /python3/, 'python3 is there');
    assert.doesNotMatch(run.output, /Test suites:/, 'no suite ran');
  });

  it('names every missing piece in the one message; under CI the databases are required too', () => {
    const run = npmTest(['--preflight'], { ...NOBODY, PATH: pathWith(), CI: 'true' });
    assert.equal(run.status, 1, run.output);
    assert.match(run.stderr, /\(under CI nothing may be skipped\)/);
    const listed = run.stderr.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4).split(' (')[0]);
    assert.deepEqual(listed, ['Ruby', 'python3', 'Prometheus', `PostgreSQL at ${NOBODY.TEST_DATABASE_URL}`, `Redis at ${NOBODY.TEST_REDIS_URL}`, 'redis-server', 'pgbouncer']);
  });

  it('outside CI, an unreachable PostgreSQL and Redis are skipped, saying what is left out', () => {
    const run = npmTest(['--preflight'], { ...NOBODY, PATH: pathWith('ruby', 'python3', 'prometheus', 'promtool') });
    assert.equal(run.status, 0, run.output);
    assert.match(run.stdout, /^npm test: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/test is not available \(.*ECONNREFUSED.*\): the service suite runs on SQLite only\. Under CI this fails\.$/m);
    assert.match(run.stdout, /^npm test: Redis at redis:\/\/127\.0\.0\.1:1 is not available \(.*ECONNREFUSED.*\): that test is skipped\. Under CI this fails\.$/m);
    assert.match(run.stdout, /^npm test: redis-server is not available \(no `redis-server` on PATH\): those tests are skipped\. Under CI this fails\.$/m);
    assert.match(run.stdout, /^npm test: this machine has what the tests need\.$/m);
  });

  it("checks only what the suites asked for need: lint needs nothing, e2e Chromium but no Ruby", () => {
    const lint = npmTest(['--preflight', 'lint', 'typecheck'], { ...NOBODY, PATH: pathWith(), CI: 'true' });
    assert.equal(lint.status, 0, lint.output);
    assert.match(lint.stdout, /^npm test: this machine has what the tests need\.$/m);
    const e2e = npmTest(['--preflight', 'e2e'], { ...NOBODY, PATH: pathWith(), CI: 'true' });
    const listed = e2e.stderr.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4).split(' (')[0]);
    assert.deepEqual(listed, [`PostgreSQL at ${NOBODY.TEST_DATABASE_URL}`], "Chromium is at /usr/bin/chromium here; Ruby, Redis and the rest are the service suite's");
  });

  it('refuses a suite it does not know, naming the ones it has', () => {
    const run = npmTest(['servr'], { ...NOBODY, PATH: pathWith('ruby', 'python3', 'prometheus', 'promtool') });
    assert.equal(run.status, 2, run.output);
    assert.match(run.stderr, /^Unknown suite servr; the suites are typecheck, lint, manifest, server, widget, e2e, packages\.$/m);
  });
});

describe('npm test: the suites', () => {
  /** The report with each suite's time (it varies) written as N. */
  const reported = (results: SuiteResult[]) => report(results).replace(/ {2}\d+ s$/gm, '  N s');

  it('runs every suite after a failing one, and reports each result and time', async () => {
    const marker = join(tempDir(), 'ran');
    const results = await runSuites(
      [
        { name: 'first', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        { name: 'second', command: process.execPath, args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')`] },
      ],
      'ignore',
    );
    assert.ok(existsSync(marker), 'the suite after the failing one ran');
    assert.deepEqual(
      results.map(({ ms, ...r }) => (assert.ok(ms > 0), r)),
      [
        { name: 'first', passed: false, exit: 'exit 3' },
        { name: 'second', passed: true, exit: 'exit 0' },
      ],
    );
    assert.equal(reported(results), ['Test suites:', '  first   FAILED (exit 3)  N s', `  second  ${'passed'.padEnd('FAILED (exit 3)'.length)}  N s`, '1 of 2 suites failed: first.'].join('\n'));
  });

  it('says all passed only when every suite did', async () => {
    const results = await runSuites([{ name: 'only', command: process.execPath, args: ['-e', ''] }], 'ignore');
    assert.equal(reported(results), 'Test suites:\n  only  passed  N s\nAll 1 suites passed.');
  });

  it('runs the suites of one stage at the same time, and the next only once they have all ended', async () => {
    const dir = tempDir();
    // Each of the stage's two suites waits for the other's file: run one after another, neither would end.
    const waitFor = (mine: string, theirs: string) =>
      `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(join(dir, mine))}, ''); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(join(dir, theirs))})) { clearInterval(t); if (${JSON.stringify(mine)} === 'a') process.exit(5); } }, 10);`;
    const after = `process.exit(require('node:fs').existsSync(${JSON.stringify(join(dir, 'a'))}) && require('node:fs').existsSync(${JSON.stringify(join(dir, 'b'))}) ? 0 : 9)`;
    const results = await runSuites(
      [
        { name: 'a', command: process.execPath, args: ['-e', waitFor('a', 'b')], stage: 'static' },
        { name: 'b', command: process.execPath, args: ['-e', waitFor('b', 'a')], stage: 'static' },
        { name: 'c', command: process.execPath, args: ['-e', after] },
      ],
      'ignore',
    );
    assert.deepEqual(
      results.map((r) => [r.name, r.exit]),
      [
        ['a', 'exit 5'],
        ['b', 'exit 0'],
        ['c', 'exit 0'],
      ],
    );
  });
});
