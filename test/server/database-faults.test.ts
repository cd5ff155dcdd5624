/**
 * Faults under load, against servers of the test's own (./helpers/own-servers.ts), never the shared ones:
 * - PostgreSQL restarted (`pg_ctl restart -m fast`), and stopped for a while then started, in the middle of
 *   a sign-up load on the real service process (`refkit serve`): the process keeps running; every call is
 *   answered 200 or 503 `database_unavailable` with Retry-After, none 500 and none left hanging; /readyz is
 *   503 while the database is away and 200 after; sign-ups succeed again without restarting the service;
 *   every sign-up answered 200 is in the database exactly once, and a 503'd one retried with its
 *   Idempotency-Key is there exactly once too; the webhook dispatcher delivers the events of after.
 * - Redis killed and started again under load: limits are counted in the process meanwhile (a client
 *   over the limit still gets 429), nothing else changes (no 500), and the counters go back to Redis.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { RefkitClient } from '../../src/api/client.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limit.js';
import { openRuntime } from '../../src/server/runtime.js';
import { Caches, watchChanges } from '../../src/server/store/caches.js';
import { connect, DEFAULT_CONNECT_TIMEOUT_MS, openSqlite } from '../../src/server/store/connect.js';
import { isDatabaseUnavailable } from '../../src/server/kernel/unavailable.js';
import { databaseKinds } from './helpers/databases.js';
import { postgresServerProblem, REQUIREMENTS } from '../requirements.js';
import { skipUnlessCi, startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from './helpers/own-servers.js';
import { startProcess, type ServiceProcess, NO_RATE_LIMITS } from './helpers/process.js';
import { freePort, startReceiver, waitFor, type Receiver } from './helpers/receiver.js';
import { startService, type TestService } from './helpers/service.js';
import { startMailbox, type Mailbox } from './helpers/smtp.js';

const KEY = 'sk_test_0123456789abcdefghijklmnop';
/** DATABASE_CONNECT_TIMEOUT_MS of the service under test: the longest a query waits for a connection. */
const CONNECT_TIMEOUT_MS = 2_000;
/**
 * A call not answered within this is a hang: a keyed sign-up runs at most three database steps in turn
 * (the key's claim, the sign-up, the key's answer or release), each waiting at most CONNECT_TIMEOUT_MS for
 * a connection, and a statement in flight fails when its connection closes.
 */
const HANG_MS = 3 * CONNECT_TIMEOUT_MS + 1_000;
/** Concurrent clients of the load. */
const CLIENTS = 6;
/** Sign-ups answered 200 before the fault, and again after it. */
const SUCCESSES = 20;
/** The 503'd sign-ups retried at once after a fault (checkAfterFault): as many as the load's clients. */
const RETRIERS = CLIENTS;

interface Answer {
  email: string;
  /** The HTTP status, or 0 when no answer came within HANG_MS. */
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  /** How long the answer took. */
  ms: number;
}

