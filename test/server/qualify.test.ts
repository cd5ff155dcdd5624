import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { eachDatabase } from './helpers/suite.js';
import type { TestService } from './helpers/service.js';

/** Ann refers Ben; returns the campaign id. Rewards: referrer 10, referee 5. */
async function referral(s: TestService) {
  const id = await s.campaign();
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return id;
}

// Through PgBouncer too: payments, credits and redemptions: the transactions that move money.
eachDatabase('qualifyParticipant', (service) => {
  it('credits both sides once, on the first call', async () => {
    const s = service();
    const id = await referral(s);
    const ben = await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
    assert.equal(ben.rewardEventCompleted, true);
    assert.equal(ben.refereeReward, 5);
    assert.equal(ben.refereeRewardBalance, 5);
    const ann = await s.admin.getParticipant(id, 'ann@example.com');
    assert.equal(ann.referralReward, 10);
    assert.equal(ann.referralRewardBalance, 10);
    assert.equal(ann.rewardEventCompleted, false);

    const again = await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
    assert.equal(again.refereeReward, 5);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
  });

  it('while paused: 409 campaign_paused that says the qualification was not recorded and to send it again; sent again after the resume, it credits', async () => {
    const s = service();
    const id = await referral(s);
    await s.admin.setCampaignStatus(id, 'Pause');
    const err = await rejects(() => s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '20.00' }), 409, 'campaign_paused');
    assert.match(err.message, /not recorded/);
    assert.match(err.message, /again once the campaign is resumed/);
    const row = await s.ctx.store.findParticipantByEmail(id, 'ben@example.com');
    assert.equal(row!.payment_count, 0);
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, false);
    await s.admin.setCampaignStatus(id, 'Active');
    assert.equal((await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '20.00' })).refereeReward, 5);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
  });

  it('a payment of 0.00 records nothing and uses no commission slot; it still qualifies', async () => {
    const s = service();
    const id = await s.campaign({ referrerRewardPercent: 10, commissionPayments: 1 });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    const free = await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '0.00' });
    assert.equal(free.rewardEventCompleted, true);
    assert.equal((await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '0.00' })).rewardEventCompleted, true);
    let detail = await s.admin.getParticipantDetail(id, 'ben@example.com');
    assert.deepEqual([detail.participant.paymentCount, detail.participant.amountPaid], [0, '0.00']);
    // The one commission slot is the first real payment's: 10% of 50.00.
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '50.00' });
    detail = await s.admin.getParticipantDetail(id, 'ben@example.com');
    assert.deepEqual([detail.participant.paymentCount, detail.participant.amountPaid], [1, '50.00']);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 10 + 5);
  });

  it('a repeated payment that credits nothing answers the row as written and records all a transaction would; a payer no longer qualified gets nothing written', async () => {
    // With a hold, so that a full refund of the qualifying payment undoes the referral (../../docs/rewards.md).
    const s = service();
    const { store } = s.ctx;
    const id = await s.campaign({ holdDays: 30 });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '10.00' });
    const answer = await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '2.50' });
    assert.deepEqual(answer, await s.admin.getParticipant(id, 'ben@example.com'));
    // The store's own answer is the row as written, its referral count with the deltas not yet folded.
    await s.admin.addParticipant({ id, email: 'eve@example.com', referredByCode: answer.referralCode! });
    const ben = (await store.findParticipantByEmail(id, 'ben@example.com'))!;
    const annId = (await store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    const written = await store.payments.recordRepeat(ben.id, annId, id, 125, Date.now());
    assert.deepEqual(written, await store.findParticipantByEmail(id, 'ben@example.com'));
    assert.deepEqual([written!.amount_paid_cents, written!.payment_count, written!.total_referrals], [1375, 3, 1]);
    assert.equal((await store.findParticipant(annId))!.revenue_generated_cents, 1375);
    const payments = await store.db.selectFrom('payments').selectAll().where('participant_id', '=', ben.id).orderBy('id').execute();
    assert.deepEqual(payments.map((p) => [p.seq, p.amount_cents, p.qualifying, p.commission_credited]), [[1, 1000, 1, 1], [2, 250, 0, 1], [3, 125, 0, 1]]);
    assert.deepEqual(payments.map((p) => p.prev_id), [null, payments[0]!.id, payments[1]!.id]);
    assert.equal(written!.last_payment_id, payments[2]!.id);
    const revenue = async () => (await store.stats.daily(id)).reduce((n, d) => n + d.referred_revenue_cents, 0);
    assert.equal(await revenue(), 1375);
    // Not Ann's referee: nothing written.
    assert.equal(await store.payments.recordRepeat(ben.id, ben.id, id, 500, Date.now()), undefined);
    // A refund undid the qualification after the call read Ben qualified: nothing written.
    await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '13.75' });
    const [before, annBefore, dayBefore] = [(await store.findParticipant(ben.id))!, (await store.findParticipant(annId))!, await revenue()];
    assert.equal(before.reward_event_completed, 0);
    assert.equal(await store.payments.recordRepeat(ben.id, annId, id, 500, Date.now()), undefined);
    assert.deepEqual(await store.findParticipant(ben.id), before);
    assert.deepEqual(await store.findParticipant(annId), annBefore);
    assert.equal(await revenue(), dayBefore);
  });

  it('20 parallel calls credit exactly once', async () => {
    const s = service();
    const id = await referral(s);
    await Promise.all(Array.from({ length: 20 }, () => s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '1.50' })));
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).refereeReward, 5);
    const row = await s.ctx.store.findParticipantByEmail(id, 'ben@example.com');
    assert.equal(row!.payment_count, 20);
    assert.equal(row!.amount_paid_cents, 3000);
    const referrer = await s.ctx.store.findParticipantByEmail(id, 'ann@example.com');
    assert.equal(referrer!.revenue_generated_cents, 3000);
    assert.equal(referrer!.total_completed_referred, 1);
  });

  it('only referred participants qualify; unknown emails are 404; bad amounts change nothing', async () => {
    const s = service();
    const id = await referral(s);
    await rejects(() => s.admin.qualifyParticipant({ id, email: 'ann@example.com' }), 409, 'not_referred');
    await rejects(() => s.admin.qualifyParticipant({ id, email: 'nobody@example.com' }), 404, 'participant_not_found');
    for (const amountPaid of ['abc', '1.234', '-1', '']) {
      const err = await rejects(() => s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid }), 400, 'invalid_request');
      assert.equal(err.field, 'amountPaid');
    }
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, false);
  });
}, { pgbouncer: true });

