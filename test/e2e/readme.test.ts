/**
 * The documentation's shell examples, run as a reader pastes them: every ```sh block of README.md and
 * of the docs pages that hold them, page after page in the order below, in one bash session in the
 * project folder, against the demo service (`refkit serve --demo`, what `npm start`
 * runs) and the `npx refkit` CLI on the same database. Blocks marked ```console are shown, not run
 * (they start long-running processes). A failing command or an HTTP error fails the check, so the
 * examples cannot go stale.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseKinds, type TestDatabase } from '../server/helpers/databases.js';
import { readDoc } from '../server/helpers/docs.js';
import { startProcess, type ServiceProcess } from '../server/helpers/process.js';
import { ROOT } from '../server/helpers/root.js';

/**
 * The pages whose examples run, in the order a reader follows them: each page's examples go on from the
 * variables of the pages before it (docs/cli.md from docs/api.md's, docs/dashboard.md from both).
 */
const PAGES = ['README.md', 'docs/api.md', 'docs/emails.md', 'docs/rewards.md', 'docs/leaderboard.md', 'docs/waitlist.md', 'docs/widget.md', 'docs/cli.md', 'docs/dashboard.md', 'docs/security.md'];

/** The ```sh blocks of a page, in order. */
const shBlocks = (page: string) => [...readDoc(page).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
const blocks = PAGES.flatMap((page) => shBlocks(page).map((code, i) => ({ page, name: `${page}, block ${i + 1}`, code })));

describe("the documentation's shell examples", () => {
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

  it('has examples to run, on every page listed, and none on a page left out', () => {
    for (const page of PAGES) assert.ok(blocks.some((b) => b.page === page), `${page} has no sh block`);
    const others = readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`).filter((p) => p.endsWith('.md') && !PAGES.includes(p));
    for (const page of others) assert.deepEqual(shBlocks(page), [], `${page} has sh blocks: add it to PAGES to run them`);
  });

  it('every ```sh block runs, in order, in one shell, as pasted', () => {
    const port = new URL(service.url).port;
    const script = [
      'set -euo pipefail',
      // An HTTP error answer fails the script too (curl alone exits 0 on a 4xx).
      'curl() { command curl --fail-with-body "$@"; echo; }',
      // `npx refkit` runs this package's bin (node_modules/.bin/refkit, from package.json's "bin"): npx
      // itself is checked to reach it once, as pasted; then each `npx refkit ...` runs that bin straight,
      // without npx's own start (about a second a command, most of this test's time otherwise).
      '[ "$(command npx refkit --help)" = "$(node_modules/.bin/refkit --help)" ] || { echo "npx refkit does not run this package\'s bin"; exit 1; }',
      `npx() { if [ "$1" = refkit ]; then shift; ${JSON.stringify(join(ROOT, 'node_modules/.bin/refkit'))} "$@"; else command npx "$@"; fi; }`,
      ...blocks.map((b) => `echo "--- ${b.name}"\n${b.code.replaceAll('localhost:8787', `localhost:${port}`)}`),
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      // About 40 CLI commands, each a Node start: generous, so that a loaded machine does not cut it short.
      timeout: 900_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output.slice(-4000));
    // What the examples promise along the way.
    assert.match(output, /^Dee's balance: 10$/m, 'the first referral was credited');
    assert.match(output, /Ann's referral code: [2-9A-Z]{8}\n/);
    assert.match(output, /^true$/m, 'validateCode answered true');
    assert.match(output, /^high$/m, 'Ben was held');
    assert.match(output, /"referralRewardRedeemed":10/);
    assert.match(output, /"rewardEventCompleted":true/);
    assert.match(output, /^created: [1-9]\d*$/m, "the import created participants");
    assert.match(output, /^Exported \d+ campaigns and \d+ webhook endpoints?\.\n(?:.*\n)*?No changes\.$/m, 'the exported campaigns, applied at once, change nothing');
  });
});