/** A keyed sign-up with its email as Idempotency-Key, as a product's backend that retries would send it. */
async function signUp(url: string, campaignId: string, email: string, key = KEY): Promise<Answer> {
  const start = performance.now();
  const ms = () => Math.round(performance.now() - start);
  try {
    const res = await fetch(`${url}/api/v1/addParticipant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': email },
      body: JSON.stringify({ id: campaignId, email }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const body = (await res.json()) as { error?: { code: string; message: string } };
    if (res.status !== 200) assert.equal(typeof body.error?.message, 'string', `the error envelope of a ${res.status}`);
    return { email, status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code, ms: ms() };
  } catch (err) {
    // No answer in time, or none at all (the connection refused or cut: the service process is gone).
    if ((err as Error).name === 'TimeoutError' || (err as Error).message === 'fetch failed') return { email, status: 0, retryAfter: null, code: undefined, ms: ms() };
    throw err;
  }
}

/** CLIENTS clients signing up distinct emails in a loop until stopped; every answer is kept in order. */
function signUpLoad(service: ServiceProcess, campaignId: string, prefix: string) {
  const { url } = service;
  const answers: Answer[] = [];
  let stopped = false;
  let next = 0;
  const worker = async () => {
    while (!stopped) answers.push(await signUp(url, campaignId, `${prefix}${next++}@example.com`));
  };
  const workers = Promise.all(Array.from({ length: CLIENTS }, worker));
  /** The email of the next call to be sent: those from here on are sent after the present moment. */
  const sentFrom = () => next;
  const sentAfter = (from: number) => answers.filter((a) => Number(/(\d+)@/.exec(a.email)![1]) >= from);
  return {
    answers,
    sentFrom,
    /** The answers so far of the calls sent after `sentFrom()` said `from`. */
    sentAfter,
    /** Waits until `n` sign-ups from answer `from` on were answered 200. */
    succeeded: (n: number, from = 0) =>
      waitFor(
        () => {
          if (service.child.exitCode !== null || service.child.signalCode !== null) throw new Error(`the service process exited:\n${tail(service.output())}`);
          return answers.slice(from).filter((a) => a.status === 200).length >= n;
        },
        `${n} sign-ups answered 200`,
        30_000,
      ),
    stop: async () => {
      stopped = true;
      await workers;
    },
  };
}

/** The end of a long output: what a failure message shows of the service's log. */
const tail = (text: string) => (text.length > 4_000 ? `...${text.slice(-4_000)}` : text);

/** What a promise rejected with (it must reject). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a failure'),
    (err: unknown) => err,
  );
}

describe('what counts as "database unavailable"', () => {
  it('real failures of each kind: an outage is, a fault of ours or of another service is not', async () => {
    // Nothing listens on the port: the pool's connect fails (ECONNREFUSED, from the database's connection).
    const away = connect(`postgres://postgres@127.0.0.1:${await freePort()}/refkit`, { connectTimeoutMs: 1_000 });
    const refused = await failure(away.db.selectFrom('campaigns').selectAll().execute());
    await away.close();
    assert.equal(isDatabaseUnavailable(refused), true, `refused connection: ${String(refused)}`);
    // The same socket code from anything else (a webhook target, Stripe, SMTP) says nothing of the database.
    const elsewhere = await failure(fetch(`http://127.0.0.1:${await freePort()}/`));
    assert.equal(isDatabaseUnavailable(elsewhere), false, 'ECONNREFUSED of a fetch');
    assert.equal(isDatabaseUnavailable((elsewhere as Error).cause), false, 'its cause');
    // SQLite: another connection holds the write lock past the busy timeout.
    const dir = mkdtempSync(join(tmpdir(), 'refkit-busy-'));
    const holder = openSqlite(join(dir, 'busy.db'));
    const waiter = openSqlite(join(dir, 'busy.db'));
    holder.exec('create table t (x integer); begin immediate; insert into t values (1)');
    waiter.pragma('busy_timeout = 0');
    const busy = (() => {
      try {
        waiter.exec('insert into t values (2)');
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    holder.exec('rollback');
    holder.close();
    waiter.close();
    rmSync(dir, { recursive: true, force: true });
    assert.equal(isDatabaseUnavailable(busy), true, `SQLITE_BUSY: ${String(busy)}`);
    // Faults of ours stay faults: a constraint, a syntax error.
    const sqlite = connect('sqlite::memory:');
    const syntax = await failure(sqlite.db.selectFrom('no_such_table' as never).selectAll().execute());
    await sqlite.close();
    assert.equal(isDatabaseUnavailable(syntax), false, 'no such table');
    assert.equal(isDatabaseUnavailable(new TypeError('x is undefined')), false);
    assert.equal(isDatabaseUnavailable(undefined), false);
    // PostgreSQL's codes and node-postgres's messages, wrapped or not.
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300']) {
      assert.equal(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), true, code);
    }
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false, '23505');
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')), true);
    assert.equal(isDatabaseUnavailable(new Error('wrapped', { cause: new Error('Connection terminated unexpectedly') })), true);
  });
});

