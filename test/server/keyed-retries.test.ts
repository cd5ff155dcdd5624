/**
 * Keyed calls retried as docs/api.md tells clients to, across faults, against the real service process
 * (`refkit serve`): a burst of payments (qualifyParticipant with amountPaid) and refunds, each with its
 * own Idempotency-Key,
 * - killed with SIGKILL in the middle, then every call sent again with its key to a new process on the
 *   same database (SQLite and PostgreSQL);
 * - with the service's PostgreSQL connections killed every few hundred milliseconds, each call sent
 *   again with its key while it is answered 503.
 * Every call answered 200 is stored once (its retry is a replay of the same answer), every call is
 * applied once however often it was sent, the counters equal the ledger, and each refund applied has one
 * audit entry (../../src/server/http/change-unit.ts writes the key's answer and the entry in the change's
 * transaction).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import pg from 'pg';
import { RefkitClient } from '../../src/api/client.js';
import { connect } from '../../src/server/store/connect.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { assertLedgerIn } from './helpers/ledger.js';
import { startProcess, NO_RATE_LIMITS, type ServiceProcess } from './helpers/process.js';
import { burstUntilKilled } from './helpers/bursts.js';

// Not through PgBouncer: what a crash or a lost connection leaves is PostgreSQL's to keep, which the
// pooler does not change.
const kinds = await databaseKinds({ pgbouncer: false });
const KEY = 'sk_retry_test_Vb7Kq2Lm9XwR4tNz8YpC3sHd';
const REFEREES = 12;
const PAYMENTS = 4;
const REFUNDS = 2;
const FIRST_PAYMENT = '100.00';
const PAYMENT = '10.00';
const REFUND = '5.00';
const IN_FLIGHT = 12;

interface Call {
  key: string;
  path: string;
  body: Record<string, unknown>;
  email: string;
  /** The first answer a 200 was, before any fault. */
  first?: { body: unknown };
}

interface Answer {
  status: number;
  body: { error?: { code: string } } & Record<string, unknown>;
  replayed: string | null;
}

