/**
 * Disputes, on both databases: a dispute holds what its payment earned that is still pending (past the
 * hold's end) and reverses what is available; won gives it back exactly once, lost is a refund. Through
 * the admin API and signed Stripe events; replays, concurrent calls and bad input change nothing more;
 * balances and the ledger to the unit, webhook events in order.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { WebhookEventType } from '../../src/api/schemas.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { DAY_MS } from '../../src/server/store/migrations.js';
import { rejects } from './helpers/assert.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { checkoutSession, event, SECRET, send } from './helpers/stripe.js';
import { eachDatabase } from './helpers/suite.js';
import { refundPayment } from '../../src/server/rewards/domain/refunds.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';

const money2 = (units: number) => units.toFixed(2);

const START = Date.parse('2026-03-01T10:00:00Z');
const clock = { now: START };
const HOLD = { referrerRewardValue: 10, refereeRewardValue: 5, referrerRewardPercent: 20, holdDays: 30 };

/** A campaign with these rules, Ann and her referee Ben, who paid $100 (qualifying); answers the campaign and the payment's id. */
async function program(s: TestService, rules: Record<string, unknown> = HOLD) {
  clock.now = START;
  const id = await s.campaign(rules);
  await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '100.00' });
  const payment = await s.ctx.store.db.selectFrom('payments').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return { id, paymentId: Number(payment.id) };
}

async function subscribe(s: TestService, types: WebhookEventType[]) {
  await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook', eventTypes: types });
}

/**
 * The events written, in time order: each its type, whom it is about and its dispute's status if any;
 * those of one moment (one transaction: no order among them) as one group, sorted.
 */
async function events(s: TestService): Promise<string[][]> {
  const rows = await s.ctx.store.db.selectFrom('webhook_events').select(['payload', 'event_type', 'created_on']).orderBy('created_on').execute();
  const groups = new Map<number, string[]>();
  for (const r of rows) {
    const data = (JSON.parse(r.payload) as { data: { email: string; dispute?: { status: string } } }).data;
    const at = Number(r.created_on);
    groups.set(at, [...(groups.get(at) ?? []), `${r.event_type} ${data.email.split('@')[0]}${data.dispute ? ` ${data.dispute.status}` : ''}`]);
  }
  return [...groups.values()].map((g) => g.sort());
}

/** Balances and pending amounts of Ann (referrer) and Ben (referee), in reward units. */
async function money(s: TestService, id: string) {
  const ann = await s.admin.getParticipantDetail(id, 'ann@example.com');
  const ben = await s.admin.getParticipantDetail(id, 'ben@example.com');
  return {
    ann: ann.participant.referralRewardBalance,
    annPending: ann.rewards.pending.referral,
    annOwed: ann.rewards.owed.referral,
    ben: ben.participant.refereeRewardBalance,
    benPending: ben.rewards.pending.referee,
    benPaid: ben.participant.amountPaid,
  };
}

/** Everything a dispute call could change, to compare before and after a refused one. */
async function snapshot(s: TestService) {
  const db = s.ctx.store.db;
  return {
    entries: await db.selectFrom('reward_entries').selectAll().orderBy('id').execute(),
    disputes: await db.selectFrom('disputes').selectAll().orderBy('id').execute(),
    payments: await db.selectFrom('payments').selectAll().orderBy('id').execute(),
    events: await db.selectFrom('webhook_events').select('id').orderBy('id').execute(),
  };
}

const release = async (s: TestService, day: number) => {
  clock.now = START + day * DAY_MS;
  return releaseDueRewards(s.ctx);
};

