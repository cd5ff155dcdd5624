/**
 * The documentation's shell examples, run as a reader pastes them: every ```sh and ```console block of
 * README.md and docs/, except those marked `<!-- not run: REASON -->` with one of the reasons of
 * helpers/docs.ts (their `refkit` lines are checked by test/server/docs-commands.test.ts), page after page
 * in the order below, in one bash session, against the demo service (`refkit serve --demo`, what
 * `npm start` runs) and the `npx refkit` CLI on the same database. The session works in a folder of its
 * own, as a reader's project folder, so that the files the examples write (CSV, YAML, backups) land there.
 * A failing command, an HTTP error or an answer printed with no newline after it fails the check, so the
 * examples cannot go stale.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseKinds, type TestDatabase } from '../server/helpers/databases.js';
import { DOC_PAGES, NOT_RUN_REASONS, shellBlocks } from '../server/helpers/docs.js';
import { startProcess, type ServiceProcess } from '../server/helpers/process.js';
import { ROOT } from '../server/helpers/root.js';

/**
 * The pages whose examples run, in the order a reader follows them: each page's examples go on from the
 * variables of the pages before it (docs/cli.md from docs/api.md's, docs/dashboard.md from both).
 */
const PAGES = [
  'README.md',
  'docs/api.md',
  'docs/emails.md',
  'docs/rewards.md',
  'docs/leaderboard.md',
  'docs/waitlist.md',
  'docs/widget.md',
  'docs/testing-mode.md',
  'docs/cli.md',
  'docs/config-as-code.md',
  'docs/operate.md',
  'docs/dashboard.md',
  'docs/security.md',
  'docs/portal.md',
  'docs/payouts.md',
  'docs/fraud.md',
];

const BIN = join(ROOT, 'node_modules/.bin/refkit');
const allBlocks = DOC_PAGES.flatMap(shellBlocks);
const blocks = PAGES.flatMap((page) => shellBlocks(page).filter((b) => b.notRun === undefined)).map((b) => ({ ...b, name: `${b.page}, block ${b.index}` }));

describe("the documentation's shell examples", () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  /** The reader's working folder: the files the examples write go there. */
  const work = mkdtempSync(join(tmpdir(), 'refkit-docs-'));
  before(async () => {
    const [sqlite] = await databaseKinds();
    db = await sqlite!.create();
    service = await startProcess({ DATABASE_URL: db.url }, ['--demo']);
  });
  after(async () => {
    await service?.stop('SIGTERM');
    await db?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('has examples to run on every page listed, none unlisted, and a known reason for each block not run', () => {
    for (const page of PAGES) assert.ok(blocks.some((b) => b.page === page), `${page} has no block to run`);
    const unlisted = allBlocks.filter((b) => b.notRun === undefined && !PAGES.includes(b.page));
    assert.deepEqual(unlisted.map((b) => `${b.page}, block ${b.index}`), [], 'pages with examples to run: add them to PAGES');
    for (const b of allBlocks.filter((b) => b.notRun !== undefined)) {
      for (const reason of b.notRun!.split('; ')) {
        assert.ok(NOT_RUN_REASONS.some((known) => reason.startsWith(known)), `${b.page}, block ${b.index}: "${reason}" is not a reason to leave an example unrun`);
      }
    }
  });

  it('every block runs, in order, in one shell, as pasted', () => {
    const port = new URL(service.url).port;
    const script = [
      'set -euo pipefail',
      // An HTTP error answer fails the script too (curl alone exits 0 on a 4xx). An answer printed to the
      // terminal (this script's own standard output, not a pipe or a $(...)) must end with a newline, as a
      // reader's prompt would otherwise follow it on the same line.
      'TOP=$(readlink /proc/$$/fd/1)',
      `curl() {
        local me=$BASHPID
        if [ "$(readlink /proc/$me/fd/1)" != "$TOP" ]; then command curl --fail-with-body "$@"; return; fi
        local body; body=$(mktemp)
        command curl --fail-with-body "$@" > "$body" || { cat "$body"; return 1; }
        cat "$body"
        if [ -s "$body" ] && [ "$(tail -c 1 "$body" | wc -l)" = 0 ]; then echo; echo "curl $*: its answer ends with no newline (add -w '\\n')"; return 1; fi
      }`,
      // `npx refkit` runs this package's bin (node_modules/.bin/refkit, from package.json's "bin"): npx
      // itself is checked to reach it once, as pasted in the project folder; then each `npx refkit ...`
      // runs that bin straight, without npx's own start (about a second a command, most of this test's
      // time otherwise).
      `[ "$(cd ${JSON.stringify(ROOT)} && command npx refkit --help)" = "$(${JSON.stringify(BIN)} --help)" ] || { echo "npx refkit does not run this package's bin"; exit 1; }`,
      `npx() { if [ "$1" = refkit ]; then shift; ${JSON.stringify(BIN)} "$@"; else command npx "$@"; fi; }`,
      ...blocks.map((b) => `echo "--- ${b.name}"\n${b.code.replaceAll('localhost:8787', `localhost:${port}`)}`),
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], {
      cwd: work,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      // About 60 CLI commands, each a Node start: generous, so that a loaded machine does not cut it short.
      timeout: 900_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    // DOCS_OUTPUT=<file> keeps what the session printed, to read while changing a page.
    if (process.env.DOCS_OUTPUT) writeFileSync(process.env.DOCS_OUTPUT, output);
    assert.equal(run.status, 0, output.slice(-4000));
    // What the examples promise along the way.
    assert.match(output, /^Dee's balance: 10$/m, 'the first referral was credited');
    assert.match(output, /Ann's referral code: [2-9A-Z]{8}\n/);
    assert.match(output, /^true$/m, 'validateCode answered true');
    assert.match(output, /^high$/m, 'Ben was held');
    assert.match(output, /"referralRewardRedeemed":10/);
    assert.match(output, /"rewardEventCompleted":true/);
    assert.match(output, /^created: [1-9]\d*$/m, "the import created participants");
    assert.match(output, /--- docs\/rewards\.md, block 1\n\{\n {2}current: \{\n {4}credited: [1-9]\d*,/, "the backtest of the demo's months counts its credits");
    assert.match(output, /^added: 3\n/m, 'the friend coupons went into the pool');
    assert.match(output, /^offsetMs: 259\d{7}$/m, "the test campaign's clock moved 30 days");
    assert.match(output, /^url: http:\/\/localhost:3000\/hooks$/m, 'the CLI added the loopback test endpoint, as the demo service allows');
    assert.match(output, /^backed up to backups\/refkit-2026-11-26\.db /m, 'the backup folder was made');
    assert.match(output, /^erasedAt: /m, 'the person was erased');
    assert.match(output, /^Exported \d+ campaigns and \d+ webhook endpoints?\.\n(?:.*\n)*?No changes\.$/m, 'the exported campaigns, applied at once, change nothing');
  });
});
