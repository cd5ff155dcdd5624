/**
 * An upgrade without downtime, as docs/operate.md describes it: two `refkit serve` processes of the
 * previous release (./helpers/previous-release.ts, built by scripts/revision.ts and kept between runs) on
 * one PostgreSQL database, under a steady load of sign-ups and qualifications; this release's `refkit
 * migrate` runs under that load, then each old process is replaced by one of this release, one at a time
 * (SIGTERM: the graceful shutdown). The client is a load balancer's: it sends to the processes that are
 * up and, when one refuses the connection, sends the same request (same Idempotency-Key) to another.
 * No request may fail (non-2xx), and every write answered 200 must be in the database, once.
 *
 * It fails when a migration breaks the previous release's code (a dropped or renamed column it reads, a
 * NOT NULL column it does not write): its processes serve, after the migration, until they are replaced.
 * Phases are counted in requests, not timed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Agent, fetch } from 'undici';
import { buildRevision, type BuiltRevision } from '../../scripts/revision.js';
import { connect } from '../../src/server/store/connect.js';
import { cli, startProcess, type ServiceProcess, NO_RATE_LIMITS } from './helpers/process.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { PREVIOUS_RELEASE } from './helpers/previous-release.js';

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;
const KEY = 'sk_test_0123456789abcdefghijklmnop';
/** Writers sending at once, and the writes each phase runs before the next step. */
const WRITERS = 4;
const WRITES_PER_PHASE = 60;
const REFERRERS = 5;

/**
 * A closing process's answer to a request that reached it on a kept-alive connection, before any handler
 * ran: the previous release's is Fastify's own (return503OnClosing), this release's 503 service_closing
 * (src/server/http/closing.ts).
 */
const closingAnswer = (text: string) =>
  text === '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}' || text.includes('"code":"service_closing"');

/** Connection-level failures of a request that reached no handler: a load balancer sends it elsewhere. */
const unreachable = (err: unknown) => /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed/.test(String((err as { cause?: unknown }).cause ?? err));

/**
 * Sends to the processes that are up, like a load balancer; counts what came back. Each process has its
 * own connection pool, closed (once its requests are answered) when the process is taken out: a pool's
 * idle keep-alive connections would hold the going process's graceful shutdown open until its grace
 * delay ran out (the previous release does not close connections that were busy when it began closing).
 */
class Balancer {
  readonly live: string[] = [];
  private readonly pools = new Map<string, Agent>();
  private next = 0;

  add(url: string): void {
    this.pools.set(url, new Agent());
    this.live.push(url);
  }

  private remove(url: string): void {
    const i = this.live.indexOf(url);
    if (i < 0) return;
    this.live.splice(i, 1);
    void this.pools.get(url)!.close();
  }

  answered = 0;
  resent = 0;
  readonly failures: string[] = [];

  /** POSTs to one process that is up; the answer's body when it is 200, else undefined (and a failure noted). */
  async post(route: string, body: object, key: string): Promise<unknown> {
    for (;;) {
      if (this.live.length === 0) {
        await sleep(5);
        continue;
      }
      const url = this.live[this.next++ % this.live.length]!;
      let res: Awaited<ReturnType<typeof fetch>>;
      try {
        res = await fetch(`${url}/api/v1/${route}`, {
          dispatcher: this.pools.get(url)!,
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(body),
        });
      } catch (err) {
        if (!unreachable(err)) throw err;
        // That process is going or gone: out of the rotation (its successor is added when it is up).
        this.remove(url);
        this.resent++;
        continue;
      }
      const text = await res.text();
      // A process that has begun closing answers a request that came on a kept-alive connection with a
      // 503 before any handler ran (nothing done, the connection closed): a load balancer sends it to
      // another process, as for a refused connection. Any other 503 counts as a failure.
      if (res.status === 503 && closingAnswer(text)) {
        this.remove(url);
        this.resent++;
        continue;
      }
      // The same request still running on the process that went away: its answer comes with a retry.
      if (res.status === 409 && text.includes('idempotency_in_progress')) {
        this.resent++;
        await sleep(50);
        continue;
      }
      this.answered++;
      if (res.status !== 200) this.failures.push(`${route} ${JSON.stringify(body)}: ${res.status} ${text}`);
      return res.status === 200 ? JSON.parse(text) : undefined;
    }
  }
}

