/**
 * PostgreSQL writes the sign-ups that arrive together as one statement (src/server/referrals/store/signup-batch.ts).
 * What must hold: fewer statements than sign-ups under concurrency, every sign-up written once with its
 * counters, count delta and token; a batch that fails (an email taken) costs only the failing sign-up
 * its write, the others answer as they would alone; and no batch holds two sign-ups whose fraud
 * counts (by network) must see each other.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { dayOf } from '../../src/server/store/stats-store.js';
import { browserAt } from './helpers/addresses.js';
import { databaseKinds } from './helpers/databases.js';
import { statementsWithValues, type SentStatement } from './helpers/pg-statements.js';
import { startService, WITHOUT_SIGNUP_LIMITS, type TestService } from './helpers/service.js';

const BATCH = /json_populate_recordset\(cast\(null as participants\)/;

/** The batch statements sent while `call` runs, each with its parameters and how it ended. */
const batchesSent = async (call: () => Promise<unknown>) => (await statementsWithValues(call)).filter((q) => BATCH.test(q.text));

/** The participants of a batch statement (its first parameter). */
const membersOf = (sent: SentStatement) => JSON.parse(sent.values[0] as string) as { email: string; signup_net: string | null }[];

// Through PgBouncer too: sign-ups of many requests go as one statement, on whichever server session the pooler lends.
for (const kind of (await databaseKinds({ pgbouncer: true })).filter((k) => k.dialect === 'postgres')) {
  describe(`sign-ups written together [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    beforeEach(async () => {
      // Without the keyless sign-up limits, so that a browser's sign-up is the usual one (facts assumed).
      s = await startService(kind, { rateLimits: WITHOUT_SIGNUP_LIMITS });
    });
    afterEach(() => s.close());

    it('concurrent sign-ups share statements, and each is written once with its counters, its count and its token', async () => {
      const id = await s.campaign();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const n = 40;
      const visitor = (i: number) => browserAt(s.url, `127.0.4.${i + 1}`);
      let answers: Awaited<ReturnType<typeof s.admin.addParticipant>>[] = [];
      const sent = await batchesSent(async () => {
        answers = await Promise.all(
          Array.from({ length: n }, (_, i) => visitor(i).addParticipant({ id, email: `friend${i}@example.com`, referredByCode: ann.referralCode! })),
        );
      });
      assert.equal(answers.length, n);
      assert.ok(sent.length < n, `${sent.length} statements for ${n} sign-ups`);
      assert.ok(
        sent.some((b) => membersOf(b).length > 1),
        'some statement wrote more than one sign-up',
      );
      assert.equal(sent.map(membersOf).flat().length, n, 'each sign-up in one statement');
      for (const b of sent) assert.equal(await b.outcome, undefined);

      // Each once, each with the token its browser was given.
      const rows = await s.ctx.store.db.selectFrom('participants').select('email').where('campaign_id', '=', id).execute();
      assert.equal(rows.length, n + 1);
      assert.equal(new Set(rows.map((r) => r.email)).size, n + 1);
      const tokens = await s.ctx.store.db.selectFrom('participant_tokens').select('participant_id').execute();
      assert.equal(tokens.length, n, "one for each browser's sign-up");
      // The counters, the day's and the referrer's count: as many as were written.
      assert.equal((await s.admin.getCampaign(id)).participants, n + 1);
      const [day] = await s.ctx.store.stats.daily(id);
      assert.deepEqual([day!.day, day!.signups, day!.referred_signups], [dayOf(Date.now()), n + 1, n]);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, n);
    });

    it('a batch that fails on a taken email writes the others, and answers the taken one as alone', async () => {
      const id = await s.campaign();
      const taken = ['old0@example.com', 'old1@example.com', 'old2@example.com'];
      for (const email of taken) await s.admin.addParticipant({ id, email, firstName: 'Old' });
      const before = await s.admin.getCampaign(id);
      const emails = Array.from({ length: 30 }, (_, i) => (i % 10 === 5 ? taken[i / 10 - 0.5]! : `new${i}@example.com`));
      let answers: Awaited<ReturnType<typeof s.admin.addParticipant>>[] = [];
      const sent = await batchesSent(async () => {
        answers = await Promise.all(emails.map((email) => s.admin.addParticipant({ id, email })));
      });
      // The taken ones answer with the participant there already (as a sign-up alone does), the others are new.
      for (const [i, a] of answers.entries()) {
        assert.equal(a.email, emails[i]);
        if (taken.includes(emails[i]!)) assert.equal(a.firstName, 'Old');
      }
      assert.equal((await s.admin.getCampaign(id)).participants, before.participants! + 27);
      const failed = (await Promise.all(sent.map(async (b) => ({ b, err: (await b.outcome) as { code?: string } | undefined })))).filter((x) => x.err);
      // Where a taken email shared a statement with others, that statement failed whole (and was written again without it).
      for (const { b, err } of failed) {
        assert.equal(err!.code, '23505');
        assert.ok(membersOf(b).some((m) => taken.includes(m.email)));
      }
      assert.ok(failed.some(({ b }) => membersOf(b).length > 1), 'a taken email shared a statement with new ones');
    });

    it('no statement holds two sign-ups of a campaign from one network (their fraud counts must see each other)', async () => {
      // Fraud scoring counts a referrer's referees and the campaign's sign-ups from the sign-up's network
      // (../../src/server/referrals/domain/fraud.ts); a batch's statement checks what its sign-ups assumed in one
      // snapshot, in which two of them could not see each other. So they go in different batches.
      const id = await s.campaign();
      const ref = await s.admin.addParticipant({ id, email: 'ref@example.com' });
      const nets = ['127.0.6.9', '127.0.7.9'];
      const sent = await batchesSent(() =>
        Promise.all(Array.from({ length: 12 }, (_, i) => browserAt(s.url, nets[i % 2]!).addParticipant({ id, email: `same${i}@example.com`, referredByCode: ref.referralCode! }))),
      );
      assert.ok(sent.length > 0);
      for (const b of sent) {
        const inBatch = membersOf(b).map((m) => m.signup_net).filter((n) => n !== null);
        assert.equal(new Set(inBatch).size, inBatch.length, JSON.stringify(membersOf(b)));
      }
      const rows = await s.ctx.store.db.selectFrom('participants').select('email').where('referred_by_code', '=', ref.referralCode!).execute();
      assert.equal(rows.length, 12);
    });
  });
}
