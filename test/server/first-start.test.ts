/**
 * A first start from a fresh clone or the Docker image, as a person meets it: the banner's commands work
 * when run as printed, against this service's database; a missing PostgreSQL database is one line that
 * says how to create it; demo mode logs a readable line per request (and no schema warnings), production
 * JSON; the image's `refkit` command and the commands its files document run.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, it } from 'node:test';
import { cliHint } from '../../src/server/banner.js';
import { PG_URL } from '../requirements.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { cli as cliInProcess } from './helpers/cli.js';
import { atTerminal, cli, startProcess, type ServiceProcess } from './helpers/process.js';
import { ROOT } from './helpers/root.js';

const kinds = await databaseKinds();
const [sqlite] = kinds;
const PASSWORD = 'a long passphrase';

/** Runs a printed shell command line (in the repository, as a person in the clone would), with stdin. */
function shell(line: string, stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    const child = execFile('sh', ['-c', line], { cwd: ROOT, env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin);
  });
}

/** Signs in to the dashboard's API; the session cookie. */
async function signIn(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ email, password: PASSWORD }) });
  assert.equal(res.status, 200, await res.clone().text());
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function database(kind = sqlite!): Promise<TestDatabase> {
  const db = await kind.create();
  cleanup.push(() => db.drop());
  return db;
}
async function start(env: Record<string, string>, args: string[] = []): Promise<ServiceProcess> {
  const p = await startProcess(env, args);
  cleanup.push(() => p.stop('SIGKILL'));
  return p;
}

for (const kind of kinds) {
  describe(`the banner's commands [${kind.name}]`, { skip: kind.skip }, () => {
    it('"No owner yet": the command as printed makes the owner in this service\'s database, who then signs in here', async () => {
      const db = await database(kind);
      const p = await start({ DATABASE_URL: db.url, NODE_ENV: 'production' });
      const line = /No owner yet: .*?: (DATABASE_URL=\S+ npx refkit user create --email you@example\.com)$/m.exec(p.output());
      assert.ok(line, p.output());
      const made = await shell(`${line[1]} --password-stdin`, `${PASSWORD}\n`);
      assert.equal(made.code, 0, made.stderr);
      await signIn(p.url, 'you@example.com');
    });
  });
}

describe('the banner with a password in DATABASE_URL', { skip: kinds[1]!.skip }, () => {
  it('never prints the password: the hints say to export DATABASE_URL, shown masked', async () => {
    const db = await database(kinds[1]);
    const url = new URL(db.url);
    url.password = 'pg-s3cret-word';
    const p = await start({ DATABASE_URL: url.toString(), NODE_ENV: 'production' });
    assert.doesNotMatch(p.output(), /pg-s3cret-word/);
    const masked = `postgres://${url.username}:***@${url.host}${url.pathname}${url.search}`;
    assert.ok(p.output().includes(`No owner yet:  create one to sign in with (it asks for a password): export DATABASE_URL (this service's, ${masked}), then: npx refkit user create --email you@example.com`), p.output());
    assert.ok(p.output().includes(`or run: export DATABASE_URL (this service's, ${masked}), then: npx refkit key create --name ops`), p.output());
  });
});

describe('cliHint', () => {
  it('makes a relative SQLite path absolute (the command may run elsewhere) and quotes what the shell would read', () => {
    assert.equal(cliHint({ databaseUrl: 'sqlite:./data/refkit.db', cliCommand: 'npx refkit' }, 'user list'), `DATABASE_URL=sqlite:${join(process.cwd(), 'data/refkit.db')} npx refkit user list`);
    assert.equal(cliHint({ databaseUrl: 'postgres://u@db/x?sslmode=require', cliCommand: 'refkit' }, 'user list'), `DATABASE_URL='postgres://u@db/x?sslmode=require' refkit user list`);
  });
});

describe('a PostgreSQL database that does not exist', { skip: kinds[1]!.skip }, () => {
  it('migrate and serve say so in one line, naming it and how to create it, without a stack trace', async () => {
    const url = new URL(PG_URL);
    url.pathname = '/refkit_never_created';
    url.password = 'hidden-pw';
    for (const args of [['migrate'], ['serve']]) {
      const r = await cli(args, { DATABASE_URL: url.toString(), PORT: '0' });
      assert.equal(r.code, 1);
      // The database the command acts on (its password masked), then the one line of the failure.
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 2, r.stderr);
      assert.match(lines[0]!, /^Database: postgres:\/\/[^:]+:\*\*\*@[^/]+\/refkit_never_created$/);
      assert.match(lines[1]!, /^refkit: the PostgreSQL database "refkit_never_created" of DATABASE_URL \(postgres:\/\/[^:]+:\*\*\*@[^)]+\) does not exist: create it first, e\.g\. createdb refkit_never_created/);
      assert.doesNotMatch(r.stderr, /hidden-pw/);
    }
  });
});

