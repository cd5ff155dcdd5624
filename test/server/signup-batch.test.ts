/**
 * PostgreSQL writes the sign-ups that arrive together as one statement (src/server/store/signup-batch.ts).
 * What must hold: fewer statements than sign-ups under concurrency, every sign-up written once with its
 * counters, count delta and token; a batch that fails (an email taken) costs only the failing sign-up
 * its write, the others answer as they would alone; and sign-ups that read each other's facts (one
 * network, one link) are decided as in some serial order.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pg from 'pg';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limit.js';
import { dayOf } from '../../src/server/store/stats-store.js';
import { browserAt } from './helpers/addresses.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

const BATCH = /json_populate_recordset\(cast\(null as participants\)/;

interface Sent {
  text: string;
  values: unknown[];
  outcome: Promise<unknown>;
}

/** The batch statements sent while `call` runs, each with its parameters and how it ended. */
async function batchesSent(call: () => Promise<unknown>): Promise<Sent[]> {
  const query = mock.method(pg.Client.prototype, 'query');
  try {
    await call();
  } finally {
    mock.restoreAll();
  }
  return query.mock.calls.flatMap((c) => {
    const [q, v] = c.arguments as unknown as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    const text = typeof q === 'string' ? q : q.text;
    const values = (typeof q === 'string' ? v : q.values) ?? [];
    return BATCH.test(text) ? [{ text, values, outcome: Promise.resolve(c.result).then(() => undefined, (err: unknown) => err) }] : [];
  });
}

/** The participants of a batch statement (its first parameter). */
const membersOf = (sent: Sent) => JSON.parse(sent.values[0] as string) as { email: string; signup_net: string | null }[];

for (const kind of (await databaseKinds()).filter((k) => k.dialect === 'postgres')) {
  describe(`sign-ups written together [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    beforeEach(async () => {
      // Without the keyless sign-up limits, so that a browser's sign-up is the usual one (facts assumed).
      s = await startService(kind, { rateLimits: { ...DEFAULT_RATE_LIMITS, keyFailuresPerIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, redisUrl: undefined } });
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

    it('sign-ups from one network through one link are scored as one after another would be', async () => {
      // Three referees of one referrer from one network make a squat (../../src/server/domain/fraud.ts):
      // scored in any serial order, the first two are low and the third high, held with the earlier ones.
      const serial = await s.campaign();
      const together = await s.campaign();
      const outcome = async (id: string, concurrent: boolean) => {
        const ref = await s.admin.addParticipant({ id, email: 'ref@example.com' });
        const sameNet = (i: number) => browserAt(s.url, '127.0.6.9').addParticipant({ id, email: `same${i}@example.com`, referredByCode: ref.referralCode! });
        if (concurrent) await Promise.all([0, 1, 2, 3, 4, 5].map(sameNet));
        else for (const i of [0, 1, 2, 3, 4, 5]) await sameNet(i);
        const all = await s.ctx.store.db.selectFrom('participants').select(['fraud_score', 'approval']).where('campaign_id', '=', id).where('referred_by_code', '=', ref.referralCode!).execute();
        return all.map((p) => `${p.fraud_score}/${p.approval}`).sort();
      };
      const expected = await outcome(serial, false);
      let got: string[] = [];
      const sent = await batchesSent(async () => {
        got = await outcome(together, true);
      });
      assert.deepEqual(got, expected);
      // No statement held two of them: each read what the one before it wrote.
      for (const b of sent) {
        const nets = membersOf(b).map((m) => m.signup_net).filter((n) => n !== null);
        assert.equal(new Set(nets).size, nets.length, JSON.stringify(membersOf(b)));
      }
    });
  });
}
