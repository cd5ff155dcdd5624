/**
 * On PostgreSQL a new sign-up reads in one statement (is the email taken, the referrer, fraud scoring's
 * counts) and writes in one (the participant, the counters, the referrer's count, the event and its
 * deliveries, the token): two round trips. Concurrent sign-ups and qualifications of one referrer all
 * succeed.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pg from 'pg';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;

describe('round trips of a sign-up [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    s = await startService(postgres);
  });
  afterEach(() => s.close());

  it('a new participant is read for in one named statement and written in one with its counters and event', async () => {
    const id = await s.campaign();
    const first = await s.admin.addParticipant({ id, email: 'first@example.com' });
    const signUp = async (email: string, client = s.admin, referredByCode?: string) => {
      const query = mock.method(pg.Client.prototype, 'query');
      try {
        await client.addParticipant({ id, email, ...(referredByCode && { referredByCode }) });
      } finally {
        mock.restoreAll();
      }
      return (
        query.mock.calls
          .map((c) => (typeof c.arguments[0] === 'string' ? { text: c.arguments[0] } : (c.arguments[0] as { name?: string; text: string })))
          // The cache watcher's poll of the change counter runs on its own timer, not as part of the sign-up.
          .filter((q) => !/^select "n" from "cache_epoch"/.test(q.text))
      );
    };
    const sent = await signUp('second@example.com');
    // Is the email taken (with the referrer and fraud counts, when asked)? Then the one writing statement.
    assert.equal(sent.length, 2, sent.map((q) => q.text).join('\n'));
    assert.match(sent[0]!.text, /^select \(select row_to_json\(p\) from participants p/);
    assert.match(sent[0]!.name ?? '', /^refkit_\d+$/);
    const one = sent[1]!;
    assert.match(one.text, /^with s0 as \(insert into "participants"/);
    assert.match(one.text, /insert into "campaign_counters"/);
    assert.match(one.text, /insert into "campaign_daily_stats"/);
    assert.match(one.text, /insert into "webhook_events"/);
    // Named, so each connection parses and plans it once; the next sign-up of its kind sends the same text.
    assert.match(one.name ?? '', /^refkit_\d+$/);
    const again = (await signUp('third@example.com'))[1]!;
    assert.deepEqual([again.name, again.text], [one.name, one.text]);

    const c = await s.admin.getCampaign(id);
    assert.equal(c.participants, 3);
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').execute();
    assert.ok(events.some((e) => e.payload.includes('second@example.com')));
    assert.ok(events.some((e) => e.payload.includes('third@example.com')));
    const third = await s.admin.getParticipant(id, 'third@example.com');
    assert.equal(third.email, 'third@example.com');

    // A visitor's referred sign-up, scored for fraud from its network: still two, the read named as before.
    const referred = await signUp('fourth@example.com', s.browser, first.referralCode!);
    assert.equal(referred.length, 2, referred.map((q) => q.text).join('\n'));
    assert.equal(referred[0]!.name, sent[0]!.name);
    const fourth = await s.admin.getParticipant(id, 'fourth@example.com');
    assert.deepEqual([fourth.referredByCode, fourth.fraudScore], [first.referralCode, 'low']);
  });

  it("the read's rows (row_to_json) are the rows the store's point reads answer, and its counts are capped as fraud scoring's", async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann' });
    for (let i = 0; i < 4; i++) await s.browser.addParticipant({ id, email: `r${i}@example.com`, referredByCode: ann.referralCode! });
    const { store } = s.ctx;
    const row = await store.findParticipantByEmail(id, 'ann@example.com');
    const net = (await store.findParticipantByEmail(id, 'r0@example.com'))!.signup_net!;
    const facts = await store.signupFacts({
      campaignId: id,
      email: 'ann@example.com',
      referredByCode: ann.referralCode!,
      referredByEmail: 'ann@example.com',
      fromNet: { net, refereesCap: 2, signupsSince: 0, signupsCap: 3 },
    });
    assert.deepEqual(facts.existing, row);
    assert.deepEqual(facts.byCode, row);
    assert.deepEqual(facts.byEmail, row);
    assert.deepEqual(facts.fromNet, { referees: 2, signups: 3 }, 'four referees, and four sign-ups, from the network, counted up to the caps');
    const none = await store.signupFacts({ campaignId: id, email: 'new@example.com', referredByCode: 'NOPE2345', fromNet: { net: '203.0.113.9', refereesCap: 2, signupsSince: 0, signupsCap: 3 } });
    assert.deepEqual(none, { existing: undefined, byCode: undefined, byEmail: undefined, fromNet: { referees: 0, signups: 0 } });
  });

  it('sign-ups and qualifications of one referrer at once all succeed (shared rows are locked in one order)', async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const referees = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
    for (const email of referees) await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => s.browser.addParticipant({ id, email: `n${i}@example.com`, referredByCode: ann.referralCode! })),
      ...referees.flatMap((email) => [s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' }), s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' })]),
    ]);
    const after = await s.admin.getParticipant(id, 'ann@example.com');
    assert.equal(after.totalReferrals, 40);
    assert.equal((await s.admin.getCampaign(id)).participants, 41);
  });

  it("qualifying a chain's members at once (each the referrer of the next) all succeed, without deadlocks", async () => {
    const id = await s.campaign();
    let code = (await s.admin.addParticipant({ id, email: 'c0@example.com' })).referralCode!;
    for (let i = 1; i <= 12; i++) code = (await s.admin.addParticipant({ id, email: `c${i}@example.com`, referredByCode: code })).referralCode!;
    // Each member twice: the first call qualifies and credits, the second only records a payment.
    await Promise.all(
      Array.from({ length: 24 }, (_, k) => s.admin.qualifyParticipant({ id, email: `c${1 + (k % 12)}@example.com`, amountPaid: '1.00' })),
    );
    for (let i = 0; i < 12; i++) {
      const p = await s.admin.getParticipant(id, `c${i}@example.com`);
      assert.equal(p.referralReward, 10, `c${i} credited once as a referrer`);
    }
    const last = await s.admin.getParticipant(id, 'c12@example.com');
    assert.equal(last.rewardEventCompleted, true);
  });
});
