/**
 * PostgreSQL reads participants by address that arrive together as one statement (src/server/store/point-reads.ts).
 * What must hold: fewer statements than reads under concurrency, each read answered with its own row (or
 * none) as a read alone would be, across campaigns; a read sees what was committed before it was asked;
 * an address PostgreSQL refuses fails only its own read; a transaction's reads stay in the transaction.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Kysely } from 'kysely';
import { PointReads, type ByEmail } from '../../src/server/store/point-reads.js';
import type { Database } from '../../src/server/store/tables.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { statementsWithValues } from './helpers/pg-statements.js';
import { startService, type TestService } from './helpers/service.js';

const BATCHED = /"email" = any\(\$2\)/;

// Through PgBouncer too: reads of many requests go as one statement, on whichever server session the pooler lends.
for (const kind of (await databaseKinds({ pgbouncer: true })).filter((k) => k.dialect === 'postgres')) {
  describe(`reads by address together [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    beforeEach(async () => {
      s = await startService(kind);
    });
    afterEach(() => s.close());

    /** A campaign of a referrer with `n` referees (the referrer's count: n), and its addresses. */
    async function campaign(n: number) {
      const id = await s.campaign();
      const { referralCode } = await s.admin.addParticipant({ id, email: 'ref@example.com' });
      const emails = ['ref@example.com'];
      for (let i = 0; i < n; i++) {
        const email = `p${i}@example.com`;
        await s.admin.addParticipant({ id, email, referredByCode: referralCode! });
        emails.push(email);
      }
      return { id, emails };
    }

    /** Reads of the same campaign and addresses as `asks`, each answered alone, one after another. */
    async function serially<T>(asks: { id: string; email: string }[], read: (id: string, email: string) => Promise<T>) {
      const answers: T[] = [];
      for (const q of asks) answers.push(await read(q.id, q.email));
      return answers;
    }

    /** Addresses of two campaigns: in both, in one only (b's p3..p5), asked twice, and in none. */
    async function twoCampaigns() {
      const a = await campaign(6);
      const b = await campaign(3);
      const asks = [...a.emails, ...a.emails.slice(0, 4)].flatMap((email) => [
        { id: a.id, email },
        { id: b.id, email },
      ]);
      asks.push({ id: a.id, email: 'nobody@example.com' }, { id: b.id, email: 'nobody@example.com' });
      return asks;
    }

    it('reads asked together go in one statement per campaign, and each gets the row it would alone', async () => {
      const asks = await twoCampaigns();
      const { store } = s.ctx;
      for (const read of [(id: string, email: string) => store.findParticipantByEmail(id, email), (id: string, email: string) => store.answers.byEmail(id, email)]) {
        const alone = await serially(asks, read);
        let together: unknown[] = [];
        const sent = await statementsWithValues(async () => {
          together = await Promise.all(asks.map((q) => read(q.id, q.email)));
        });
        assert.deepEqual(together, alone);
        // At most the first read went alone (when nothing else was at the database); the others waited, then
        // went as one statement per campaign.
        // (The cache watcher's poll, on its own timer, may be among the statements: only reads of participants count.)
        const reads = sent.filter((q) => /from "participants"/.test(q.text));
        const batched = reads.filter((q) => BATCHED.test(q.text)).map((q) => (q.values[1] as string[]).length);
        assert.ok(reads.length <= 3 && batched.length === 2, reads.map((q) => q.text).join('\n'));
        assert.ok(batched[0]! + batched[1]! >= asks.length - 1, `batches of ${batched.join(', ')} for ${asks.length} reads`);
      }
      assert.equal((await store.answers.byEmail(asks[0]!.id, 'ref@example.com'))!.total_referrals, 6);
      assert.equal((await store.answers.byEmail(asks[1]!.id, 'ref@example.com'))!.total_referrals, 3);
    });

    it('getParticipant calls at once answer as they would one after another: their participant, or 404', async () => {
      const asks = await twoCampaigns();
      const get = (id: string, email: string) => s.admin.getParticipant(id, email).catch((e: Error) => e.message);
      const alone = await serially(asks, get);
      assert.deepEqual(await Promise.all(asks.map((q) => get(q.id, q.email))), alone);
      assert.equal(alone.filter((a) => a === 'No participant of this campaign has this email').length, 2 + 3);
    });

    it('addresses with quotes, backslashes, braces, commas and NULL go through the batch parameter intact', async () => {
      const id = await s.campaign();
      const emails = ['a"b@example.com', 'c\\d@example.com', '{e,f}@example.com', 'null@example.com', "o'neil@example.com", 'ünï@example.com'];
      // Rows as a database kept from before addresses had to be dot-atoms (the API refuses the first three now).
      const now = Date.now();
      await s.ctx.store.db
        .insertInto('participants')
        .values(emails.map((email, i) => ({ campaign_id: id, email, email_key: email, code: `QUOTED${i}`, created_on: now, updated_on: now, signup_source: 'api' as const })))
        .execute();
      const { store } = s.ctx;
      let rows: unknown[] = [];
      const sent = await statementsWithValues(async () => {
        rows = await Promise.all(['NULL', ...emails, 'a"b', '{e,f}'].map((email) => store.answers.byEmail(id, email)));
      });
      assert.deepEqual(rows.map((r) => (r as { email: string } | undefined)?.email), [undefined, ...emails, undefined, undefined]);
      assert.ok(sent.some((q) => BATCHED.test(q.text)), 'the reads did not go together');
    });

    it('a read asked after a write was answered sees it, while other reads are at the database', async () => {
      const { id, emails } = await campaign(3);
      const busy = Array.from({ length: 30 }, (_, i) => s.admin.getParticipant(id, emails[i % emails.length]!));
      await s.admin.addParticipant({ id, email: 'late@example.com' });
      const [late] = await Promise.all([s.admin.getParticipant(id, 'late@example.com'), ...busy]);
      assert.equal(late.email, 'late@example.com');
      await rejects(() => s.admin.getParticipant(id, 'never@example.com'), 404, 'participant_not_found');
    });

    it('qualifications at once, their referees read together: every payment lands on its own payer', async () => {
      const { id, emails } = await campaign(8);
      const referees = emails.slice(1);
      for (const email of referees) await s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' });
      await Promise.all(referees.map((email) => s.admin.qualifyParticipant({ id, email, amountPaid: '2.00' })));
      for (const email of referees) assert.equal((await s.ctx.store.findParticipantByEmail(id, email))!.amount_paid_cents, 300, email);
    });

    it('an address PostgreSQL refuses fails only its own read; the others of its batch are answered', async () => {
      const { id, emails } = await campaign(4);
      const { store } = s.ctx;
      // A NUL byte is not text PostgreSQL takes (22021): the batch fails whole, then each read runs alone.
      const reads = [...emails, 'bad\u0000@example.com', 'nobody@example.com'].map((email) => store.findParticipantByEmail(id, email));
      const settled = await Promise.allSettled(reads);
      assert.deepEqual(
        settled.slice(0, emails.length).map((r) => (r.status === 'fulfilled' ? r.value?.email : r.reason)),
        emails,
      );
      const bad = settled[emails.length]!;
      assert.equal(bad.status, 'rejected');
      assert.equal((bad as PromiseRejectedResult).reason.code, '22021');
      assert.deepEqual(settled.at(-1), { status: 'fulfilled', value: undefined });
    });

    it("a transaction's reads run in it, one statement each", async () => {
      const { id, emails } = await campaign(3);
      const sent = await statementsWithValues(() =>
        s.ctx.store.transaction(async (tx) => {
          const rows = await Promise.all(emails.map((email) => tx.findParticipantByEmail(id, email)));
          assert.deepEqual(rows.map((r) => r?.email), emails);
        }),
      );
      assert.equal(sent.filter((q) => BATCHED.test(q.text)).length, 0);
    });
  });
}

