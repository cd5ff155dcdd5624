/**
 * README's shell examples, run as a reader pastes them: every ```sh block, in order, in one bash
 * session in the project folder, against the demo service (`refkit serve --demo`, what `npm start`
 * runs) and the `npx refkit` CLI on the same database. Blocks marked ```console are shown, not run
 * (they start long-running processes). A failing command or an HTTP error fails the check, so the
 * examples cannot go stale.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseKinds, type TestDatabase } from '../server/helpers/databases.js';
import { startProcess, type ServiceProcess } from '../server/helpers/process.js';
import { ROOT } from '../server/helpers/root.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The ```sh blocks of README, in order. */
const blocks = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

describe("README's shell examples", () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  before(async () => {
    const [sqlite] = await databaseKinds();
    db = await sqlite!.create();
    service = await startProcess({ DATABASE_URL: db.url }, ['--demo']);
  });
  after(async () => {
    await service?.stop('SIGTERM');
    await db?.drop();
    rmSync(join(ROOT, 'demo.csv'), { force: true });
  });

  it('has examples to run', () => {
    assert.ok(blocks.length >= 4, `${blocks.length} sh blocks`);
  });

  it('every ```sh block runs, in order, in one shell, as pasted', () => {
    const port = new URL(service.url).port;
    const script = [
      'set -euo pipefail',
      // An HTTP error answer fails the script too (curl alone exits 0 on a 4xx).
      'curl() { command curl --fail-with-body "$@"; echo; }',
      ...blocks.map((b, i) => `echo "--- block ${i + 1}"\n${b.replaceAll('localhost:8787', `localhost:${port}`)}`),
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      // About 30 CLI commands, each a Node start: generous, so that a loaded machine does not cut it short.
      timeout: 900_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output.slice(-4000));
    // What the examples promise along the way.
    assert.match(output, /Ann's referral code: [2-9A-Z]{8}\n/);
    assert.match(output, /^true$/m, 'validateCode answered true');
    assert.match(output, /^high$/m, 'Ben was held');
    assert.match(output, /"referralRewardRedeemed":10/);
    assert.match(output, /"rewardEventCompleted":true/);
    assert.match(output, /^created: [1-9]\d*$/m, "the import created participants");
  });
});
