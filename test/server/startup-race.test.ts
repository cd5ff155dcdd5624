/**
 * Processes started at the same moment on a brand-new database all come up: the first migration and the
 * demo seed run once between them (on SQLite, where Kysely's migration lock does nothing, and on
 * PostgreSQL, where it is an advisory lock).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { databaseKinds } from './helpers/databases.js';
import { cli, startProcess, type ServiceProcess } from './helpers/process.js';

// Through PgBouncer too: processes that start together migrate through the pooler, one at a time.
const kinds = await databaseKinds({ pgbouncer: true });
const KEY = 'sk_race_test_Qm4r9XvT2bLp8WzK1nYc7HdJ';
// helpers/open-at.ts, as this file runs: bundled JavaScript in .test-build/, or TypeScript under tsx (whose
// --import the child inherits through execArgv).
const OPEN_AT = fileURLToPath(new URL(`./helpers/open-at${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** Runs helpers/open-at.js in several child processes and releases them together; resolves with what each printed. */
async function openTogether(url: string, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [...process.execArgv, OPEN_AT], { env: { ...process.env, DATABASE_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => ((out += c.toString()), out.includes('ready\n') && resolve())));
    const exited = new Promise<string>((resolve) => child.once('exit', () => resolve(out.replace('ready\n', ''))));
    return { child, ready, exited };
  });
  await Promise.all(children.map((c) => c.ready));
  const startAt = String(Date.now() + 100);
  for (const c of children) c.child.stdin.write(`${startAt}\n`);
  return Promise.all(children.map((c) => c.exited));
}

for (const kind of kinds) {
  describe(`start-up race [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });

    it('processes released at the same millisecond migrate and seed a new database once between them', async () => {
      for (let round = 0; round < (kind.dialect === 'sqlite' ? 3 : 1); round++) {
        const db = await kind.createEmpty();
        cleanup.push(() => db.drop());
        assert.deepEqual((await openTogether(db.url, 3)).sort(), ['seeded', 'up', 'up'], `round ${round}`);
      }
    });

    it('two `refkit serve` and a `refkit migrate` started together on a new database all succeed, with one demo campaign', async () => {
      const db = await kind.createEmpty();
      cleanup.push(() => db.drop());
      const env = { DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY };
      const started = await Promise.allSettled([startProcess(env, ['--demo']), startProcess(env, ['--demo']), cli(['migrate'], env)]);
      for (const s of started) if (s.status === 'fulfilled' && 'child' in s.value) cleanup.push(() => (s.value as ServiceProcess).stop('SIGKILL'));
      assert.deepEqual(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up')), ['up', 'up', 'up']);
      const migrate = (started[2] as PromiseFulfilledResult<{ code: number | null; stderr: string }>).value;
      assert.equal(migrate.code, 0, migrate.stderr);
      for (const s of started.slice(0, 2)) {
        const admin = new RefkitClient({ baseUrl: (s as PromiseFulfilledResult<ServiceProcess>).value.url, secretKey: KEY });
        assert.equal((await admin.getCampaign('demo')).campaignName, 'Acme Notes launch');
        assert.equal((await admin.listApiKeys()).length, 1, 'seeded once: one demo key');
      }
    });
  });
}