describe('point reads: a failed batch', () => {
  /** ByEmail whose batch statement fails with `err`; the single reads answer from `rows`. */
  function failing(err: Error & { code?: string }) {
    const alone: string[] = [];
    const reads: ByEmail<{ email: string }> = {
      one: async (_db, _c, email) => (alone.push(email), email.startsWith('x') ? [] : [{ email }]),
      many: async () => {
        throw err;
      },
    };
    return { reads, alone };
  }
  const db = {} as Kysely<Database>;

  it('the database away: every read of the batch gets the error, none is sent again', async () => {
    const outage = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { reads, alone } = failing(outage);
    const points = new PointReads(db, reads, true);
    const settled = await Promise.allSettled(['a', 'b', 'c'].map((e) => points.read('c1', e)));
    // The first went alone (nothing was in flight); the other two waited together and failed together.
    assert.deepEqual(settled[0], { status: 'fulfilled', value: { email: 'a' } });
    assert.deepEqual(settled.slice(1).map((r) => (r as PromiseRejectedResult).reason), [outage, outage]);
    assert.deepEqual(alone, ['a']);
  });

  it('any other error: each read of the batch runs alone and gets its own answer', async () => {
    const { reads, alone } = failing(Object.assign(new Error('invalid byte sequence'), { code: '22021' }));
    const points = new PointReads(db, reads, true);
    const answers = await Promise.all(['a', 'b', 'x', 'c'].map((e) => points.read('c1', e)));
    assert.deepEqual(answers, [{ email: 'a' }, { email: 'b' }, undefined, { email: 'c' }]);
    assert.deepEqual(alone.sort(), ['a', 'b', 'c', 'x']);
  });

  it('reads of different campaigns never share a statement', async () => {
    const many: string[][] = [];
    const reads: ByEmail<{ email: string }> = {
      one: async (_db, c, email) => [{ email: `${c}:${email}` }],
      many: async (_db, c, emails) => (many.push(emails.map((e) => `${c}:${e}`)), emails.map((e) => ({ email: e }))),
    };
    const points = new PointReads(db, reads, true);
    await Promise.all([points.read('c0', 'first'), points.read('c1', 'a'), points.read('c2', 'b'), points.read('c1', 'c'), points.read('c2', 'd')]);
    assert.deepEqual(many, [['c1:a', 'c1:c'], ['c2:b', 'c2:d']]);
  });
});