// Through PgBouncer too: payments, credits and redemptions: the transactions that move money.
eachDatabase('redeemReward', (service) => {
  it('redeems from a balance and never below zero, even in parallel', async () => {
    const s = service();
    const id = await s.campaign({ referrerRewardValue: 50 });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });

    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 10 })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
    const after = await s.admin.getParticipant(id, 'ann@example.com');
    assert.deepEqual([after.referralReward, after.referralRewardRedeemed, after.referralRewardBalance], [50, 50, 0]);
    await rejects(() => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 1 }), 409, 'insufficient_balance');

    const ben = await s.admin.redeemReward({ id, email: 'ben@example.com', kind: 'referee', amount: 2 });
    assert.deepEqual([ben.refereeReward, ben.refereeRewardRedeemed, ben.refereeRewardBalance], [5, 2, 3]);
    await rejects(() => s.admin.redeemReward({ id, email: 'ben@example.com', kind: 'referee', amount: 4 }), 409, 'insufficient_balance');
    await rejects(() => s.admin.redeemReward({ id, email: 'ben@example.com', kind: 'referee', amount: 0 }), 400, 'invalid_request');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).refereeRewardBalance, 3);
  });
}, { pgbouncer: true });

// Through PgBouncer too: payments, credits and redemptions: the transactions that move money.
eachDatabase('fraud scoring and approval', (service) => {
  it('an alias of the referrer is high risk: nothing is credited until approval, then once', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann.lee@gmail.com' });
    const alias = await s.browser.addParticipant({ id, email: 'annlee+promo@gmail.com', referredByCode: ann.referralCode! });
    assert.equal(alias.fraudScore, undefined, 'fraudScore is never in a keyless answer');
    assert.equal((await s.admin.getParticipant(id, 'annlee+promo@gmail.com')).fraudScore, 'high');
    const q = await s.admin.qualifyParticipant({ id, email: 'annlee+promo@gmail.com' });
    assert.equal(q.rewardEventCompleted, true);
    assert.equal(q.refereeReward, 0);
    assert.equal((await s.admin.getParticipant(id, 'ann.lee@gmail.com')).referralReward, 0);

    const approved = await s.admin.approveParticipant(id, 'annlee+promo@gmail.com');
    assert.equal(approved.refereeReward, 5);
    await s.admin.approveParticipant(id, 'annlee+promo@gmail.com');
    assert.equal((await s.admin.getParticipant(id, 'ann.lee@gmail.com')).referralReward, 10);
    assert.equal((await s.admin.getParticipant(id, 'annlee+promo@gmail.com')).refereeReward, 5);
  });

  it('a disposable domain is medium; a signup burst from one IP raises the score', async () => {
    const s = service();
    const id = await s.campaign();
    const score = async (email: string) => {
      await s.browser.addParticipant({ id, email });
      return (await s.admin.getParticipant(id, email)).fraudScore;
    };
    assert.equal(await score('x@mailinator.com'), 'medium');
    for (let i = 0; i < 4; i++) await s.browser.addParticipant({ id, email: `u${i}@example.com` });
    // Six sign-ups from 127.0.0.1 within the hour: the burst signal plus a disposable domain is high.
    assert.equal(await score('y@mailinator.com'), 'high');
    assert.equal(await score('z@example.com'), 'medium');
  });
}, { pgbouncer: true });