describe('a PostgreSQL that cannot be reached', () => {
  it('is one line naming the URL (password masked), without a stack trace', async () => {
    // Port 1: nothing listens there, and an unprivileged process cannot make anything listen.
    const r = await cli(['migrate'], { DATABASE_URL: 'postgres://refkit:hidden-pw@127.0.0.1:1/refkit' });
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split('\n').length, 2, r.stderr);
    assert.match(r.stderr, /^Database: postgres:\/\/refkit:\*\*\*@127\.0\.0\.1:1\/refkit\nrefkit: cannot reach PostgreSQL at DATABASE_URL \(postgres:\/\/refkit:\*\*\*@127\.0\.0\.1:1\/refkit\): .*ECONNREFUSED.*Is it running, and is the host right\?\n$/);
  });
});

describe('logs', () => {
  it('demo mode: one readable line per request, none of it JSON, and no schema warnings after a dashboard sign-in', async () => {
    const db = await database();
    const made = await cliInProcess(['user', 'create', '--email', 'owner@example.com', '--password-stdin'], { DATABASE_URL: db.url }, PASSWORD);
    assert.equal(made.code, 0, made.stderr);
    const p = await start({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }, ['--demo']);
    const cookie = await signIn(p.url, 'owner@example.com');
    // What the dashboard asks for after sign-in.
    for (const route of ['auth/session', 'admin/listCampaigns', 'admin/searchParticipants?id=demo', 'admin/getCampaignAnalytics?id=demo', 'admin/listApiKeys', 'admin/listWebhookEndpoints']) {
      assert.equal((await fetch(`${p.url}/api/v1/${route}`, { headers: { cookie } })).status, 200, route);
    }
    // A caller's well-formed X-Request-Id is the request's id: in its answer's Request-Id and its log line.
    assert.equal((await fetch(`${p.url}/healthz`, { headers: { 'x-request-id': 'first-start-1' } })).headers.get('request-id'), 'first-start-1');
    assert.equal(await p.stop('SIGTERM'), 0);
    const out = p.output();
    assert.doesNotMatch(out, /unknown format|Deprecation/);
    assert.doesNotMatch(out, /^\{/m);
    assert.equal(out.match(/GET \/api\/v1\/admin\/listCampaigns 200 \d+ ms \[[\w.:-]+\]$/gm)?.length, 1, out);
    assert.match(out, /GET \/healthz 200 \d+ ms \[first-start-1\]$/m);
    assert.equal(out.match(/admin\/listCampaigns/g)?.length, 1, out);
    assert.equal(out.match(/POST \/api\/v1\/auth\/signIn 200 \d+ ms \[[\w.:-]+\]$/gm)?.length, 1, out);
    assert.doesNotMatch(out, /owner@example\.com/);
  });

  it('production: JSON records, as log collectors read them', async () => {
    const db = await database();
    const p = await start({ DATABASE_URL: db.url, LOG_LEVEL: 'info', NODE_ENV: 'production' });
    assert.equal((await fetch(`${p.url}/readyz`)).status, 200);
    assert.equal(await p.stop('SIGTERM'), 0);
    const records = p.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; req?: { url: string } });
    assert.ok(records.some((r) => r.msg === 'incoming request' && r.req?.url === '/readyz'), p.output());
  });
});

describe('the Docker image and docker-compose', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

  it('puts bin/refkit.js on PATH as refkit, and its banner hints say refkit', async () => {
    assert.match(dockerfile, /^RUN ln -s \/app\/bin\/refkit\.js \/usr\/local\/bin\/refkit /m);
    assert.match(dockerfile, /^COPY --from=build \/app\/bin \.\/bin$/m);
    assert.match(dockerfile, /^ENV .*\bREFKIT_CLI=refkit\b/m);
    const db = await database();
    const p = await start({ DATABASE_URL: db.url, NODE_ENV: 'production', REFKIT_CLI: 'refkit' });
    assert.match(p.output(), /No owner yet: .*: DATABASE_URL=\S+ refkit user create --email you@example\.com$/m);
  });

  it("the owner and key commands docker-compose.yml documents run in the image's layout (refkit on PATH, a link to bin/refkit.js)", async () => {
    const commands = [...compose.matchAll(/^#\s+docker compose exec refkit (refkit [^#\n]*?)\s*(#.*)?$/gm)].map((m) => m[1]!.split(' '));
    assert.deepEqual(commands.map((c) => c.slice(0, 3).join(' ')), ['refkit user create', 'refkit key create']);
    const bin = mkdtempSync(join(tmpdir(), 'refkit-path-'));
    cleanup.push(async () => rmSync(bin, { recursive: true, force: true }));
    symlinkSync(join(ROOT, 'bin/refkit.js'), join(bin, 'refkit'));
    const db = await database();
    const env = { DATABASE_URL: db.url, PATH: `${bin}:${process.env.PATH}` };
    const owner = await atTerminal(commands[0]!, env, [
      { prompt: /Password \(at least 10 characters\): /, text: PASSWORD },
      { prompt: /The same password again: /, text: PASSWORD },
    ]);
    assert.equal(owner.code, 0, owner.output);
    assert.match(owner.output, /email: you@example\.com/);
    const key = await promisify(execFile)(commands[1]![0]!, commands[1]!.slice(1), { env: { ...process.env, ...env } });
    assert.match(key.stdout, /^key: sk_/m);
  });
});