describe('DATABASE_CONNECT_TIMEOUT_MS', () => {
  it('is read from the environment (default 5000 ms), a positive whole number', () => {
    assert.equal(loadConfig({}).databaseConnectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
    assert.equal(DEFAULT_CONNECT_TIMEOUT_MS, 5_000);
    assert.equal(loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '1500' }).databaseConnectTimeoutMs, 1_500);
    for (const bad of ['0', '-1', '2.5', 'soon']) assert.throws(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: bad }), ConfigError, bad);
  });

  it('bounds the wait for a server that takes the connection and never answers: the query fails as unavailable', async () => {
    // A host that accepts TCP and then says nothing (a hung server, a half-open network path).
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/refkit`;
      // Through the runtime the service opens (it migrates first, so its first query is the one that waits).
      const err = await failure(openRuntime({ databaseUrl: url, databaseConnectTimeoutMs: 300 }));
      assert.equal(isDatabaseUnavailable(err), true, String(err));
      assert.match(String((err as Error).message), /timeout/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

const postgresSkip = skipUnlessCi(await postgresServerProblem());

describe('PostgreSQL goes away under a sign-up load', { skip: postgresSkip }, () => {
  let cluster: OwnPostgres;
  let service: ServiceProcess;
  let receiver: Receiver;
  let mailbox: Mailbox;
  let admin: RefkitClient;
  let campaignId: string;
  /** A campaign whose sign-ups get a welcome email (the load's campaign sends none: hundreds would queue). */
  let welcomingId: string;
  let sql: (text: string, values?: unknown[]) => Promise<pg.QueryResultRow[]>;

  before(async () => {
    cluster = await startOwnPostgres();
    receiver = await startReceiver();
    mailbox = await startMailbox();
    service = await startProcess({
      DATABASE_URL: cluster.url('refkit'),
      REFKIT_SECRET_KEY: KEY,
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      ...NO_RATE_LIMITS,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
      SMTP_URL: mailbox.url,
      MAIL_POLL_MS: '200',
      MAIL_RETRY_DELAYS_MS: '200,200,200,200,200',
    });
    admin = new RefkitClient({ baseUrl: service.url, secretKey: KEY });
    campaignId = (await admin.createCampaign({ campaignName: 'Faults', hostURL: 'https://faults.example' })).campaignId!;
    await admin.updateEmailSettings({ id: campaignId, welcome: false });
    welcomingId = (await admin.createCampaign({ campaignName: 'Welcoming', hostURL: 'https://faults.example' })).campaignId!;
    await admin.createWebhookEndpoint({ url: receiver.url, eventTypes: ['referrer_added'] });
    sql = async (text, values = []) => {
      const client = new pg.Client({ connectionString: cluster.url('refkit') });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    };
  });

  after(async () => {
    await service?.stop('SIGKILL');
    await receiver?.close();
    await mailbox?.close();
    await cluster?.destroy();
  });

  const readyz = async () => (await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(HANG_MS) })).status;

  /** What every fault must leave behind; `answers` are the load's, the fault having happened in their midst. */
  async function checkAfterFault(t: TestContext, answers: Answer[]): Promise<void> {
    const slowest = (status: number) => Math.max(0, ...answers.filter((a) => a.status === status).map((a) => a.ms));
    t.diagnostic(
      `${answers.length} sign-ups: ${answers.filter((a) => a.status === 200).length} answered 200 (slowest ${slowest(200)} ms), ` +
        `${answers.filter((a) => a.status === 503).length} answered 503 (slowest ${slowest(503)} ms)`,
    );
    assert.equal(service.child.exitCode, null, `the service process is still running:\n${tail(service.output())}`);
    const counts = new Map<number, number>();
    for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
    assert.deepEqual(
      [...counts.keys()].filter((s) => s !== 200 && s !== 503),
      [],
      `every call answered 200 or 503 (0: no answer within ${HANG_MS} ms): ${JSON.stringify(Object.fromEntries(counts))}\n${tail(service.output())}`,
    );
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(refused.length > 0, 'the outage was real: some calls were answered 503');
    for (const a of refused) {
      assert.equal(a.code, 'database_unavailable');
      assert.match(a.retryAfter ?? '', /^[1-9]$/, 'a 503 says when to retry, in a few seconds');
    }

    // Every sign-up answered 200 committed: it is there, once.
    const stored = new Map((await sql('select email, count(*)::int as n from participants where campaign_id = $1 group by email', [campaignId])).map((r) => [r.email as string, r.n as number]));
    for (const a of answers.filter((x) => x.status === 200)) assert.equal(stored.get(a.email), 1, `${a.email} answered 200 is stored once`);
    // A 503'd sign-up may or may not have committed; retried with its key it takes effect once. Retried
    // by a few clients at a time, as the load's were sent: hundreds at once on a busy machine waited past
    // HANG_MS for the service's connections (an answer of 0 here), which is not what the test is about.
    const retried: Answer[] = [];
    for (let i = 0; i < refused.length; i += RETRIERS) {
      retried.push(
        ...(await Promise.all(
          refused.slice(i, i + RETRIERS).map(async (a) => {
            let retry = await signUp(service.url, campaignId, a.email);
            // The key of a call the database refused is released once the database is back (within a second).
            while (retry.status === 409 && retry.code === 'idempotency_in_progress') {
              await sleep(Number(retry.retryAfter) * 1000);
              retry = await signUp(service.url, campaignId, a.email);
            }
            return retry;
          }),
        )),
      );
    }
    assert.deepEqual(retried.filter((r) => r.status !== 200), [], 'every 503 retried with its key is answered 200');
    const after = await sql('select email, count(*)::int as n from participants where campaign_id = $1 and email = any($2) group by email', [campaignId, refused.map((a) => a.email)]);
    assert.equal(after.length, new Set(refused.map((a) => a.email)).size, 'every retried sign-up is stored');
    assert.ok(after.every((r) => r.n === 1), 'once');

    // The background loops lived through it: a sign-up made now has its webhook delivered and its welcome sent.
    const marker = `after-${randomUUID()}@example.com`;
    assert.equal((await signUp(service.url, welcomingId, marker)).status, 200);
    await waitFor(() => receiver.received.some((r) => r.body.includes(marker)), 'the webhook of a sign-up after the fault');
    await mailbox.to(marker);
  }

  it('pg_ctl restart -m fast in the middle of the load: 200 or 503, recovered without a service restart, nothing answered 200 lost', async (t) => {
    const load = signUpLoad(service, campaignId, 'restart-');
    await load.succeeded(SUCCESSES);
    await cluster.restart();
    const restarted = load.answers.length;
    await load.succeeded(SUCCESSES, restarted);
    await load.stop();
    assert.equal(await readyz(), 200);
    await checkAfterFault(t, load.answers);
  });

  it('stopped, away for two seconds, started again: /readyz 503 then 200, sign-ups 503 then 200', async (t) => {
    const load = signUpLoad(service, campaignId, 'stop-');
    await load.succeeded(SUCCESSES);
    await cluster.stop();
    try {
      // Calls answered now may have been sent, and answered, before the stop: only those sent after count.
      const stopped = load.sentFrom();
      assert.equal(await readyz(), 503, '/readyz while the database is away');
      await sleep(2_000);
      const during = load.sentAfter(stopped);
      assert.ok(during.length > 0, 'sign-ups were sent while the database was stopped');
      assert.deepEqual(
        during.filter((a) => a.status !== 503),
        [],
        'with the database stopped, every sign-up is 503',
      );
      assert.equal(await readyz(), 503, '/readyz still 503 two seconds on');
    } finally {
      await cluster.start();
    }
    await waitFor(async () => (await readyz()) === 200, '/readyz 200 once the database is back');
    await load.succeeded(SUCCESSES, load.answers.length);
    await load.stop();
    await checkAfterFault(t, load.answers);
  });

  it('a keyed call cut off after claiming its key: 503, and its retry runs once the database is back (the key is released then)', async () => {
    const email = `cut-${randomUUID()}@example.com`;
    // Hold the sign-up after its key's claim has committed: the participants table is locked.
    const locker = new pg.Client({ connectionString: cluster.url('refkit') });
    locker.on('error', () => undefined);
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table participants in access exclusive mode');
    const call = signUp(service.url, campaignId, email);
    // The sign-up's own statement: the referral folder's UPDATE of referrers' counts waits for that lock too.
    await waitFor(
      async () => (await sql(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%participants%' and query not ilike 'update "participants" set "total_referrals"%'`)).length > 0,
      'the sign-up waiting for the lock',
    );
    assert.equal((await sql('select count(*)::int as n from idempotency_keys where key = $1 and status is null', [email]))[0]!.n, 1, 'its key is claimed');
    // The database goes away under it: the claim cannot be released now. Immediately: in a fast stop the
    // locking session may end first and the sign-up commit in between (seen twice on a busy machine).
    await cluster.stop('immediate');
    let answer: Answer;
    try {
      answer = await call;
    } finally {
      await cluster.start();
      await locker.end().catch(() => undefined);
    }
    assert.deepEqual([answer.status, answer.code], [503, 'database_unavailable']);
    // A retry meets the claim until the service's release gets through (a second or so), then runs: one participant.
    let retry = await signUp(service.url, campaignId, email);
    for (let i = 0; i < 30 && retry.status !== 200; i++) {
      assert.deepEqual([retry.status, retry.code], [409, 'idempotency_in_progress'], JSON.stringify(retry));
      await sleep(Number(retry.retryAfter) * 1000);
      retry = await signUp(service.url, campaignId, email);
    }
    assert.equal(retry.status, 200, 'the retry ran (without the release it would wait for the claim to be abandoned: five minutes)');
    assert.equal((await sql('select count(*)::int as n from participants where email = $1', [email]))[0]!.n, 1);
  });

  it("the cache's NOTIFY listener listens again after a restart: another process's change is heard without the change counter", async () => {
    const url = cluster.url('refkit');
    const { db, dialect, close } = connect(url);
    const caches = new Caches();
    // The change counter is read once at the start and then not for an hour: only a notification can tell.
    const stopWatching = watchChanges(caches, db, dialect, url, 3_600_000);
    const heard = async (what: string) => {
      const seen = caches.generation;
      await waitFor(async () => {
        await sql('update campaigns set name = name where id = $1', [campaignId]);
        return caches.generation > seen;
      }, what);
    };
    try {
      await heard('a change, before the restart');
      await cluster.restart();
      // The listener notices its connection is gone and listens again (dropping the caches as it does).
      await heard('listening again after the restart');
      await heard('a change after the restart');
    } finally {
      await stopWatching();
      await close();
    }
  });
});

