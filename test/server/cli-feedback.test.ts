/**
 * What the `refkit` CLI says about what it does: which database it acts on (found by walking up to the
 * project without DATABASE_URL, refused outside one), failures as one line (the stack with --debug),
 * --version, the required options first in --help, secrets said to be set but never shown, and webhook
 * targets checked as the service on the same database allows them. The program runs in this process
 * (helpers/cli.ts) but for one child process, which runs from a subfolder as a person would.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRuntime } from '../../src/server/runtime.js';
import { seedIfEmpty } from '../../src/server/seed.js';
import { cli } from './helpers/cli.js';
import { databaseKinds } from './helpers/databases.js';
import { cli as cliProcess } from './helpers/process.js';
import { ROOT } from './helpers/root.js';

const kinds = await databaseKinds();

/** No DATABASE_URL, and nothing else in the environment that would decide for the command. */
const NO_DATABASE_URL = { DATABASE_URL: '' };

describe('the database a command acts on', () => {
  // One temporary tree: a project that depends on refkit (with a subfolder), a folder holding only a
  // data/refkit.db, and a folder in no project at all.
  let tree: string;
  const at = (...parts: string[]) => join(tree, ...parts);
  before(() => {
    tree = mkdtempSync(join(tmpdir(), 'refkit-cli-project-'));
    mkdirSync(at('shop', 'src', 'deep'), { recursive: true });
    writeFileSync(at('shop', 'package.json'), JSON.stringify({ name: 'shop', devDependencies: { refkit: '^0.1.0' } }));
    mkdirSync(at('loose', 'a', 'b'), { recursive: true });
    mkdirSync(at('nowhere'));
  });
  after(() => rmSync(tree, { recursive: true, force: true }));

  it("from a project's subfolder: the project's data/refkit.db, named on stderr; the process itself too", async () => {
    const made = await cli(['key', 'create', '--name', 'from-deep'], NO_DATABASE_URL, '', { cwd: at('shop', 'src', 'deep') });
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.stderr.split('\n')[0], `Database: sqlite:${at('shop', 'data', 'refkit.db')}`);
    assert.ok(existsSync(at('shop', 'data', 'refkit.db')));
    assert.ok(!existsSync(at('shop', 'src', 'deep', 'data')), 'no database made in the subfolder');
    // The built CLI as a process, in the folder it is started in: the key made above is in the database it finds.
    const listed = await cliProcess(['key', 'list'], NO_DATABASE_URL, { cwd: at('shop', 'src') });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, `Database: sqlite:${at('shop', 'data', 'refkit.db')}\n`);
    assert.match(listed.stdout, /^name: from-deep$/m);
  });

  it('outside any project: refused in one line saying what to do, exit 1, nothing made; migrate makes ./data/refkit.db, which is then found from below', async () => {
    const refused = await cli(['key', 'list'], NO_DATABASE_URL, '', { cwd: at('nowhere') });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^refkit: no Refkit project in .*nowhere or above it .* run this in your project's folder, or set DATABASE_URL to the service's database\n$/);
    assert.ok(!existsSync(at('nowhere', 'data')));

    const migrated = await cli(['migrate'], NO_DATABASE_URL, '', { cwd: at('loose') });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.equal(migrated.stderr, `Database: sqlite:${at('loose', 'data', 'refkit.db')}\n`);
    const below = await cli(['key', 'list'], NO_DATABASE_URL, '', { cwd: at('loose', 'a', 'b') });
    assert.equal(below.code, 0, below.stderr);
    assert.equal(below.stderr, `Database: sqlite:${at('loose', 'data', 'refkit.db')}\n`);
    assert.equal(below.stdout, 'No keys yet.\n');
  });

  it("DATABASE_URL decides when set: named as it is, a relative SQLite path made absolute", async () => {
    const r = await cli(['migrate', '--check'], { DATABASE_URL: 'sqlite:./not-made-yet/refkit.db' });
    assert.equal(r.stderr.split('\n')[0], `Database: sqlite:${join(process.cwd(), 'not-made-yet', 'refkit.db')}`);
    assert.ok(!existsSync(join(process.cwd(), 'not-made-yet')), '--check makes nothing');
  });
});

