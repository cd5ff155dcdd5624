/**
 * The reward engine's rules, on both databases: commissions (percent of each payment, first n payments,
 * rounding with nothing lost), milestones (once each), the ceiling (capped credits), the hold (pending,
 * then available on its own), refunds (reversals, owed and netted, a referral undone inside the hold),
 * and the events each fires. Every test ends by checking that the counters are still the ledger's sums.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { WebhookEventType } from '../../src/api/schemas.js';
import { issueToken } from '../../src/server/referrals/domain/proof.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { DAY_MS } from '../../src/server/store/migrations.js';
import { rejects } from './helpers/assert.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-03-01T10:00:00Z');
const clock = { now: START };

/** A campaign with these rules, its referrer Ann, and `n` referees of hers (b0@, b1@ ...). */
async function program(s: TestService, rules: Record<string, unknown>, n = 1) {
  const id = await s.campaign(rules);
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  for (let i = 0; i < n; i++) await s.admin.addParticipant({ id, email: `b${i}@example.com`, referredByCode: ann.referralCode! });
  return id;
}

/** Every endpoint of the account hears these types (events are written only when one selected them). */
async function subscribe(s: TestService, types: WebhookEventType[]) {
  await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook', eventTypes: types });
}

/** The emails of the participants of the events of a type, in the order they were written. */
async function events(s: TestService, type: WebhookEventType): Promise<string[]> {
  const rows = await s.ctx.store.db.selectFrom('webhook_events').select(['payload', 'id']).where('event_type', '=', type).orderBy('id').execute();
  return rows.map((r) => (JSON.parse(r.payload) as { data: { email: string } }).data.email);
}

const entries = async (s: TestService, id: string, email: string) =>
  (await s.admin.listRewardEntries(id, email, { pageSize: 100 })).map((e) => ({ kind: e.kind, amount: e.amount, status: e.status, ...(e.capped && { capped: e.capped }) }));