const redisSkip = skipUnlessCi(await REQUIREMENTS.find((r) => r.name === 'redis-server')!.check());
const [sqlite] = await databaseKinds();

describe('Redis killed and started again under load', { skip: redisSkip }, () => {
  let redis: OwnRedis;
  let s: TestService;
  let inspect: Redis;
  const LIMIT = 5;
  const prefix = `refkit-faults-${randomUUID()}:`;

  before(async () => {
    redis = await startOwnRedis();
    s = await startService(sqlite!, {
      rateLimits: { ...DEFAULT_RATE_LIMITS, perIp: LIMIT, signupsPerIp: 0, keyFailuresPerIp: 0, redisUrl: redis.url, redisPrefix: prefix },
      trustProxy: 1,
    });
    inspect = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    inspect.on('error', () => undefined);
  });
  after(async () => {
    inspect?.disconnect();
    await s?.close();
    await redis?.kill();
  });

  /** A keyless read as if from `ip` behind one trusted proxy (the test is that proxy). */
  const readFrom = async (campaignId: string, ip: string) =>
    (await fetch(`${s.url}/api/v1/getCampaign?id=${campaignId}`, { headers: { 'x-forwarded-for': ip } })).status;
  /** LIMIT + 1 reads from a new client: the limit admits LIMIT and refuses the next with 429. */
  async function overTheLimit(campaignId: string, ip: string): Promise<void> {
    const statuses = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push(await readFrom(campaignId, ip));
    assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(200), 429], `reads from ${ip}`);
  }
  const countersOf = async (ip: string) => (await inspect.keys(`${prefix}*${ip}`)).length;

  it('limits fall back to memory while Redis is away (429 past the limit, no 500) and go back to Redis when it returns', async () => {
    const campaignId = await s.campaign();
    // The load: keyed sign-ups (never limited) and keyless reads from clients that each go past the limit.
    const statuses: number[] = [];
    let stopped = false;
    let n = 0;
    const worker = async (w: number) => {
      while (!stopped) {
        const i = n++;
        const signup = await fetch(`${s.url}/api/v1/addParticipant`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: campaignId, email: `redis-${i}@example.com` }),
        });
        statuses.push(signup.status);
        statuses.push(await readFrom(campaignId, `198.51.100.${(w * 50 + (i % 50)) % 250}`));
      }
    };
    const workers = Promise.all([0, 1, 2, 3].map(worker));
    /** Waits until the load has had `count` more answers: it goes on through whatever the test does. */
    const loadGoesOn = (count: number) => {
      const from = statuses.length;
      return waitFor(() => statuses.length >= from + count, `${count} more answers to the load`);
    };
    try {
      await inspect.connect();
      await loadGoesOn(20);
      await overTheLimit(campaignId, '203.0.113.1');
      assert.ok((await countersOf('203.0.113.1')) > 0, 'with Redis up, the counters are in Redis');

      await redis.kill();
      await overTheLimit(campaignId, '203.0.113.2');
      await loadGoesOn(20);
      await overTheLimit(campaignId, '203.0.113.3');

      await redis.start();
      // The service's client reconnects on its own (within its retry delay): a new client's first read is
      // counted in Redis again.
      let probe = 10;
      await waitFor(async () => {
        const ip = `203.0.113.${probe++}`;
        await readFrom(campaignId, ip);
        return (await countersOf(ip)) > 0;
      }, 'counters in Redis again');
      await overTheLimit(campaignId, '203.0.113.200');
      assert.ok((await countersOf('203.0.113.200')) > 0, 'counted in Redis');
      await loadGoesOn(20);
    } finally {
      stopped = true;
      await workers;
    }
    const unexpected = statuses.filter((st) => st !== 200 && st !== 429);
    assert.deepEqual(unexpected, [], 'every call of the load answered 200 or 429');
  });
});

describe('SQLite locked by another process past the busy timeout', () => {
  it('a sign-up is answered 503 database_unavailable with Retry-After, and succeeds once the lock is let go', async () => {
    const s = await startService(sqlite!);
    try {
      const campaignId = await s.campaign();
      // Another process (the CLI, a second serve) holding the write lock longer than the service waits for it.
      const other = openSqlite(s.database.url.slice('sqlite:'.length));
      other.exec('begin immediate');
      let answer: Answer;
      try {
        answer = await signUp(s.url, campaignId, 'locked@example.com', s.secretKey);
      } finally {
        other.exec('rollback');
        other.close();
      }
      assert.deepEqual([answer.status, answer.code], [503, 'database_unavailable']);
      assert.match(answer.retryAfter ?? '', /^[1-9]$/);
      assert.equal((await signUp(s.url, campaignId, 'locked@example.com', s.secretKey)).status, 200);
      assert.equal((await s.admin.getParticipant(campaignId, 'locked@example.com')).email, 'locked@example.com');
    } finally {
      await s.close();
    }
  });
});
