/**
 * PostgreSQL writes repeated payments that arrive together as one statement (src/server/rewards/store/payment-batch.ts).
 * What must hold: fewer statements than payments under concurrency, each payment once in its payer's
 * chain, each referrer's revenue and the day's the sum of its payments; and a batch never waits for a
 * row another transaction holds (it leaves that payment to its single statement, which waits).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { databaseKinds } from './helpers/databases.js';
import { statementsWithValues } from './helpers/pg-statements.js';
import { startService, type TestService } from './helpers/service.js';

const BATCH = /json_to_recordset\(cast\(\$1 as json\)\)\s+as i\(payer_id bigint/;

/** How many payments each batch statement sent while `call` ran carried. */
const batchSizes = async (call: () => Promise<unknown>) =>
  (await statementsWithValues(call)).filter((q) => BATCH.test(q.text)).map((q) => (JSON.parse(q.values[0] as string) as unknown[]).length);

// Through PgBouncer too: payments of many requests go as one statement, on whichever server session the pooler lends.
for (const kind of (await databaseKinds({ pgbouncer: true })).filter((k) => k.dialect === 'postgres')) {
  describe(`repeated payments written together [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    beforeEach(async () => {
      s = await startService(kind);
    });
    afterEach(() => s.close());

    /** A campaign with `referrers` referrers of `each` qualified referees (each has paid once). */
    async function qualified(referrers: number, each: number) {
      const id = await s.campaign();
      const payers: { email: string; referrer: string }[] = [];
      for (let r = 0; r < referrers; r++) {
        const referrer = `r${r}@example.com`;
        const { referralCode } = await s.admin.addParticipant({ id, email: referrer });
        for (let e = 0; e < each; e++) {
          const email = `p${r}-${e}@example.com`;
          await s.admin.addParticipant({ id, email, referredByCode: referralCode! });
          await s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' });
          payers.push({ email, referrer });
        }
      }
      return { id, payers };
    }

    it('concurrent payments share statements; each is once in its chain, and every sum is its payments', async () => {
      const { id, payers } = await qualified(4, 5);
      const rounds = 3;
      const sizes = await batchSizes(() =>
        Promise.all(Array.from({ length: payers.length * rounds }, (_, i) => s.admin.qualifyParticipant({ id, email: payers[i % payers.length]!.email, amountPaid: '2.50' }))),
      );
      assert.ok(sizes.some((n) => n > 1), `batches of ${sizes.join(', ')}`);
      const { store } = s.ctx;
      for (const { email } of payers) {
        const p = (await store.findParticipantByEmail(id, email))!;
        assert.deepEqual([p.payment_count, p.amount_paid_cents], [1 + rounds, 100 + 250 * rounds], email);
        const chain = await store.db.selectFrom('payments').select(['id', 'prev_id', 'seq', 'amount_cents']).where('participant_id', '=', p.id).orderBy('seq').execute();
        assert.deepEqual(chain.map((r) => r.seq), [1, 2, 3, 4], email);
        chain.forEach((r, i) => assert.equal(r.prev_id, i === 0 ? null : chain[i - 1]!.id, email));
        assert.equal(p.last_payment_id, chain.at(-1)!.id);
      }
      for (let r = 0; r < 4; r++) {
        const referrer = (await store.findParticipantByEmail(id, `r${r}@example.com`))!;
        assert.equal(referrer.revenue_generated_cents, 5 * (100 + 250 * rounds), referrer.email);
      }
      assert.equal((await store.stats.daily(id)).reduce((n, d) => n + d.referred_revenue_cents, 0), payers.length * (100 + 250 * rounds));
    });

    // A connection of the test's own holds a row: on the direct server only (as referral-counts.test does).
    if (kind.name === 'postgres')
    it("a batch does not wait for a row another transaction holds: that payment waits alone, the others are written", async () => {
      const { id, payers } = await qualified(3, 3);
      const heldReferrer = (await s.ctx.store.findParticipantByEmail(id, 'r0@example.com'))!;
      // Another connection holds r0's row, as a crediting transaction would.
      const other = new pg.Client({ connectionString: s.database.url });
      await other.connect();
      try {
        await other.query('begin');
        await other.query('select id from participants where id = $1 for no key update', [heldReferrer.id]);
        const answers = payers.map(({ email }) => s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' }).then(() => email));
        const done: string[] = [];
        for (const a of answers) void a.then((email) => done.push(email));
        // The payments of r1's and r2's referees are written while r0's row is held.
        const others = payers.filter((p) => p.referrer !== 'r0@example.com').map((p) => p.email);
        const deadline = Date.now() + 10_000;
        while (!others.every((e) => done.includes(e)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(done.filter((e) => others.includes(e)).sort(), others.sort());
        assert.equal(done.some((e) => !others.includes(e)), false, "r0's referees wait for its row");
        await other.query('commit');
        await Promise.all(answers);
      } finally {
        await other.end();
      }
      for (const { email } of payers) assert.equal((await s.ctx.store.findParticipantByEmail(id, email))!.payment_count, 2, email);
      assert.equal((await s.ctx.store.findParticipantByEmail(id, 'r0@example.com'))!.revenue_generated_cents, 600);
    });
  });
}