describe('failures, --version, --help', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'refkit-cli-failures-'));
    writeFileSync(join(folder, 'not-a-database.db'), 'this is text, not SQLite\n'.repeat(200));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('an unexpected failure is one line saying how to see more, exit 1; with --debug (before or after the command) the stack', async () => {
    const env = { DATABASE_URL: `sqlite:${join(folder, 'not-a-database.db')}` };
    const plain = await cli(['key', 'list'], env);
    assert.equal(plain.code, 1);
    const lines = plain.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 2, plain.stderr);
    assert.match(lines[0]!, /^Database: sqlite:.*not-a-database\.db$/);
    assert.match(lines[1]!, /^refkit: file is not a database \(run again with --debug to see where it failed\)$/);
    for (const args of [['key', 'list', '--debug'], ['--debug', 'key', 'list']]) {
      const debug = await cli(args, env);
      assert.equal(debug.code, 1);
      assert.match(debug.stderr, /file is not a database\n(\s+at .+\n)+/, args.join(' '));
    }
  });

  it('a missing file is said as such, in one line', async () => {
    const r = await cli(['rewards', 'codes', 'add', '--id', 'demo', '--kind', 'referral', '--file', join(folder, 'no-such-codes.csv')], { DATABASE_URL: `sqlite:${join(folder, 'codes.db')}` });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\nrefkit: \/.*no-such-codes\.csv: no such file or folder; check the path\n$/);
  });

  it("--version prints the package's version; campaign create --help lists --name and --host-url first, marked required", async () => {
    const version = await cli(['--version'], {});
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    const help = await cli(['campaign', 'create', '--help'], {});
    const options = [...help.stdout.matchAll(/^ {2}(--[\w-]+) \S+\s+(.*)$/gm)];
    assert.deepEqual(options.slice(0, 2).map((m) => m[1]), ['--name', '--host-url']);
    for (const m of options.slice(0, 2)) assert.match(m[2]!, /^\(required\) /);
    assert.ok(options.slice(2).every((m) => !m[2]!.startsWith('(required)')), 'only those two are required');
  });
});

for (const kind of kinds) {
  describe(`secrets and webhook targets [${kind.name}]`, { skip: kind.skip }, () => {
    // Nothing from the test's own environment decides whether private targets are allowed.
    const env = (url: string) => ({ DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE: '', REFKIT_DEMO: '', NODE_ENV: 'production' });

    it('write-only options say that the secret was set or removed, and never print it', async () => {
      const db = await kind.create();
      try {
        const secret = 'whsec_neverShownAnywhere0123';
        const key = 'rk_test_neverShownEither0123';
        const made = await cli(['campaign', 'create', '--name', 'S', '--host-url', 'https://s.example', '--stripe-webhook-secret', secret, '--stripe-reward-key', key], env(db.url));
        assert.equal(made.code, 0, made.stderr);
        assert.match(made.stderr, /^Stripe webhook secret set\.\nStripe reward key set\.\n$/m);
        assert.match(made.stdout, /^stripeWebhookConfigured: true$/m);
        const id = /^campaignId: (\S+)$/m.exec(made.stdout)![1]!;
        const removed = await cli(['campaign', 'update', '--id', id, '--stripe-webhook-secret', '', '--json'], env(db.url));
        assert.equal(removed.code, 0, removed.stderr);
        assert.match(removed.stderr, /^Stripe webhook secret removed\.\n$/m);
        assert.equal((JSON.parse(removed.stdout) as { stripeWebhookConfigured: boolean }).stripeWebhookConfigured, false);
        // A refused change says nothing was set.
        const refused = await cli(['campaign', 'update', '--id', id, '--stripe-reward-key', 'rk_bad'], env(db.url));
        assert.equal(refused.code, 1);
        assert.doesNotMatch(refused.stderr, /(secret|key) set/);
        for (const r of [made, removed, refused]) assert.ok(![secret, key].some((s) => r.stdout.includes(s) || r.stderr.includes(s)), 'a secret was printed');
      } finally {
        await db.drop();
      }
    });

    it("loopback targets: refused in one line on a production database, accepted on a demo database (the one npm start seeded), as its service would", async () => {
      const db = await kind.create();
      try {
        const add = (url: string) => cli(['webhook', 'add', '--url', url, '--events', 'reward_unlocked,reward_reversed', '--test', '--json'], env(db.url));
        const refused = await add('http://127.0.0.1:4999/hooks');
        assert.equal(refused.code, 1);
        assert.equal(refused.stdout, '');
        assert.match(refused.stderr, /^Database: .*\n\{"error":\{"code":"invalid_request","message":"url points to a private or loopback address \(set WEBHOOK_ALLOW_PRIVATE=true to allow\)","field":"url"\}\}\n$/);

        const rt = await openRuntime({ databaseUrl: db.url });
        try {
          assert.ok(await seedIfEmpty(rt.ctx, 'http://localhost:8787'), 'seeded the demo');
        } finally {
          await rt.close();
        }
        for (const url of ['http://127.0.0.1:4999/hooks', 'https://ci.example/hooks']) {
          const added = await add(url);
          assert.equal(added.code, 0, added.stderr);
          assert.equal((JSON.parse(added.stdout) as { url: string }).url, url);
        }
        // WEBHOOK_ALLOW_PRIVATE, when set, decides, as it does for the service.
        const off = await cli(['webhook', 'add', '--url', 'http://127.0.0.1:4999/x', '--events', 'reward_unlocked'], { ...env(db.url), WEBHOOK_ALLOW_PRIVATE: 'false' });
        assert.equal(off.code, 1);
        assert.match(off.stderr, /\nerror: url points to a private or loopback address \(set WEBHOOK_ALLOW_PRIVATE=true to allow\) \(invalid_request, url\)\n$/);
      } finally {
        await db.drop();
      }
    });
  });
}