eachDatabase(
  'reward rules',
  (service) => {
    it('rules are saved with the campaign, shown in its settings and the widget settings, replaced one by one; bad ones are 400 and change nothing', async () => {
      clock.now = START;
      const s = service();
      const rules = {
        referrerRewardPercent: 12.5,
        commissionPayments: 3,
        milestones: [
          { referrals: 10, reward: 100, label: 'Gold' },
          { referrals: 3, reward: 20, label: 'Free month' },
        ],
        maxReferralReward: 500,
        holdDays: 30,
      };
      const id = await s.campaign(rules);
      const sorted = { ...rules, milestones: [rules.milestones[1]!, rules.milestones[0]!] };
      const settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual(
        {
          referrerRewardPercent: settings.referrerRewardPercent,
          commissionPayments: settings.commissionPayments,
          milestones: settings.milestones,
          maxReferralReward: settings.maxReferralReward,
          holdDays: settings.holdDays,
        },
        sorted,
      );
      assert.deepEqual((await s.browser.getWidgetSettings(id)).rules, sorted);
      await s.admin.updateCampaign({ id, maxReferralReward: null, holdDays: 0 });
      assert.deepEqual((await s.browser.getWidgetSettings(id)).rules, { ...sorted, maxReferralReward: null, holdDays: 0 });
      await s.admin.updateCampaign({ id, milestones: [] });
      assert.deepEqual((await s.browser.getWidgetSettings(id)).rules?.milestones, []);

      const before = await s.browser.getWidgetSettings(id);
      await rejects(() => s.admin.updateCampaign({ id, referrerRewardPercent: 150 }), 400, 'invalid_request', 'referrerRewardPercent');
      await rejects(() => s.admin.updateCampaign({ id, referrerRewardPercent: 10.005 }), 400, 'invalid_request', 'referrerRewardPercent');
      await rejects(() => s.admin.updateCampaign({ id, holdDays: 366 }), 400, 'invalid_request', 'holdDays');
      await rejects(() => s.admin.updateCampaign({ id, commissionPayments: -1 }), 400, 'invalid_request', 'commissionPayments');
      await rejects(
        () => s.admin.updateCampaign({ id, milestones: [{ referrals: 2, reward: 5, label: 'A' }, { referrals: 2, reward: 9, label: 'B' }], holdDays: 7 }),
        400,
        'invalid_request',
        'milestones',
      );
      await rejects(() => s.admin.updateCampaign({ id, milestones: [{ referrals: 0, reward: 5, label: 'A' }] }), 400, 'invalid_request');
      await rejects(() => s.admin.updateCampaign({ id, milestones: [{ referrals: 1, reward: 5, label: '' }] }), 400, 'invalid_request');
      assert.deepEqual(await s.browser.getWidgetSettings(id), before);
    });

    it('commission: a share of each payment of the first n, rounded down with the rest carried, nothing lost over many small payments', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, commissionPayments: 12 });
      // 11 payments of 0.99 at 10%: 0.099 each. The first ten credit nothing; the eleventh makes 1.089, credits 1.
      for (let i = 0; i < 10; i++) await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '0.99' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 0);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '0.99' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 1);
      // The 12th, 123.45 at 10% = 12.345, plus the 0.089 carried: 12.434, so 12.
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '123.45' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 13);
      // The 13th payment is past commissionPayments: nothing.
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '500.00' });
      const ann = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(ann.referralReward, 13);
      const commissions = (await s.admin.listRewardEntries(id, 'ann@example.com', { pageSize: 100 })).filter((e) => e.kind === 'commission');
      assert.deepEqual(commissions.map((e) => e.amount), [12, 1]);
      assert.ok(commissions.every((e) => e.paymentId !== undefined && e.refereeEmail === 'b0@example.com'));
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).referralReward, 0);
      await assertCountersAreTheLedger(s, id);
    });

    it('commission on every payment (commissionPayments 0), and on payments made while the referral waited for review', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 5, refereeRewardValue: 0, referrerRewardPercent: 50 });
      for (let i = 0; i < 3; i++) await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '10.00' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 5 + 15);
      // A held referee (fraud review): payments wait, and are credited when approved.
      const ann = await s.admin.getParticipant(id, 'ann@example.com');
      await s.admin.addParticipant({ id, email: 'cat@example.com', referredByCode: ann.referralCode! });
      await s.ctx.store.db.updateTable('participants').set({ approval: 0 }).where('email', '=', 'cat@example.com').execute();
      await s.admin.qualifyParticipant({ id, email: 'cat@example.com', amountPaid: '4.00' });
      await s.admin.qualifyParticipant({ id, email: 'cat@example.com', amountPaid: '6.00' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 20);
      await s.admin.approveParticipant(id, 'cat@example.com');
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 20 + 5 + 2 + 3);
      await assertCountersAreTheLedger(s, id);
    });

    it('milestones: a bonus once when credited referrals reach each count, with milestone_reached', async () => {
      clock.now = START;
      const s = service();
      await subscribe(s, ['milestone_reached', 'reward_unlocked']);
      const id = await program(s, { referrerRewardValue: 10, milestones: [{ referrals: 2, reward: 50, label: 'Free month' }, { referrals: 3, reward: 70, label: 'Gold' }] }, 4);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
      await s.admin.qualifyParticipant({ id, email: 'b1@example.com' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10 + 10 + 50);
      await s.admin.qualifyParticipant({ id, email: 'b1@example.com', amountPaid: '5.00' });
      await s.admin.qualifyParticipant({ id, email: 'b2@example.com' });
      await s.admin.qualifyParticipant({ id, email: 'b3@example.com' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 40 + 50 + 70);
      const milestones = (await s.admin.listRewardEntries(id, 'ann@example.com')).filter((e) => e.kind === 'milestone');
      assert.deepEqual(milestones.map((e) => [e.amount, e.label]).reverse(), [
        [50, 'Milestone: Free month (2 referrals)'],
        [70, 'Milestone: Gold (3 referrals)'],
      ]);
      assert.deepEqual(await events(s, 'milestone_reached'), ['ann@example.com', 'ann@example.com']);
      await assertCountersAreTheLedger(s, id);
    });

    it('the ceiling: a referrer earns at most maxReferralReward in all, the rest recorded as capped; the referee side is not capped', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 8, maxReferralReward: 25, referrerRewardPercent: 10 }, 4);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com' });
      await s.admin.qualifyParticipant({ id, email: 'b1@example.com' });
      await s.admin.qualifyParticipant({ id, email: 'b2@example.com' });
      await s.admin.qualifyParticipant({ id, email: 'b3@example.com', amountPaid: '100.00' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 25);
      assert.deepEqual((await entries(s, id, 'ann@example.com')).reverse(), [
        { kind: 'referral', amount: 10, status: 'available' },
        { kind: 'referral', amount: 10, status: 'available' },
        { kind: 'referral', amount: 5, status: 'available', capped: 5 },
        { kind: 'referral', amount: 0, status: 'available', capped: 10 },
        { kind: 'commission', amount: 0, status: 'available', capped: 10 },
      ]);
      assert.equal((await s.admin.getParticipant(id, 'b3@example.com')).refereeReward, 8);
      await assertCountersAreTheLedger(s, id);
    });

    it('the hold: credits stay pending (not in the balances) until availableOn, then become available on their own, with reward_unlocked then', async () => {
      clock.now = START;
      const s = service();
      await subscribe(s, ['reward_unlocked']);
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 5, holdDays: 30, referrerRewardPercent: 10 });
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '50.00' });
      const ann = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(ann.referralReward, 0);
      assert.equal(ann.referralRewardBalance, 0);
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).refereeReward, 0);
      assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@example.com')).rewards, { pending: { referral: 15, referee: 0 }, owed: { referral: 0, referee: 0 } });
      const held = await s.admin.listRewardEntries(id, 'ann@example.com');
      assert.ok(held.every((e) => e.status === 'pending' && e.availableOn === new Date(START + 30 * DAY_MS).toISOString()));
      await rejects(() => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 1 }), 409, 'insufficient_balance');
      assert.deepEqual(await events(s, 'reward_unlocked'), []);

      clock.now = START + 30 * DAY_MS - 1;
      assert.equal(await releaseDueRewards(s.ctx), 0);
      clock.now = START + 30 * DAY_MS;
      assert.equal(await releaseDueRewards(s.ctx), 2);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 15);
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).refereeReward, 5);
      assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@example.com')).rewards.pending, { referral: 0, referee: 0 });
      assert.deepEqual((await events(s, 'reward_unlocked')).sort(), ['ann@example.com', 'b0@example.com']);
      // Nothing is released twice.
      assert.equal(await releaseDueRewards(s.ctx), 0);
      assert.equal((await events(s, 'reward_unlocked')).length, 2);
      await assertCountersAreTheLedger(s, id);
    });

    it('refunds: an available commission is reversed in proportion; a balance never goes below zero, what is left is owed and netted from the next credit', async () => {
      clock.now = START;
      const s = service();
      await subscribe(s, ['reward_reversed']);
      const id = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 }, 2);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '100.00' }); // 20
      // Half refunded: 10 taken back.
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '50.00' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 10);
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).referralReward, 0);
      // Ann redeems her 10; the other half is refunded: 10 to take back, none there, so 10 owed.
      await s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 10 });
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '50.00' });
      let ann = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(ann.referralRewardBalance, 0);
      assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@example.com')).rewards.owed, { referral: 10, referee: 0 });
      assert.deepEqual((await s.admin.getRewardLiability(id)).referral.owed, 10);
      // The next commission (25) first pays back the 10 owed.
      await s.admin.qualifyParticipant({ id, email: 'b1@example.com', amountPaid: '125.00' });
      ann = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(ann.referralRewardBalance, 15);
      assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@example.com')).rewards.owed, { referral: 0, referee: 0 });
      const ledger = (await s.admin.listRewardEntries(id, 'ann@example.com')).map((e) => [e.kind, e.amount, e.label]);
      assert.deepEqual(ledger.slice(0, 2).map(([k, a]) => [k, a]), [['commission', 25], ['reversal', -10]].reverse());
      assert.ok(ledger.some(([k, a, l]) => k === 'reversal' && a === 0 && String(l).includes('0 taken back, 10 owed')), JSON.stringify(ledger));
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).rewardEventCompleted, true, 'past no hold, the referral stays');
      assert.deepEqual(await events(s, 'reward_reversed'), ['ann@example.com', 'ann@example.com']);
      await assertCountersAreTheLedger(s, id);
    });

    it('a partial refund takes back the millionths its part earned, the carried fraction first: the referrer keeps floor(10% of what is left)', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10 }, 1);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '49.90' }); // 4, 0.99 carried
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '29.00' }); // 3, 0.89 carried
      const balance = async () => (await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance;
      assert.equal(await balance(), 7);
      // 10.00 of the 29.00 refunded earned 1.00: floor(10% of 68.90) = 6, where a share of the 3 would reverse 2.
      const payments = await s.ctx.store.db.selectFrom('payments').select(['id', 'amount_cents']).orderBy('id').execute();
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '10.00', paymentId: Number(payments[1]!.id) });
      assert.equal(await balance(), 6);
      // The 0.89 carried is still there: 1.10 more (0.11) makes floor(10% of 70.00) = 7.
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '1.10' });
      assert.equal(await balance(), 7);
      // The rest of the 29.00 (19.00 earned 1.90): floor(10% of 51.00) = 5.
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '19.00', paymentId: Number(payments[1]!.id) });
      assert.equal(await balance(), 5);
      await assertCountersAreTheLedger(s, id);
    });

    it('refunds inside the hold: a pending commission is cancelled (the rest re-made); a full refund of the qualifying payment undoes the referral', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 5, holdDays: 14, referrerRewardPercent: 10, milestones: [{ referrals: 1, reward: 3, label: 'First' }] }, 1);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '40.00' });
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '30.00' });
      // The second payment refunded in part: its commission 3 becomes 2.
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '10.00' });
      const pendingAfterPart = (await s.admin.listRewardEntries(id, 'ann@example.com')).filter((e) => e.kind === 'commission');
      assert.deepEqual(pendingAfterPart.map((e) => [e.amount, e.status]), [[2, 'pending'], [3, 'cancelled'], [4, 'pending']]);
      // The rest of both, in one refund (the latest first): the qualifying payment is refunded in full.
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '60.00' });
      const b0 = await s.admin.getParticipant(id, 'b0@example.com');
      assert.equal(b0.rewardEventCompleted, false);
      assert.equal((await s.admin.getParticipantDetail(id, 'b0@example.com')).participant.amountPaid, '0.00');
      const annEntries = await s.admin.listRewardEntries(id, 'ann@example.com');
      assert.ok(annEntries.every((e) => e.status === 'cancelled'), JSON.stringify(annEntries));
      assert.ok((await s.admin.listRewardEntries(id, 'b0@example.com')).every((e) => e.status === 'cancelled'));
      const mine = await s.browser.getMyReferrals(id, { token: await tokenOf(s, id, 'ann@example.com') });
      assert.equal(mine.referrals[0]!.status, 'refunded');
      assert.equal(mine.rewards?.milestones.qualifiedReferrals, 0);
      assert.equal(mine.rewards?.milestones.next?.label, 'First');
      // Nothing is released later; the referee may qualify again, and the milestone is reached again.
      clock.now = START + 15 * DAY_MS;
      assert.equal(await releaseDueRewards(s.ctx), 0);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '10.00' });
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).rewardEventCompleted, true);
      clock.now = START + 30 * DAY_MS;
      await releaseDueRewards(s.ctx);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10 + 3 + 1);
      await assertCountersAreTheLedger(s, id);
    });

    it('refunds after the hold keep the fixed rewards; a refund over what is left is 409 and changes nothing; an unknown payment is 404', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 5, holdDays: 7 }, 1);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com', amountPaid: '20.00' });
      clock.now = START + 7 * DAY_MS;
      await releaseDueRewards(s.ctx);
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '20.00' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
      assert.equal((await s.admin.getParticipant(id, 'b0@example.com')).rewardEventCompleted, true);
      const before = await s.admin.listRewardEntries(id, 'ann@example.com');
      await rejects(() => s.admin.refundPayment({ id, email: 'b0@example.com', amount: '0.01' }), 409, 'refund_exceeds_payments', 'amount');
      await rejects(() => s.admin.refundPayment({ id, email: 'b0@example.com', amount: '1.00', paymentId: 999999 }), 404, 'not_found', 'paymentId');
      await rejects(() => s.admin.refundPayment({ id, email: 'b0@example.com', amount: '0' }), 400, 'invalid_request', 'amount');
      await rejects(() => s.admin.refundPayment({ id, email: 'b0@example.com', amount: '-1' }), 400, 'invalid_request');
      await rejects(() => s.admin.refundPayment({ id, email: 'nobody@example.com', amount: '1' }), 404, 'participant_not_found');
      assert.deepEqual(await s.admin.listRewardEntries(id, 'ann@example.com'), before);
      await assertCountersAreTheLedger(s, id);
    });

    it("liability: pending, available, redeemed and owed per balance and in total; the ledger's CSV has every entry", async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 5, holdDays: 3 }, 2);
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com' });
      clock.now = START + 3 * DAY_MS;
      await releaseDueRewards(s.ctx);
      await s.admin.qualifyParticipant({ id, email: 'b1@example.com' });
      await s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 4 });
      assert.deepEqual(await s.admin.getRewardLiability(id), {
        referral: { pending: 10, available: 6, redeemed: 4, owed: 0 },
        referee: { pending: 5, available: 5, redeemed: 0, owed: 0 },
        total: { pending: 15, available: 11, redeemed: 4, owed: 0 },
      });
      const res = await fetch(s.admin.exportRewardEntriesUrl(id), { headers: { authorization: `Bearer ${s.secretKey}` } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/csv/);
      const lines = (await res.text()).trim().split('\n');
      assert.equal(lines[0], 'createdOn,email,kind,rewardKind,amount,status,availableOn,label,refereeEmail,paymentId,capped,code');
      assert.equal(lines.length, 1 + 5);
      assert.ok(lines.some((l) => l.includes('ann@example.com,redemption,referral,-4,available')), lines.join('\n'));
      const other = await s.campaign();
      assert.deepEqual(await s.admin.getRewardLiability(other), {
        referral: { pending: 0, available: 0, redeemed: 0, owed: 0 },
        referee: { pending: 0, available: 0, redeemed: 0, owed: 0 },
        total: { pending: 0, available: 0, redeemed: 0, owed: 0 },
      });
    });

    it("the participant's own view: pending credits with dates, milestone progress, and each friend's status", async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 10, holdDays: 10, milestones: [{ referrals: 1, reward: 5, label: 'Starter' }, { referrals: 3, reward: 20, label: 'Pro' }] }, 3);
      await s.ctx.store.db.updateTable('participants').set({ approval: 0 }).where('email', '=', 'b2@example.com').execute();
      await s.admin.qualifyParticipant({ id, email: 'b0@example.com' });
      const token = await tokenOf(s, id, 'ann@example.com');
      const mine = await s.browser.getMyReferrals(id, { token });
      const due = new Date(START + 10 * DAY_MS).toISOString();
      assert.deepEqual(mine.rewards, {
        pending: [
          { rewardKind: 'referral', amount: 10, availableOn: due, label: 'Reward for a qualified referral' },
          { rewardKind: 'referral', amount: 5, availableOn: due, label: 'Milestone: Starter (1 referral)' },
        ],
        owed: { referral: 0, referee: 0 },
        milestones: { qualifiedReferrals: 1, reached: [{ referrals: 1, reward: 5, label: 'Starter' }], next: { referrals: 3, reward: 20, label: 'Pro' } },
      });
      assert.deepEqual(
        mine.referrals.map((r) => [r.status, r.availableOn]),
        [['pending', due], ['joined', undefined], ['in_review', undefined]],
      );
      clock.now = START + 10 * DAY_MS;
      await releaseDueRewards(s.ctx);
      const later = await s.browser.getMyReferrals(id, { token });
      assert.equal(later.referrals[0]!.status, 'qualified');
      assert.deepEqual(later.rewards?.pending, []);
      assert.equal(later.participant.referralReward, 15);
    });
  },
  { now: () => clock.now },
);

/** A participant token for `email`, as the browser that signed them up holds. */
async function tokenOf(s: TestService, id: string, email: string): Promise<string> {
  const p = await s.ctx.store.findParticipantByEmail(id, email);
  return issueToken(s.ctx.store, p!.id, s.ctx.now());
}