async function send(url: string, call: Call): Promise<Answer> {
  const res = await fetch(`${url}${call.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': call.key },
    body: JSON.stringify(call.body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], replayed: res.headers.get('idempotent-replayed') };
}

/** Sends a call until it is answered with anything but a retry-later (503, or 409 idempotency_in_progress). */
async function untilAnswered(url: string, call: Call, retried: { n: number }): Promise<Answer> {
  for (let attempt = 0; attempt < 200; attempt++) {
    let a: Answer;
    try {
      a = await send(url, call);
    } catch {
      retried.n++;
      await sleep(50);
      continue;
    }
    if (a.status === 503 || (a.status === 409 && a.body.error?.code === 'idempotency_in_progress')) {
      retried.n++;
      await sleep(50);
      continue;
    }
    return a;
  }
  throw new Error(`${call.key} was never answered`);
}

/** A campaign whose referees each made one payment, and the burst of keyed calls about them. */
async function setUp(url: string): Promise<{ id: string; calls: Call[] }> {
  const admin = new RefkitClient({ baseUrl: url, secretKey: KEY });
  const id = (await admin.createCampaign({ campaignName: 'Retries', hostURL: 'https://retries.example', referrerRewardValue: 10, refereeRewardValue: 5, referrerRewardPercent: 20 })).campaignId!;
  const ann = await admin.addParticipant({ id, email: 'ann@example.com' });
  const calls: Call[] = [];
  for (let i = 0; i < REFEREES; i++) {
    const email = `referee${i}@example.com`;
    await admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
    await admin.qualifyParticipant({ id, email, amountPaid: FIRST_PAYMENT });
    for (let j = 0; j < PAYMENTS; j++) calls.push({ key: `pay-${i}-${j}`, path: '/api/v1/qualifyParticipant', body: { id, email, amountPaid: PAYMENT }, email });
    for (let j = 0; j < REFUNDS; j++) calls.push({ key: `refund-${i}-${j}`, path: '/api/v1/admin/refundPayment', body: { id, email, amount: REFUND }, email });
  }
  // Payments and refunds of one referee interleaved, so that they contend for the same rows.
  calls.sort((a, b) => a.key.split('-')[2]!.localeCompare(b.key.split('-')[2]!) || a.key.localeCompare(b.key));
  return { id, calls };
}

/** What the database holds after the faults: every call applied once, the ledger whole, one audit entry per refund. */
async function assertAppliedOnce(db: TestDatabase, id: string, calls: Call[]): Promise<void> {
  const { db: k, close } = await connect(db.url);
  try {
    for (let i = 0; i < REFEREES; i++) {
      const email = `referee${i}@example.com`;
      const p = await k.selectFrom('participants').selectAll().where('campaign_id', '=', id).where('email', '=', email).executeTakeFirstOrThrow();
      const payments = await k.selectFrom('payments').select(['amount_cents', 'refunded_cents']).where('participant_id', '=', p.id).execute();
      assert.equal(payments.length, 1 + PAYMENTS, `${email}: each payment recorded once`);
      assert.equal(payments.reduce((s, x) => s + Number(x.amount_cents), 0), 10_000 + PAYMENTS * 1_000, email);
      assert.equal(payments.reduce((s, x) => s + Number(x.refunded_cents), 0), REFUNDS * 500, `${email}: each refund applied once`);
    }
    await assertLedgerIn(k, id);
    const refunds = calls.filter((c) => c.path.endsWith('refundPayment')).length;
    const entries = await k.selectFrom('audit_log').select(['target']).where('action', '=', 'refundPayment').where('campaign_id', '=', id).execute();
    assert.equal(entries.length, refunds, 'one audit entry per refund applied');
  } finally {
    await close();
  }
}

for (const kind of kinds) {
  describe(`keyed calls retried across faults [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    const start = async (url: string): Promise<ServiceProcess> => {
      const p = await startProcess({ DATABASE_URL: url, REFKIT_SECRET_KEY: KEY, ...NO_RATE_LIMITS });
      cleanup.push(() => p.stop('SIGKILL'));
      return p;
    };

    it('SIGKILL mid-burst: a retry with the same key replays what was answered and applies the rest once', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      const first = await start(db.url);
      const { id, calls } = await setUp(first.url);
      const killed = burstUntilKilled(calls, {
        inFlight: IN_FLIGHT,
        killAfter: 25,
        send: (call) => send(first.url, call),
        answered: (call, a) => {
          assert.equal(a.status, 200, JSON.stringify(a.body));
          call.first = { body: a.body };
        },
        kill: () => first.stop('SIGKILL'),
      });
      assert.equal(await killed, null, 'killed by the signal');
      const before = calls.filter((c) => c.first).length;
      assert.ok(before >= 25 && before < calls.length, `killed in the middle: ${before} of ${calls.length} answered`);

      const second = await start(db.url);
      const retried = { n: 0 };
      for (const call of calls) {
        const a = await untilAnswered(second.url, call, retried);
        assert.equal(a.status, 200, `${call.key}: ${JSON.stringify(a.body)}`);
        if (call.first) {
          assert.equal(a.replayed, 'true', `${call.key} was answered before the kill: its retry is a replay`);
          assert.deepEqual(a.body, call.first.body, `${call.key}: the same answer`);
        }
      }
      await second.stop('SIGTERM');
      await assertAppliedOnce(db, id, calls);
    });

    // PostgreSQL only: an embedded SQLite has no connection to lose.
    if (kind.name !== 'postgres') return;
    it('connections killed under a burst: each call retried on 503 with its key is applied once', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      const p = await start(db.url);
      const { id, calls } = await setUp(p.url);
      const killer = new pg.Client({ connectionString: db.url });
      await killer.connect();
      cleanup.push(() => killer.end());
      const name = new URL(db.url).pathname.slice(1);
      let kills = 0;
      let bursting = true;
      const killing = (async () => {
        while (bursting) {
          await sleep(150);
          const r = await killer.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
          kills += r.rowCount ?? 0;
        }
      })();
      const retried = { n: 0 };
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < calls.length; i = next++) {
          const call = calls[i]!;
          const a = await untilAnswered(p.url, call, retried);
          assert.equal(a.status, 200, `${call.key}: ${JSON.stringify(a.body)}`);
          call.first = { body: a.body };
        }
      };
      try {
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      } finally {
        bursting = false;
        await killing;
      }
      assert.ok(kills > 0, 'connections were killed');
      assert.ok(retried.n > 0, `calls were refused meanwhile and sent again (${kills} connections killed)`);
      // Once more, the faults over (a pooled connection killed last may still answer one 503): each key
      // answers what it answered, a replay.
      for (const call of calls) {
        const a = await untilAnswered(p.url, call, { n: 0 });
        assert.equal(a.status, 200, call.key);
        assert.equal(a.replayed, 'true', call.key);
        assert.deepEqual(a.body, call.first!.body, call.key);
      }
      await assertAppliedOnce(db, id, calls);
    });
  });
}