describe('upgrade from the previous release without downtime [postgres]', { skip: postgres.skip }, () => {
  let previous: BuiltRevision;
  let db: TestDatabase;
  const processes: ServiceProcess[] = [];
  before(() => {
    previous = buildRevision(PREVIOUS_RELEASE, (line) => console.log(line), { cached: true });
    console.log(previous.buildMs > 0 ? `built the previous release in ${previous.buildMs} ms` : `the previous release's build was cached (${previous.dir})`);
  });
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await db?.drop();
  });

  it('two old processes replaced one at a time under sign-up and qualify load: no failed request, no lost write', async () => {
    db = await postgres.createEmpty();
    const env = { DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, NODE_ENV: 'production', ...NO_RATE_LIMITS };
    const migratedOld = await cli(['migrate'], env, { cli: previous.cli });
    assert.equal(migratedOld.code, 0, migratedOld.stderr);
    const start = async (release: 'old' | 'new') => {
      const p = await startProcess(env, [], release === 'old' ? { cli: previous.cli } : {});
      processes.push(p);
      return p;
    };
    const old = [await start('old'), await start('old')];
    const lb = new Balancer();
    for (const p of old) lb.add(p.url);

    const campaign = (await lb.post('admin/createCampaign', { campaignName: 'Upgrade', hostURL: 'https://upgrade.example', referrerRewardValue: 1 }, 'campaign')) as { campaignId: string };
    const id = campaign.campaignId;
    const codes: string[] = [];
    for (let r = 0; r < REFERRERS; r++) {
      codes.push(((await lb.post('addParticipant', { id, email: `referrer${r}@example.com` }, `referrer-${r}`)) as { referralCode: string }).referralCode);
    }

    // The load: each writer signs up referees (each referred by one of the referrers) and qualifies
    // every other one it signed up; what was answered 200 is remembered.
    const signedUp: string[] = [];
    const qualified: string[] = [];
    let writes = 0;
    let stop = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const email = `w${w}-${n}@example.com`;
        if ((await lb.post('addParticipant', { id, email, referredByCode: codes[n % REFERRERS] }, `signup-${email}`)) !== undefined) signedUp.push(email);
        writes++;
        if (n % 2 === 1) {
          const referee = `w${w}-${n - 1}@example.com`;
          if ((await lb.post('qualifyParticipant', { id, email: referee }, `qualify-${referee}`)) !== undefined) qualified.push(referee);
          writes++;
        }
      }
    };
    const phase = async () => {
      const target = writes + WRITES_PER_PHASE;
      while (writes < target) await sleep(10);
    };
    const load = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    // After each step: a failure stops the load at once and names the step (a broken process answers
    // fast, and a flood of failing requests would only starve the processes still to start).
    const noFailures = async (step: string) => {
      if (lb.failures.length === 0) return;
      stop = true;
      await load;
      assert.fail(`${lb.failures.length} requests failed ${step}; the first: ${lb.failures.slice(0, 3).join('\n')}`);
    };

    await phase();
    await noFailures('on the previous release, before migrating');
    // This release's migrations, run while the old processes serve.
    const migrated = await cli(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    await phase();
    await noFailures("on the previous release's processes, after this release's migrations");
    for (const [i, p] of old.entries()) {
      assert.equal(await p.stop('SIGTERM'), 0, p.output());
      lb.add((await start('new')).url);
      await phase();
      await noFailures(`with ${i + 1} of the 2 processes replaced by this release`);
    }
    stop = true;
    await load;

    assert.deepEqual(lb.failures, [], 'no request failed');
    assert.ok(lb.answered >= 4 * WRITES_PER_PHASE, `${lb.answered} requests answered`);
    const c = connect(db.url);
    try {
      const rows = await c.db.selectFrom('participants').select(['email', 'reward_event_completed']).where('campaign_id', '=', id).execute();
      const emails = rows.map((r) => r.email);
      assert.equal(new Set(emails).size, emails.length, 'each participant once');
      assert.deepEqual(emails.filter((e) => !e.startsWith('referrer')).sort(), [...signedUp].sort(), 'every sign-up answered 200 is there, and no other');
      const done = new Set(rows.filter((r) => Number(r.reward_event_completed) === 1).map((r) => r.email));
      assert.deepEqual([...done].sort(), [...qualified].sort(), 'every qualification answered 200 is there, and no other');
      const { rows: balance } = await sql<{ total: string }>`select coalesce(sum(referral_reward), 0) as total from participants where campaign_id = ${id}`.execute(c.db);
      assert.equal(Number(balance[0]!.total), qualified.length, 'each qualification credited its referrer once');
    } finally {
      await c.close();
    }
    console.log(`${lb.answered} requests answered (${signedUp.length} sign-ups, ${qualified.length} qualifications), ${lb.resent} sent again to another process`);
  });
});