eachDatabase(
  'disputes',
  (service) => {
    it('after the hold: an available commission is reversed in the disputed share, given back once when won; fixed rewards stay', async () => {
      const s = service();
      await subscribe(s, ['dispute_opened', 'dispute_closed', 'reward_reversed', 'reward_unlocked']);
      const { id, paymentId } = await program(s);
      assert.equal(await release(s, 30), 2);
      assert.deepEqual(await money(s, id), { ann: 30, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      clock.now = START + 40 * DAY_MS;
      const opened = await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_after' });
      assert.deepEqual(
        { ...opened, openedOn: undefined },
        { id: 'dp_after', participantEmail: 'ben@example.com', paymentId, paymentSeq: 1, amount: '50.00', status: 'open', reversed: 10, held: 0, openedOn: undefined },
      );
      assert.equal(opened.openedOn, new Date(START + 40 * DAY_MS).toISOString());
      assert.deepEqual(await money(s, id), { ann: 20, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      // Again with its id (a retry): nothing more.
      assert.equal((await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_after' })).reversed, 10);
      assert.equal((await money(s, id)).ann, 20);

      clock.now = START + 50 * DAY_MS;
      const won = await s.admin.closeDispute({ id, disputeId: 'dp_after', outcome: 'won' });
      assert.equal(won.status, 'won');
      assert.equal(won.closedOn, new Date(START + 50 * DAY_MS).toISOString());
      assert.deepEqual(await money(s, id), { ann: 30, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      // Closed again the same way: nothing; the other way: 409, nothing.
      await s.admin.closeDispute({ id, disputeId: 'dp_after', outcome: 'won' });
      const before = await snapshot(s);
      await rejects(() => s.admin.closeDispute({ id, disputeId: 'dp_after', outcome: 'lost' }), 409, 'invalid_transition', 'outcome');
      assert.deepEqual(await snapshot(s), before);
      assert.equal((await money(s, id)).ann, 30);
      const ledger = (await s.admin.listRewardEntries(id, 'ann@example.com')).map((e) => [e.kind, e.amount, e.status]);
      assert.deepEqual(ledger.slice(0, 2), [
        ['commission', 10, 'available'],
        ['reversal', -10, 'available'],
      ]);
      assert.deepEqual((await s.admin.listDisputes(id, 'ben@example.com')).disputes.map((d) => [d.id, d.status, d.reversed]), [['dp_after', 'won', 10]]);
      assert.deepEqual(await events(s), [
        ['reward_unlocked ann', 'reward_unlocked ben'],
        ['dispute_opened ben open', 'reward_reversed ann'],
        ['dispute_closed ben won', 'reward_unlocked ann'],
      ]);
      await assertCountersAreTheLedger(s, id);
    });

    it('after the hold, lost: a refund of the disputed amount, the commission taken back once (not again by the refund)', async () => {
      const s = service();
      const { id } = await program(s);
      await release(s, 30);
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_lost' });
      await s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 20 });
      const lost = await s.admin.closeDispute({ id, disputeId: 'dp_lost', outcome: 'lost' });
      assert.equal(lost.status, 'lost');
      assert.deepEqual(await money(s, id), { ann: 0, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '50.00' });
      // What is left of the payment can still be refunded: 50, a further 10 of commission, owed (the balance is 0).
      await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '50.00' });
      assert.deepEqual(await money(s, id), { ann: 0, annPending: 0, annOwed: 10, ben: 5, benPending: 0, benPaid: '0.00' });
      await assertCountersAreTheLedger(s, id);
    });

    it('inside the hold, all of the qualifying payment: commission and both fixed rewards held past their date; won releases them at once, exactly once', async () => {
      const s = service();
      await subscribe(s, ['dispute_opened', 'dispute_closed', 'reward_reversed', 'reward_unlocked']);
      const { id } = await program(s);
      clock.now = START + 10 * DAY_MS;
      const opened = await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '100.00', disputeId: 'dp_in' });
      assert.equal(opened.held, 35);
      assert.equal(opened.reversed, 0);
      assert.equal(await release(s, 31), 0);
      assert.deepEqual(await money(s, id), { ann: 0, annPending: 30, annOwed: 0, ben: 0, benPending: 5, benPaid: '100.00' });
      clock.now = START + 40 * DAY_MS;
      await s.admin.closeDispute({ id, disputeId: 'dp_in', outcome: 'won' });
      assert.deepEqual(await money(s, id), { ann: 30, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      assert.equal(await release(s, 41), 0);
      assert.deepEqual(await events(s), [['dispute_opened ben open'], ['dispute_closed ben won', 'reward_unlocked ann', 'reward_unlocked ben']]);
      await assertCountersAreTheLedger(s, id);
    });

    it('inside the hold, lost: the referral is undone as by a full refund; won before the date: released at its date', async () => {
      const s = service();
      const { id } = await program(s);
      clock.now = START + 5 * DAY_MS;
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '100.00', disputeId: 'dp_undo' });
      clock.now = START + 45 * DAY_MS;
      await s.admin.closeDispute({ id, disputeId: 'dp_undo', outcome: 'lost' });
      assert.deepEqual(await money(s, id), { ann: 0, annPending: 0, annOwed: 0, ben: 0, benPending: 0, benPaid: '0.00' });
      const ben = await s.admin.getParticipant(id, 'ben@example.com');
      assert.equal(ben.rewardEventCompleted, false);
      assert.ok((await s.admin.listRewardEntries(id, 'ann@example.com')).every((e) => e.status === 'cancelled'));
      await assertCountersAreTheLedger(s, id);

      // Another program: won on day 20, before the hold's end: the credits wait for day 30 as before.
      const s2 = await program(s);
      clock.now = START + 5 * DAY_MS;
      await s.admin.disputePayment({ id: s2.id, email: 'ben@example.com', amount: '100.00', disputeId: 'dp_early' });
      clock.now = START + 20 * DAY_MS;
      await s.admin.closeDispute({ id: s2.id, disputeId: 'dp_early', outcome: 'won' });
      assert.deepEqual(await money(s, s2.id), { ann: 0, annPending: 30, annOwed: 0, ben: 0, benPending: 5, benPaid: '100.00' });
      assert.equal(await release(s, 30), 2);
      assert.deepEqual(await money(s, s2.id), { ann: 30, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      await assertCountersAreTheLedger(s, s2.id);
    });

    it('inside the hold, part of the payment: only its commission is held; the fixed rewards are released at their date', async () => {
      const s = service();
      const { id } = await program(s);
      clock.now = START + 10 * DAY_MS;
      assert.equal((await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '40.00', disputeId: 'dp_part' })).held, 20);
      assert.equal(await release(s, 30), 2);
      assert.deepEqual(await money(s, id), { ann: 10, annPending: 20, annOwed: 0, ben: 5, benPending: 0, benPaid: '100.00' });
      // Lost: the commission is cut by 40% (20 -> 12) and, its date past, released at the next pass.
      await s.admin.closeDispute({ id, disputeId: 'dp_part', outcome: 'lost' });
      assert.deepEqual(await money(s, id), { ann: 10, annPending: 12, annOwed: 0, ben: 5, benPending: 0, benPaid: '60.00' });
      assert.equal(await release(s, 31), 1);
      assert.deepEqual(await money(s, id), { ann: 22, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '60.00' });
      await assertCountersAreTheLedger(s, id);
    });

    it('signed Stripe events: charge.dispute.created then closed won, another closed lost; replays and repeats change nothing', async () => {
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 });
      await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const ben = (await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! })).referralCode!;
      await send(s, id, event('checkout.session.completed', checkoutSession(ben, 'ben@example.com', 10_000, { payment_intent: 'pi_ben' })));
      assert.equal((await money(s, id)).ann, 20);
      const dispute = (status: string, amount = 2500, dpId = 'dp_1') => ({ id: dpId, object: 'dispute', amount, currency: 'usd', charge: 'ch_ben', payment_intent: 'pi_ben', reason: 'fraudulent', status, metadata: {} });
      const created = event('charge.dispute.created', dispute('needs_response'));
      assert.equal((await send(s, id, created)).body.outcome, 'applied');
      assert.equal((await money(s, id)).ann, 15);
      // The same event again, at once twice, and another event of the same dispute: nothing more.
      const replays = await Promise.all([send(s, id, created), send(s, id, created)]);
      assert.deepEqual(replays.map((r) => r.body.outcome), ['duplicate', 'duplicate']);
      assert.equal((await send(s, id, event('charge.dispute.created', dispute('needs_response')))).body.outcome, 'applied');
      assert.equal((await money(s, id)).ann, 15);
      assert.equal((await s.admin.listDisputes(id, 'ben@example.com')).disputes.length, 1);
      // Under review: no outcome yet.
      assert.equal((await send(s, id, event('charge.dispute.closed', dispute('under_review')))).body.outcome, 'ignored');
      const won = event('charge.dispute.closed', dispute('won'));
      assert.equal((await send(s, id, won)).body.outcome, 'applied');
      assert.equal((await send(s, id, won)).body.outcome, 'duplicate');
      assert.equal((await money(s, id)).ann, 20);
      // A lost one after that win, closing a dispute already won: ignored, nothing changes.
      assert.equal((await send(s, id, event('charge.dispute.closed', dispute('lost')))).body.outcome, 'ignored');
      assert.equal((await money(s, id)).ann, 20);
      // A second dispute, lost: a refund of 50.
      assert.equal((await send(s, id, event('charge.dispute.created', dispute('needs_response', 5000, 'dp_2')))).body.outcome, 'applied');
      assert.equal((await money(s, id)).ann, 10);
      assert.equal((await send(s, id, event('charge.dispute.closed', dispute('lost', 5000, 'dp_2')))).body.outcome, 'applied');
      assert.deepEqual(await money(s, id), { ann: 10, annPending: 0, annOwed: 0, ben: 0, benPending: 0, benPaid: '50.00' });
      // A close of a dispute never opened here.
      assert.equal((await send(s, id, event('charge.dispute.closed', dispute('won', 100, 'dp_unknown')))).body.outcome, 'ignored');
      const actions = (await s.admin.listStripeEvents(id)).filter((e) => e.type.startsWith('charge.dispute')).map((e) => `${e.action ?? '-'} ${e.status}`);
      assert.deepEqual(actions.sort(), ['- ignored', 'dispute applied', 'dispute applied', 'dispute applied', 'dispute_lost applied', 'dispute_lost ignored', 'dispute_won applied', 'dispute_won ignored']);
      await assertCountersAreTheLedger(s, id);
    });

    it('bad input is 4xx and changes nothing', async () => {
      const s = service();
      const { id, paymentId } = await program(s);
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '10.00', paymentId, disputeId: 'dp_first' });
      const before = await snapshot(s);
      const body = { id, email: 'ben@example.com', amount: '10.00' };
      await rejects(() => s.admin.disputePayment({ ...body, amount: '0.00' }), 400, 'invalid_request', 'amount');
      await rejects(() => s.admin.disputePayment({ ...body, amount: '-5' }), 400, 'invalid_request');
      await rejects(() => s.admin.disputePayment({ ...body, amount: '100.01', disputeId: 'dp_x' }), 409, 'dispute_exceeds_payment', 'amount');
      await rejects(() => s.admin.disputePayment({ ...body, disputeId: 'dp_y' }), 409, 'dispute_open', 'paymentId');
      await rejects(() => s.admin.disputePayment({ ...body, paymentId: paymentId + 1000, disputeId: 'dp_z' }), 404, 'not_found', 'paymentId');
      await rejects(() => s.admin.disputePayment({ ...body, email: 'nobody@example.com' }), 404, 'participant_not_found');
      await rejects(() => s.admin.disputePayment({ ...body, disputeId: '' }), 400, 'invalid_request');
      await rejects(() => s.admin.disputePayment({ ...body, extra: 1 } as never), 400, 'invalid_request');
      await rejects(() => s.admin.disputePayment({ ...body, email: 'ann@example.com', disputeId: 'dp_ann' }), 409, 'dispute_exceeds_payment');
      await rejects(() => s.admin.closeDispute({ id, disputeId: 'dp_nope', outcome: 'won' }), 404, 'not_found', 'disputeId');
      await rejects(() => s.admin.closeDispute({ id, disputeId: 'dp_first', outcome: 'maybe' as never }), 400, 'invalid_request');
      await rejects(() => s.admin.closeDispute({ id: 'cmp_nope', disputeId: 'dp_first', outcome: 'won' }), 404, 'campaign_not_found');
      assert.deepEqual(await snapshot(s), before);
    });

    it('concurrent: the same dispute opened twice at once is one; open and close at once end consistent', async () => {
      const s = service();
      const { id } = await program(s);
      await release(s, 30);
      const twice = await Promise.all([1, 2].map(() => s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_twice' })));
      assert.deepEqual(twice.map((d) => d.reversed), [10, 10]);
      assert.equal((await money(s, id)).ann, 20);
      await s.admin.closeDispute({ id, disputeId: 'dp_twice', outcome: 'won' });
      // Open and close (won) at once: the close finds it (200) or not yet (404); either way the balance is whole after both settle.
      const [, closed] = await Promise.allSettled([
        s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_race' }),
        s.admin.closeDispute({ id, disputeId: 'dp_race', outcome: 'won' }),
      ]);
      if (closed.status === 'rejected') {
        assert.equal((closed.reason as { status: number }).status, 404);
        assert.equal((await money(s, id)).ann, 20);
        await s.admin.closeDispute({ id, disputeId: 'dp_race', outcome: 'won' });
      }
      assert.equal((await money(s, id)).ann, 30);
      // Closed won and lost at once: exactly one wins.
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_both' });
      const both = await Promise.allSettled([
        s.admin.closeDispute({ id, disputeId: 'dp_both', outcome: 'won' }),
        s.admin.closeDispute({ id, disputeId: 'dp_both', outcome: 'lost' }),
      ]);
      assert.equal(both.filter((r) => r.status === 'fulfilled').length, 1);
      const m = await money(s, id);
      assert.ok(both[0].status === 'fulfilled' ? m.ann === 30 && m.benPaid === '100.00' : m.ann === 20 && m.benPaid === '50.00', JSON.stringify(m));
      await assertCountersAreTheLedger(s, id);
    });

    it('a refund during an open dispute, in every order with the dispute and its close: neither outcome reverses more than was earned or gives back what was refunded', async () => {
      const s = service();
      // $100 paid, 20% commission (20), available at once: a full refund takes all of it back, $60 refunded keeps 8.
      const rules = { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 };
      const ann = async (id: string) => {
        const d = await s.admin.getParticipantDetail(id, 'ann@example.com');
        return { balance: d.participant.referralRewardBalance, owed: d.rewards.owed.referral };
      };
      // The provider's refund: Stripe has made it already (charge.refunded), so it is taken whatever is disputed.
      const providerRefund = (id: string, amount: string) => refundPayment(s.ctx, DEFAULT_ACCOUNT, { id, email: 'ben@example.com', amount }, { provider: true });
      const orders: { steps: string[]; kept: number }[] = [
        { steps: ['dispute', 'refund', 'lost'], kept: 0 },
        { steps: ['dispute', 'refund', 'won'], kept: 8 },
        { steps: ['refund', 'dispute', 'lost'], kept: 0 },
        { steps: ['refund', 'dispute', 'won'], kept: 8 },
        { steps: ['dispute', 'lost', 'refund'], kept: 0 },
        { steps: ['dispute', 'won', 'refund'], kept: 8 },
      ];
      for (const { steps, kept } of orders) {
        const { id } = await program(s, rules);
        assert.deepEqual(await ann(id), { balance: 20, owed: 0 });
        let refunded = 0;
        for (const step of steps) {
          if (step === 'dispute') await s.admin.disputePayment({ id, email: 'ben@example.com', amount: money2(100 - refunded), disputeId: `dp_${steps.join('_')}` });
          else if (step === 'refund') {
            // After a lost dispute nothing is left to refund: Stripe's refund is refused (and its event ignored).
            if (steps.indexOf('lost') !== -1 && steps.indexOf('lost') < steps.indexOf('refund')) await assert.rejects(providerRefund(id, '60.00'), /more than is left/);
            else await providerRefund(id, '60.00');
            refunded = 60;
          } else await s.admin.closeDispute({ id, disputeId: `dp_${steps.join('_')}`, outcome: step as 'won' | 'lost' });
        }
        assert.deepEqual(await ann(id), { balance: kept, owed: 0 }, steps.join(' then '));
        await assertCountersAreTheLedger(s, id);
      }
    });

    it("the owner's refundPayment takes only what no open dispute holds (409 dispute_open, nothing changed); after the close, the rest", async () => {
      const s = service();
      const { id } = await program(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 20 });
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '100.00', disputeId: 'dp_all' });
      const before = await snapshot(s);
      await rejects(() => s.admin.refundPayment({ id, email: 'ben@example.com', amount: '60.00' }), 409, 'dispute_open', 'amount');
      assert.deepEqual(await snapshot(s), before);
      await s.admin.closeDispute({ id, disputeId: 'dp_all', outcome: 'won' });
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_half' });
      // Half is disputed: 30 of the other half may be refunded, then 20 more, then nothing.
      await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '30.00' });
      await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '20.00' });
      await rejects(() => s.admin.refundPayment({ id, email: 'ben@example.com', amount: '0.01' }), 409, 'dispute_open', 'amount');
      await s.admin.closeDispute({ id, disputeId: 'dp_half', outcome: 'won' });
      await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '50.00' });
      assert.equal((await s.admin.getParticipantDetail(id, 'ann@example.com')).participant.referralRewardBalance, 0);
      await assertCountersAreTheLedger(s, id);
    });

    it("a pending commission a dispute holds stays held when a provider's refund rewrites it for what is left", async () => {
      const s = service();
      const { id } = await program(s);
      await s.admin.disputePayment({ id, email: 'ben@example.com', amount: '50.00', disputeId: 'dp_pending' });
      await refundPayment(s.ctx, DEFAULT_ACCOUNT, { id, email: 'ben@example.com', amount: '30.00' }, { provider: true });
      // Past the hold, the referral's fixed reward is released; the commission, rewritten as 14 (20% of 70), is still held.
      await release(s, 31);
      assert.deepEqual(await money(s, id), { ann: 10, annPending: 14, annOwed: 0, ben: 5, benPending: 0, benPaid: '70.00' });
      await s.admin.closeDispute({ id, disputeId: 'dp_pending', outcome: 'won' });
      assert.deepEqual(await money(s, id), { ann: 24, annPending: 0, annOwed: 0, ben: 5, benPending: 0, benPaid: '70.00' });
      await assertCountersAreTheLedger(s, id);
    });
  },
  { now: () => clock.now, pgbouncer: false },
);
