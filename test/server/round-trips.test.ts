/**
 * On PostgreSQL the usual new sign-up (a new email, through a share link this process knows, from a
 * network with no earlier sign-up in the campaign lately) is one round trip when no keyless sign-up limit
 * applies (a secret key's sign-ups always; a browser's with RATE_LIMIT_SIGNUPS_* at 0): its facts are assumed, and
 * its one writing statement (the participant, the counters, the referrer's count, the event and its
 * deliveries, the token) checks them. Any other is two: it reads in one statement (is the email taken,
 * the referrer, fraud scoring's counts) and writes in one; and an assumption found untrue costs the failed
 * write, then those two, deciding exactly as if it had read from the start. Concurrent sign-ups and
 * qualifications of one referrer all succeed. The reward ledger adds no round trip: a redemption is one
 * statement with its entry, and a credit's entries are inserted by the statement that credits the referrer.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pg from 'pg';
import { CACHE_CHECK_MS } from '../../src/server/store/caches.js';
import { browserAt } from './helpers/addresses.js';
import { databaseKinds } from './helpers/databases.js';
import { statementsSent } from './helpers/pg-statements.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { startService, WITHOUT_SIGNUP_LIMITS, type TestService } from './helpers/service.js';

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;

describe('round trips of a sign-up [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    // Without the keyless sign-up limits: under them a browser's sign-up reads its facts first, since
    // they count only calls that create someone (../../src/server/referrals/domain/signups.ts addParticipant).
    s = await startService(postgres, { rateLimits: WITHOUT_SIGNUP_LIMITS });
  });
  afterEach(() => s.close());

  it('a new participant is written in one named statement with its counters and event, checking what it assumed', async () => {
    const id = await s.campaign();
    // An endpoint takes the sign-ups' events, so that each writes one (none is written without one).
    const generation = s.ctx.store.caches.generation;
    await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added', 'referee_added'] });
    // Adding it tells every process to drop its caches, this one too (NOTIFY, then the change counter's
    // next check): wait for both, which would otherwise land among the statements counted below.
    const since = Date.now();
    while (s.ctx.store.caches.generation === generation || Date.now() - since < 2 * CACHE_CHECK_MS) await new Promise((r) => setTimeout(r, 20));
    const first = await s.admin.addParticipant({ id, email: 'first@example.com' });
    // A browser's sign-up asks whether the account keeps IPs: its settings are read once and cached, as
    // the campaign is. Read here, so that the browsers' sign-ups counted below find them cached.
    await s.ctx.store.accountSettings.find(DEFAULT_ACCOUNT.accountId);
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
    const texts = (sent: { text: string }[]) => sent.map((q) => q.text).join('\n');
    const sent = await signUp('second@example.com');
    // Nothing read: the one writing statement, which checks that the network has not signed up lately.
    assert.equal(sent.length, 1, texts(sent));
    const one = sent[0]!;
    assert.match(one.text, /^with s0 as \(insert into "participants"/);
    // The id alone comes back: the row is the one the service built (../../src/server/store/store.ts NEW_PARTICIPANT_DEFAULTS).
    // In the form of a batch (../../src/server/referrals/store/signup-batch.ts), of one here, its assumption checked.
    assert.match(one.text, /json_populate_recordset\(cast\(null as participants\)[^]*refkit_assert\([^]*returning "id"\)/);
    assert.match(one.text, /insert into "campaign_counters"/);
    assert.match(one.text, /insert into "campaign_daily_stats"/);
    assert.match(one.text, /insert into "webhook_events"/);
    assert.match(one.text, /insert into "webhook_deliveries"/);
    // Named, so each connection parses and plans it once; the next sign-up of its kind sends the same text.
    assert.match(one.name ?? '', /^refkit_\d+$/);
    const again = await signUp('third@example.com');
    assert.deepEqual(again.map((q) => [q.name, q.text]), [[one.name, one.text]]);

    const c = await s.admin.getCampaign(id);
    assert.equal(c.participants, 3);
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').execute();
    assert.ok(events.some((e) => e.payload.includes('second@example.com')));
    assert.ok(events.some((e) => e.payload.includes('third@example.com')));
    const third = await s.admin.getParticipant(id, 'third@example.com');
    assert.equal(third.email, 'third@example.com');
    assert.equal(Object.hasOwn(third, 'facts_hold'), false);
    // The row a sign-up answers with is the row a read finds: its own values and the migrations' defaults.
    // (In a campaign of its own, so the counts below stay this one's.)
    const now = Date.now();
    const elsewhere = await s.campaign();
    const built = await s.ctx.store.insertSignup({
      participant: {
        campaign_id: elsewhere,
        email: 'built@example.com',
        email_key: 'built@example.com',
        first_name: 'Bea',
        code: 'BUILT234',
        created_on: now,
        updated_on: now,
        signup_source: 'browser',
        signup_ip: '203.0.113.7',
        signup_net: '203.0.113.0',
        fraud_score: 'low',
        locale: 'fr',
      },
    });
    assert.deepEqual(built, await s.ctx.store.findParticipantByEmail(elsewhere, 'built@example.com'));

    // An email already taken: the assumed write fails whole, then the read finds the participant.
    const taken = await signUp('second@example.com');
    assert.equal(taken.length, 2, texts(taken));
    assert.equal(taken[0]!.name, one.name);
    assert.match(taken[1]!.text, /^select \(select row_to_json\(r\) from \(select "p"\."id"/);
    assert.equal((await s.admin.getCampaign(id)).participants, 3);
    assert.equal((await s.ctx.store.db.selectFrom('webhook_events').select('id').execute()).length, 3, 'no event from the failed write');

    // A visitor through a share link this process has not read yet: read (which learns the code), then write.
    const visitor = (n: number) => browserAt(s.url, `127.0.3.${n}`);
    const unknown = await signUp('fourth@example.com', visitor(1), first.referralCode!);
    assert.equal(unknown.length, 2, texts(unknown));
    assert.match(unknown[0]!.text, /^select \(select row_to_json\(r\) from \(select "p"\."id"/);
    assert.match(unknown[0]!.name ?? '', /^refkit_\d+$/);
    // The next visitor through it: one statement, scored as the read would have.
    const known = await signUp('fifth@example.com', visitor(2), first.referralCode!);
    assert.equal(known.length, 1, texts(known));
    for (const email of ['fourth@example.com', 'fifth@example.com']) {
      const p = await s.admin.getParticipant(id, email);
      assert.deepEqual([p.referredByCode, p.fraudScore], [first.referralCode, 'low']);
    }
    // Visitor 2's network signs someone else up through the same link: not what was assumed (the write
    // fails whole), so read, and decide on the real counts.
    const changed = await signUp('sixth@example.com', visitor(2), first.referralCode!);
    assert.equal(changed.length, 3, texts(changed));
    assert.equal((await s.admin.getCampaign(id)).participants, 6);
    const sixth = await s.admin.getParticipant(id, 'sixth@example.com');
    assert.equal(sixth.referredByCode, first.referralCode);
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

  it("a redemption is one statement with its ledger entry, and a credit's entries go with the referrer's update", async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    const qualify = await statementsSent(() => s.admin.qualifyParticipant({ id, email: 'ben@example.com' }));
    const ledgerWrites = qualify.filter((t) => /reward_entries/.test(t));
    assert.equal(ledgerWrites.length, 1, qualify.join('\n'));
    // The entries, and both sides' counters, as CTEs of one statement.
    assert.match(ledgerWrites[0]!, /^with s0 as \(insert into "reward_entries" .*\), s1 as \(update "participants" set "referral_reward" = .*\), s2 as \(update "participants" set /);

    const redeem = await statementsSent(() => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 4 }));
    // Beside the redemption, its audit log entry, in one transaction with it (../../src/server/http/change-unit.ts).
    const audit = (sent: string[]) => sent.filter((t) => /^insert into "audit_log"/.test(t));
    const bounds = /^(begin|commit|rollback)$/;
    assert.equal(audit(redeem).length, 1, redeem.join('\n'));
    assert.deepEqual([redeem[0], redeem.at(-1)], ['begin', 'commit']);
    const writes = redeem.filter((t) => !/^select/.test(t) && !audit([t]).length && !bounds.test(t));
    assert.equal(writes.length, 1, redeem.join('\n'));
    assert.match(writes[0]!, /^with "redeemed" as \(update "participants" .* insert into "reward_entries"/);
    assert.equal((await s.admin.listRewardEntries(id, 'ann@example.com'))[0]!.amount, -4);
    // Refused: the one statement changes nothing, and writes no entry.
    const refused = await statementsSent(() => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 7 }).catch(() => undefined));
    assert.equal(refused.filter((t) => !/^select/.test(t) && !bounds.test(t)).length, 1, refused.join('\n'));
    assert.equal(refused.at(-1), 'rollback');
    assert.equal(audit(refused).length, 0, 'a refusal writes no audit entry');
    assert.equal((await s.admin.listRewardEntries(id, 'ann@example.com')).length, 2);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 6);
  });

  it('a repeated payment that credits nothing is one statement after the read, answering and writing all a transaction would', async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '10.00' });
    let answer: Awaited<ReturnType<typeof s.admin.qualifyParticipant>> | undefined;
    const sent = await statementsSent(async () => (answer = await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '2.50' })));
    // Read the payer, then write and answer: 2 where the transaction and the answer's read took 9.
    assert.equal(sent.length, 2, sent.join('\n'));
    // As a batch (../../src/server/rewards/store/payment-batch.ts), of one here: it locks without waiting.
    assert.match(sent[1]!, /^with input as materialized \([^]*for no key update skip locked\),\s+payer as \(\s+update participants/);
    assert.deepEqual(answer, await s.admin.getParticipant(id, 'ben@example.com'));
    const { store } = s.ctx;
    // The row it answers with is the row as written, its referral count with the deltas not yet folded.
    await s.admin.addParticipant({ id, email: 'eve@example.com', referredByCode: (await s.admin.getParticipant(id, 'ben@example.com')).referralCode! });
    const written = await store.payments.recordRepeat((await store.findParticipantByEmail(id, 'ben@example.com'))!.id, (await store.findParticipantByEmail(id, 'ann@example.com'))!.id, id, 125, Date.now());
    assert.deepEqual(written, await store.findParticipantByEmail(id, 'ben@example.com'));
    assert.equal(written!.total_referrals, 1);
    const ben = (await store.findParticipantByEmail(id, 'ben@example.com'))!;
    const annRow = (await store.findParticipantByEmail(id, 'ann@example.com'))!;
    assert.deepEqual([ben.amount_paid_cents, ben.payment_count, ben.reward_event_completed, ben.reward_credited], [1375, 3, 1, 1]);
    assert.deepEqual([annRow.revenue_generated_cents, annRow.referral_reward, annRow.total_completed_referred], [1375, 10, 1]);
    // The chain of payments (each naming the one before), numbered, only the first qualifying, none owing a commission.
    const payments = await store.db.selectFrom('payments').selectAll().where('participant_id', '=', ben.id).orderBy('id').execute();
    assert.deepEqual(
      payments.map((p) => [p.seq, p.amount_cents, p.qualifying, p.commission_credited]),
      [[1, 1000, 1, 1], [2, 250, 0, 1], [3, 125, 0, 1]],
    );
    assert.deepEqual(payments.map((p) => p.prev_id), [null, payments[0]!.id, payments[1]!.id]);
    assert.equal(ben.last_payment_id, payments[2]!.id);
    const days = await store.stats.daily(id);
    assert.equal(days.reduce((n, d) => n + d.referred_revenue_cents, 0), 1375);
    assert.equal(days.reduce((n, d) => n + d.qualified, 0), 1);

    // With a commission to decide, the transaction (the commission's entries, the payment decided).
    const withCommission = await s.campaign({ referrerRewardPercent: 10 });
    const cid = (await s.admin.addParticipant({ id: withCommission, email: 'cid@example.com' })).referralCode!;
    await s.admin.addParticipant({ id: withCommission, email: 'dee@example.com', referredByCode: cid });
    await s.admin.qualifyParticipant({ id: withCommission, email: 'dee@example.com', amountPaid: '10.00' });
    const commissioned = await statementsSent(() => s.admin.qualifyParticipant({ id: withCommission, email: 'dee@example.com', amountPaid: '10.00' }));
    assert.ok(commissioned.length > 3, commissioned.join('\n'));
    assert.equal((await s.admin.listRewardEntries(withCommission, 'cid@example.com')).filter((e) => e.kind === 'commission').length, 2);
  });

  it('a repeated payment finds its payer unqualified under the locks (a refund came first): it writes nothing, and the call qualifies them again', async () => {
    // With a hold, so that a full refund of the qualifying payment undoes the referral (../../docs/rewards.md).
    const id = await s.campaign({ holdDays: 30 });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '10.00' });
    const { store } = s.ctx;
    const ben = (await store.findParticipantByEmail(id, 'ben@example.com'))!;
    const annId = (await store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    // The call read Ben qualified; then the refund undid it, before its statement ran.
    await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '10.00' });
    const revenue = async () => (await store.stats.daily(id)).reduce((n, d) => n + d.referred_revenue_cents, 0);
    const dayBefore = await revenue();
    assert.equal(await store.payments.recordRepeat(ben.id, annId, id, 500, Date.now()), undefined);
    const after = (await store.findParticipantByEmail(id, 'ben@example.com'))!;
    assert.deepEqual([after.payment_count, after.amount_paid_cents, after.reward_event_completed], [1, 0, 0]);
    assert.equal((await store.findParticipantByEmail(id, 'ann@example.com'))!.revenue_generated_cents, 0);
    assert.equal(await revenue(), dayBefore);
    // The call itself reads Ben unqualified and takes the transaction: this payment qualifies him again.
    const v = await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '5.00' });
    assert.equal(v.rewardEventCompleted, true);
    const payments = await store.db.selectFrom('payments').select(['seq', 'qualifying']).where('participant_id', '=', ben.id).orderBy('id').execute();
    assert.deepEqual(payments.map((p) => [p.seq, p.qualifying]), [[1, 1], [2, 1]]);
  });

  it("repeated payments of one payer and of their referrer's other referees at once are each recorded once, in one chain", async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const referees = ['ben', 'cat', 'dan'].map((n) => `${n}@example.com`);
    for (const email of referees) {
      await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' });
    }
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.admin.qualifyParticipant({ id, email: referees[i % 3]!, amountPaid: '1.00' })));
    const { store } = s.ctx;
    for (const email of referees) {
      const p = (await store.findParticipantByEmail(id, email))!;
      assert.deepEqual([p.payment_count, p.amount_paid_cents], [11, 1100], email);
      const payments = await store.db.selectFrom('payments').select(['id', 'prev_id', 'seq']).where('participant_id', '=', p.id).orderBy('seq').execute();
      assert.deepEqual(payments.map((r) => r.seq), Array.from({ length: 11 }, (_, i) => i + 1));
      payments.forEach((r, i) => assert.equal(r.prev_id, i === 0 ? null : payments[i - 1]!.id));
    }
    assert.equal((await store.findParticipantByEmail(id, 'ann@example.com'))!.revenue_generated_cents, 3300);
    assert.equal((await store.stats.daily(id)).reduce((n, d) => n + d.referred_revenue_cents, 0), 3300);
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

describe('round trips of a read [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    s = await startService(postgres);
  });
  afterEach(() => s.close());

  it("getReferrals reads its referrer by address, then the page by the referrer's id, on every kind of page; an unknown address is a 404 from the first read alone", async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    for (let i = 0; i < 5; i++) await s.admin.addParticipant({ id, email: `r${i}@example.com`, referredByCode: ann.referralCode! });
    await s.admin.addParticipant({ id, email: 'bob@example.com' });
    // The campaign is cached after its first read: read it here so that only the referrals' read is counted.
    await s.admin.getCampaign(id);
    const reads = (sent: string[]) => sent.filter((t) => /"participants"/.test(t));
    /** Each read of participants: the referrer's by address, or a page by referrer. */
    const shapes = (sent: string[]) => reads(sent).map((t) => (/"email" = \$2/.test(t) ? 'by address' : /"referred_by_id" = \$\d/.test(t) ? 'by referrer' : t));
    let page: Awaited<ReturnType<typeof s.admin.getReferralsPage>> | undefined;
    const first = await statementsSent(async () => (page = await s.admin.getReferralsPage(id, 'ann@example.com', { pageSize: 2 })));
    assert.deepEqual(page!.items.map((p) => p.email), ['r0@example.com', 'r1@example.com']);
    assert.deepEqual(shapes(first), ['by address', 'by referrer'], first.join('\n'));
    const after = await statementsSent(async () => (page = await s.admin.getReferralsPage(id, 'ann@example.com', { pageSize: 2, cursor: page!.nextCursor! })));
    assert.deepEqual(page!.items.map((p) => p.email), ['r2@example.com', 'r3@example.com']);
    assert.deepEqual(shapes(after), ['by address', 'by referrer'], after.join('\n'));
    const third = await statementsSent(async () => (page = await s.admin.getReferralsPage(id, 'ann@example.com', { pageSize: 2, page: 3 })));
    assert.deepEqual(page!.items.map((p) => p.email), ['r4@example.com']);
    assert.equal(page!.nextCursor, undefined);
    assert.deepEqual(shapes(third), ['by address', 'by referrer'], third.join('\n'));
    // A participant with no referrals is an empty page, no one with the address a 404.
    assert.deepEqual(await s.admin.getReferrals(id, 'bob@example.com'), []);
    const unknown = await statementsSent(() => s.admin.getReferrals(id, 'nobody@example.com').then(
      () => assert.fail('an unknown address must be refused'),
      (err: { status?: number; code?: string }) => assert.deepEqual([err.status, err.code], [404, 'participant_not_found']),
    ));
    assert.deepEqual(shapes(unknown), ['by address'], unknown.join('\n'));
  });
});
