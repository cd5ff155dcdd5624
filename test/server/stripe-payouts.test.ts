/**
 * Stripe credit out, on both databases, against a local fake of Stripe's API (./helpers/fake-stripe.ts)
 * that checks each request's method, path, key, form fields and idempotency key as Stripe's reference
 * documents them. Customers are linked to participants by Stripe's own events (signed, as in
 * stripe.test.ts); the sender is driven by hand (sendDue) against a clock the tests move.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import type { StripePayoutView } from '../../src/api/billing-schemas.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { StripePayoutSender } from '../../src/server/payouts/domain/stripe-payouts.js';
import { rejects } from './helpers/assert.js';
import { cli } from './helpers/cli.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { charge, checkoutSession, event, SECRET, send } from './helpers/stripe.js';
import { eachDatabase } from './helpers/suite.js';

const KEY = 'rk_test_refkitPayouts0123456789';
const DAY = 86_400_000;
const RETRY_MS = 60_000;
const WAIT_MS = 600_000;

/** The tests' clock: real time plus what a test moved it by. */
let offset = 0;
const later = (ms: number) => (offset += ms);

let fake: FakeStripe;
beforeEach(async () => {
  offset = 0;
  fake = await new FakeStripe().allowKey(KEY).addCustomer('cus_ann').addCustomer('cus_ben').start();
});
afterEach(() => fake.stop());

const sender = (s: TestService) => new StripePayoutSender(s.ctx, { api: fake.api, retryDelaysMs: [RETRY_MS], waitMs: WAIT_MS, timeoutMs: 2000, leaseMs: 30_000 });

/**
 * A campaign paying $10 per referral and $5 to the friend (10% commission) into Stripe: Ann's customer is
 * linked by her subscription's checkout; Ben pays (his checkout links his), which credits both.
 */
async function program(s: TestService, options: { mode?: 'balance' | 'promotion_code'; rules?: Record<string, unknown>; linkAnn?: boolean } = {}) {
  const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD', ...options.rules });
  await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET, stripeRewardKey: KEY, stripeRewardMode: options.mode ?? 'balance' });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  if (options.linkAnn !== false) await linkAnn(s, id, ann.referralCode!);
  return { id, annCode: ann.referralCode!, benCode: ben.referralCode! };
}

/** Ann starts a subscription: its checkout ties cus_ann to her (its payments arrive as invoices). */
async function linkAnn(s: TestService, id: string, annCode: string) {
  const subscription = checkoutSession(annCode, 'ann@example.com', 0, { mode: 'subscription', payment_status: 'paid', customer: 'cus_ann' });
  assert.equal((await send(s, id, event('checkout.session.completed', subscription))).body.outcome, 'applied');
}

/** Ben pays `amount` in Stripe's smallest unit of `currency` (the campaign's: another would be held). */
const benPays = async (s: TestService, id: string, benCode: string, amount = 4999, currency = 'usd') =>
  assert.equal((await send(s, id, event('checkout.session.completed', checkoutSession(benCode, 'ben@example.com', amount, { customer: 'cus_ben', payment_intent: `pi_${amount}`, currency })))).body.outcome, 'applied');

const rewards = async (s: TestService, id: string, email: string) => {
  const p = await s.admin.getParticipant(id, email);
  return email === 'ann@example.com' ? [p.referralReward, p.referralRewardRedeemed] : [p.refereeReward, p.refereeRewardRedeemed];
};
const payoutOf = async (s: TestService, id: string, email: string): Promise<StripePayoutView> => {
  const found = (await s.admin.listStripePayouts(id)).filter((p) => p.email === email);
  assert.equal(found.length, 1, `one payout of ${email}`);
  return found[0]!;
};

eachDatabase(
  'Stripe credit out',
  (service) => {
    it('balance: each credit that becomes available is paid as a customer balance credit, in cents, and redeemed once', async () => {
      const s = service();
      const { id, benCode } = await program(s);
      await benPays(s, id, benCode);
      const queued = await s.admin.listStripePayouts(id);
      assert.deepEqual(queued.map((p) => [p.email, p.status, p.amount, p.currency, p.mode, p.rewardKind]).sort(), [
        ['ann@example.com', 'queued', 10, 'USD', 'balance', 'referral'],
        ['ben@example.com', 'queued', 5, 'USD', 'balance', 'referee'],
      ]);
      assert.equal(await sender(s).sendDue(), 2);
      // Exactly the documented request: POST, the path of the customer, the restricted key, the form fields.
      const ann = fake.requests.find((r) => r.path === '/v1/customers/cus_ann/balance_transactions')!;
      assert.equal(ann.method, 'POST');
      assert.equal(ann.key, KEY);
      assert.match(ann.idempotencyKey!, /^refkit_payout_[a-z0-9]{24}-0$/);
      assert.deepEqual(Object.keys(ann.fields).sort(), ['amount', 'currency', 'description', 'metadata[refkit_campaign]', 'metadata[refkit_payout]']);
      assert.deepEqual([ann.fields.amount, ann.fields.currency, ann.fields['metadata[refkit_campaign]']], ['-1000', 'usd', id]);
      assert.equal(fake.customers.get('cus_ann'), -1000);
      assert.equal(fake.customers.get('cus_ben'), -500);
      // Redeemed from the balances: earned stays, redeemed moves, the balance is 0.
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      assert.deepEqual(await rewards(s, id, 'ben@example.com'), [5, 5]);
      const paid = await payoutOf(s, id, 'ann@example.com');
      assert.equal(paid.status, 'paid');
      assert.equal(paid.attempts, 1);
      assert.equal(paid.customer, 'cus_ann');
      assert.match(paid.stripeId!, /^cbtxn_/);
      assert.ok(paid.paidOn);
      const [redemption] = await s.admin.listRewardEntries(id, 'ann@example.com');
      assert.equal(redemption!.kind, 'redemption');
      assert.equal(redemption!.amount, -10);
      assert.match(redemption!.label, new RegExp(`Paid into Stripe as a customer balance credit \\(${paid.stripeId}\\)`));
      // Nothing is due any more: a second round sends nothing.
      assert.equal(await sender(s).sendDue(), 0);
      assert.equal(fake.requests.length, 2);
      await assertCountersAreTheLedger(s, id);
    });

    it('a held credit is paid only when its hold ends', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { holdDays: 30 } });
      await benPays(s, id, benCode);
      assert.deepEqual(await s.admin.listStripePayouts(id), [], 'pending credits are not paid');
      await sender(s).sendDue();
      assert.equal(fake.requests.length, 0);
      later(31 * DAY);
      await releaseDueRewards(s.ctx);
      assert.deepEqual((await s.admin.listStripePayouts(id)).map((p) => p.status), ['queued', 'queued']);
      assert.equal(await sender(s).sendDue(), 2);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      assert.equal(fake.customers.get('cus_ann'), -1000);
      await assertCountersAreTheLedger(s, id);
    });

    it('promotion_code: a one-off coupon and a promotion code for that customer, redeemable once', async () => {
      const s = service();
      const { id, benCode } = await program(s, { mode: 'promotion_code' });
      await benPays(s, id, benCode);
      await sender(s).sendDue();
      const coupon = fake.requests.find((r) => r.path === '/v1/coupons' && r.fields.amount_off === '1000')!;
      assert.deepEqual(
        [coupon.fields.amount_off, coupon.fields.currency, coupon.fields.duration, coupon.fields.max_redemptions, coupon.key],
        ['1000', 'usd', 'once', '1', KEY],
      );
      const promotion = fake.requests.find((r) => r.path === '/v1/promotion_codes' && r.fields.customer === 'cus_ann')!;
      const couponId = [...fake.coupons.values()].find((c) => c.amount_off === 1000)!.id;
      assert.deepEqual([promotion.fields['promotion[type]'], promotion.fields['promotion[coupon]'], promotion.fields.max_redemptions], ['coupon', couponId, '1']);
      assert.equal(promotion.fields.coupon, undefined, "the installed package's API version takes promotion[coupon]");
      assert.equal(promotion.idempotencyKey, `${coupon.idempotencyKey!.replace(/-coupon$/, '')}-promotion-code`);
      const paid = await payoutOf(s, id, 'ann@example.com');
      assert.equal(paid.status, 'paid');
      assert.match(paid.stripeId!, /^promo_/);
      const made = fake.promotionCodes.get(paid.stripeId!)!;
      assert.equal(paid.promotionCode, made.code);
      assert.deepEqual([made.customer, made.max_redemptions], ['cus_ann', 1]);
      assert.match((await s.admin.listRewardEntries(id, 'ann@example.com'))[0]!.label, new RegExp(`promotion code ${String(made.code)}`));
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      await assertCountersAreTheLedger(s, id);
    });

    it('a 500, a 429 and a dropped connection are retried with the same idempotency key; the success redeems once', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      fake.fail({ kind: '500' });
      await sender(s).sendDue();
      let payout = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([payout.status, payout.attempts], ['queued', 1]);
      assert.match(payout.lastError!, /500/);
      assert.ok(Date.parse(payout.nextAttemptOn!) >= Date.now() + offset + RETRY_MS - 1000);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 0], 'not redeemed before Stripe says yes');
      // Not due yet: nothing is sent.
      await sender(s).sendDue();
      assert.equal(fake.requests.length, 1);
      // A closed connection: the stripe package tries once more itself (same key), so it is closed twice.
      for (const failures of [[{ kind: '429' }], [{ kind: 'drop' }, { kind: 'drop' }]] as const) {
        fake.fail(...failures);
        later(RETRY_MS);
        await sender(s).sendDue();
        assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'queued', failures[0].kind);
      }
      later(RETRY_MS);
      await sender(s).sendDue();
      payout = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([payout.status, payout.attempts], ['paid', 4]);
      assert.equal(fake.requests.length, 5, '500, 429, two closed connections (the package retries once), the success');
      assert.equal(payout.lastError, undefined);
      assert.equal(new Set(fake.requests.map((r) => r.idempotencyKey)).size, 1, 'one key on every attempt');
      assert.equal(fake.made.length, 1);
      assert.equal(fake.customers.get('cus_ann'), -1000);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      await assertCountersAreTheLedger(s, id);
    });

    it('a lost answer (Stripe made it, the service never heard) and a claim left by a crashed process: the retry gets the same object, redeemed once', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      // The answer is lost, and so is the stripe package's own second try (it retries a closed connection once).
      fake.fail({ kind: 'lost-answer' }, { kind: 'drop' });
      await sender(s).sendDue();
      assert.equal(fake.made.length, 1, 'Stripe made the balance transaction');
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'queued');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 0]);
      // A process claims it and dies before it records anything: its lease holds the payout for a while.
      const claimed = await s.ctx.store.transaction((tx) => tx.stripePayouts.claimDue(Date.now() + offset + RETRY_MS, 30_000, 10));
      assert.equal(claimed.length, 1);
      later(RETRY_MS);
      assert.equal(await sender(s).sendDue(), 0, 'claimed by the crashed process');
      later(30_000);
      assert.equal(await sender(s).sendDue(), 1);
      const payout = await payoutOf(s, id, 'ann@example.com');
      assert.equal(payout.status, 'paid');
      const replay = fake.requests.at(-1)!;
      assert.equal(replay.replayed, true, 'answered from the key');
      assert.equal(payout.stripeId, (fake.made[0]!.body as { id: string }).id, 'the object Stripe made the first time');
      assert.equal(fake.made.length, 1);
      assert.equal(fake.customers.get('cus_ann'), -1000, 'credited once');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      await assertCountersAreTheLedger(s, id);
    });

    it('a crash between Stripe\'s answer and the commit: once the claim runs out, the retry reuses the key and gets the same object', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      // The process dies as it opens the transaction that would record Stripe's answer (the claim was the first).
      const store = s.ctx.store;
      const real = store.transaction.bind(store);
      let transactions = 0;
      store.transaction = ((fn: Parameters<typeof real>[0]) => {
        if (++transactions === 2) return Promise.reject(new Error('the process died here'));
        return real(fn);
      }) as typeof store.transaction;
      await assert.rejects(sender(s).sendDue(), /the process died here/);
      store.transaction = real;
      assert.equal(fake.made.length, 1, 'Stripe made the balance transaction');
      const unrecorded = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([unrecorded.status, unrecorded.attempts], ['queued', 0]);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 0]);
      assert.equal(await sender(s).sendDue(), 0, 'still claimed by the dead process');
      later(30_000);
      assert.equal(await sender(s).sendDue(), 1);
      const paid = await payoutOf(s, id, 'ann@example.com');
      assert.equal(paid.status, 'paid');
      assert.equal(paid.stripeId, (fake.made[0]!.body as { id: string }).id);
      assert.equal(fake.requests.at(-1)!.idempotencyKey, fake.made[0]!.idempotencyKey);
      assert.equal(fake.requests.at(-1)!.replayed, true);
      assert.equal(fake.customers.get('cus_ann'), -1000, 'credited once');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      await assertCountersAreTheLedger(s, id);
    });

    it('a timeout (Stripe made it, its answer came too late): the retry gets the same object, redeemed once', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      const impatient = new StripePayoutSender(s.ctx, { api: fake.api, retryDelaysMs: [RETRY_MS], timeoutMs: 200 });
      fake.fail({ kind: 'slow', ms: 600 }, { kind: 'slow', ms: 600 });
      await impatient.sendDue();
      const timedOut = await payoutOf(s, id, 'ann@example.com');
      assert.equal(timedOut.status, 'queued');
      assert.match(timedOut.lastError!, /Stripe could not be reached/);
      assert.equal(fake.made.length, 1, 'Stripe made it all the same');
      later(RETRY_MS);
      await impatient.sendDue();
      const paid = await payoutOf(s, id, 'ann@example.com');
      assert.equal(paid.status, 'paid');
      assert.equal(paid.stripeId, (fake.made[0]!.body as { id: string }).id);
      assert.equal(fake.customers.get('cus_ann'), -1000, 'credited once');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
    });

    it('two senders at once: each payout is claimed, sent and redeemed once', async () => {
      const s = service();
      const { id, annCode } = await program(s, { rules: { refereeRewardValue: 0, referrerRewardValue: 1 } });
      for (let i = 0; i < 6; i++) {
        await s.admin.addParticipant({ id, email: `f${i}@example.com`, referredByCode: annCode });
        await s.admin.qualifyParticipant({ id, email: `f${i}@example.com` });
      }
      const counts = await Promise.all([sender(s).sendDue(), sender(s).sendDue(), sender(s).sendDue()]);
      assert.equal(counts.reduce((a, b) => a + b, 0), 6);
      assert.equal(fake.made.length, 6);
      assert.equal(new Set(fake.made.map((r) => r.idempotencyKey)).size, 6);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [6, 6]);
      await assertCountersAreTheLedger(s, id);
    });

    it("a 400 of Stripe's marks the payout failed with its message and leaves the credit available; a retry sends a new request", async () => {
      const s = service();
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      fake.fail({ kind: '400', message: 'The currency usd does not match the customer balance currency eur', code: 'invalid_currency' });
      await sender(s).sendDue();
      const failed = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([failed.status, failed.attempts, failed.nextAttemptOn], ['failed', 1, undefined]);
      assert.match(failed.lastError!, /Stripe answered 400: The currency usd does not match/);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 0], 'still available');
      assert.deepEqual((await s.admin.listStripePayouts(id, { status: 'failed' })).map((p) => p.id), [failed.id]);
      await sender(s).sendDue();
      assert.equal(fake.requests.length, 1, 'a failed payout is not sent again by itself');
      const retried = await s.admin.retryStripePayout(id, failed.id);
      assert.equal(retried.status, 'queued');
      await sender(s).sendDue();
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'paid');
      assert.deepEqual(fake.requests.map((r) => r.idempotencyKey!.slice(-2)), ['-0', '-1'], 'a new generation: a new request');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
      await rejects(() => s.admin.retryStripePayout(id, failed.id), 409, 'invalid_transition', 'payoutId');
      await rejects(() => s.admin.retryStripePayout(id, 999_999), 404, 'not_found', 'payoutId');
      await rejects(() => s.admin.retryStripePayout('cmp_nope', failed.id), 404, 'campaign_not_found');
    });

    it('a participant with no Stripe customer waits with the reason, and is paid once a Stripe event links one', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, annCode, benCode } = await program(s, { linkAnn: false, rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      await sender(s).sendDue();
      const waiting = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([waiting.status, waiting.attempts], ['waiting', 0]);
      assert.match(waiting.lastError!, /No Stripe customer is linked/);
      assert.equal(fake.requests.length, 0);
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 0]);
      await linkAnn(s, id, annCode);
      await sender(s).sendDue();
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'waiting', 'looked at again after waitMs');
      later(WAIT_MS);
      await sender(s).sendDue();
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'paid');
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [10, 10]);
    });

    it("amounts in the currency's smallest unit (JPY has none below the yen); rewards that are not money, or a currency changed since, wait", async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { rewardCurrency: 'JPY', refereeRewardValue: 0 } });
      await benPays(s, id, benCode, 50, 'jpy');
      await s.admin.updateCampaign({ id, rewardCurrency: 'EUR' });
      await sender(s).sendDue();
      const moved = await payoutOf(s, id, 'ann@example.com');
      assert.deepEqual([moved.status, moved.currency], ['waiting', 'JPY']);
      assert.match(moved.lastError!, /in JPY and the campaign's rewards are now in EUR/);
      await s.admin.updateCampaign({ id, rewardType: 'points' });
      await s.admin.retryStripePayout(id, moved.id);
      await sender(s).sendDue();
      assert.match((await payoutOf(s, id, 'ann@example.com')).lastError!, /rewards are points, not money/);
      await s.admin.updateCampaign({ id, rewardType: 'credit', rewardCurrency: 'JPY' });
      later(WAIT_MS);
      await sender(s).sendDue();
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'paid');
      const [request] = fake.requests;
      assert.deepEqual([request!.fields.amount, request!.fields.currency], ['-10', 'jpy'], '10 yen, not 1000');
    });

    it('mode off (the default) queues and sends nothing; turning it off later keeps queued payouts waiting', async () => {
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, referrerRewardPercent: 10 });
      await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await linkAnn(s, id, ann.referralCode!);
      await benPays(s, id, ben.referralCode!);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 14);
      assert.deepEqual(await s.admin.listStripePayouts(id), []);
      await sender(s).sendDue();
      assert.equal(fake.requests.length, 0);
      // On, a credit is queued; off again before it is sent, it waits, with the reason.
      await s.admin.updateCampaign({ id, stripeRewardKey: KEY, stripeRewardMode: 'balance' });
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '20.00' });
      await s.admin.updateCampaign({ id, stripeRewardMode: 'off' });
      await sender(s).sendDue();
      const [held] = await s.admin.listStripePayouts(id);
      assert.deepEqual([held!.status, held!.amount], ['waiting', 2]);
      assert.match(held!.lastError!, /off for this campaign/);
      assert.equal(fake.requests.length, 0);
    });

    it('a reversal after the payout is owed, netted from later credits; nothing is taken back from Stripe', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0, referrerRewardPercent: 10 } });
      await benPays(s, id, benCode, 10_000);
      // Ann's $10 and her $10 commission: both paid.
      await sender(s).sendDue();
      assert.deepEqual(await rewards(s, id, 'ann@example.com'), [20, 20]);
      const sent = fake.requests.length;
      // A refund of half: the commission's $5 is taken back, from a balance of 0, so it is owed.
      assert.equal((await send(s, id, event('charge.refunded', charge('ch_1', 5000, { customer: 'cus_ben', payment_intent: 'pi_10000' })))).body.outcome, 'applied');
      const detail = await s.admin.getParticipantDetail(id, 'ann@example.com');
      assert.equal(detail.rewards.owed.referral, 5);
      await sender(s).sendDue();
      assert.equal(fake.requests.length, sent, 'no request to Stripe for a reversal');
      // Her next credit nets it: of a $10 referral, $5 is paid.
      await s.admin.addParticipant({ id, email: 'cy@example.com', referredByCode: (await s.admin.getParticipant(id, 'ann@example.com')).referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'cy@example.com' });
      const next = (await s.admin.listStripePayouts(id, { status: 'queued' }))[0]!;
      assert.equal(next.amount, 5);
      await assertCountersAreTheLedger(s, id);
    });

    it('a refund between queueing and the payout: what the balance no longer covers is owed', async () => {
      const s = service();
      s.ctx.now = () => Date.now() + offset;
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0, referrerRewardPercent: 10 } });
      await benPays(s, id, benCode, 10_000);
      fake.fail({ kind: '500' }, { kind: '500' });
      await sender(s).sendDue();
      // Refunded in full after the hold-free credit: the commission's $10 is taken from the balance of $20.
      assert.equal((await send(s, id, event('charge.refunded', charge('ch_1', 10_000, { customer: 'cus_ben', payment_intent: 'pi_10000' })))).body.outcome, 'applied');
      later(RETRY_MS);
      await sender(s).sendDue();
      assert.deepEqual((await s.admin.listStripePayouts(id)).map((p) => p.status), ['paid', 'paid']);
      const ann = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(ann.referralRewardBalance, 0);
      assert.equal((await s.admin.getParticipantDetail(id, 'ann@example.com')).rewards.owed.referral, 10);
      await assertCountersAreTheLedger(s, id);
    });

    it('the key: rk_ only (400 otherwise, nothing changed), a mode needs it, never shown by the API or the CLI', async () => {
      const s = service();
      const id = await s.campaign();
      for (const bad of ['sk_test_0123456789abcdef', 'rk_prod_0123456789abcdef', 'rk_test_short', 'rk_test_0123456789 ']) {
        await rejects(() => s.admin.updateCampaign({ id, stripeRewardKey: bad }), 400, 'invalid_request', 'stripeRewardKey');
      }
      await rejects(() => s.admin.updateCampaign({ id, stripeRewardMode: 'balance' }), 400, 'invalid_request', 'stripeRewardMode');
      await rejects(() => s.admin.updateCampaign({ id, stripeRewardMode: 'cash' as 'balance' }), 400, 'invalid_request');
      await rejects(() => s.campaign({ stripeRewardMode: 'promotion_code' }), 400, 'invalid_request', 'stripeRewardMode');
      let settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual([settings.stripeRewardKeyConfigured, settings.stripeRewardMode], [false, 'off']);
      await s.admin.updateCampaign({ id, stripeRewardKey: KEY, stripeRewardMode: 'promotion_code' });
      settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual([settings.stripeRewardKeyConfigured, settings.stripeRewardMode], [true, 'promotion_code']);
      await rejects(() => s.admin.updateCampaign({ id, stripeRewardKey: '' }), 400, 'invalid_request', 'stripeRewardKey');
      const shown = [
        JSON.stringify(await s.admin.listCampaigns()),
        JSON.stringify(await s.admin.getCampaign(id)),
        JSON.stringify(await s.browser.getCampaign(id)),
        JSON.stringify(await s.admin.updateCampaign({ id, campaignName: 'Renamed' })),
      ];
      const env = { DATABASE_URL: s.database.url };
      const update = await cli(['campaign', 'update', '--id', id, '--stripe-reward-key', 'rk_live_fromTheCli0123456789', '--stripe-reward-mode', 'balance', '--json'], env);
      assert.equal(update.code, 0, update.stderr);
      const list = await cli(['campaign', 'list', '--json'], env);
      const human = await cli(['campaign', 'list'], env);
      shown.push(update.stdout, list.stdout, human.stdout);
      for (const text of shown) assert.ok(!text.includes('rk_test_') && !text.includes('rk_live_'), text);
      const listed = (JSON.parse(list.stdout) as { campaignId: string; stripeRewardMode: string; stripeRewardKeyConfigured: boolean }[]).find((c) => c.campaignId === id)!;
      assert.deepEqual([listed.stripeRewardMode, listed.stripeRewardKeyConfigured], ['balance', true]);
      const badCli = await cli(['campaign', 'update', '--id', id, '--stripe-reward-mode', 'cash'], env);
      assert.notEqual(badCli.code, 0);
      await s.admin.updateCampaign({ id, stripeRewardMode: 'off', stripeRewardKey: '' });
      assert.equal((await s.admin.listCampaigns()).find((c) => c.campaignId === id)!.stripeRewardKeyConfigured, false);
    });

    it('listStripePayouts pages like the other lists, filters by status, and is the owner’s only', async () => {
      const s = service();
      const { id, annCode } = await program(s, { rules: { refereeRewardValue: 0, referrerRewardValue: 1 } });
      for (let i = 0; i < 5; i++) {
        await s.admin.addParticipant({ id, email: `f${i}@example.com`, referredByCode: annCode });
        await s.admin.qualifyParticipant({ id, email: `f${i}@example.com` });
      }
      const first = await s.admin.listStripePayoutsPage(id, { pageSize: 2 });
      assert.equal(first.items.length, 2);
      assert.ok(first.nextCursor);
      const second = await s.admin.listStripePayoutsPage(id, { pageSize: 2, cursor: first.nextCursor });
      assert.equal(second.items.length, 2);
      const all = await s.admin.listStripePayouts(id, { pageSize: 100 });
      assert.equal(all.length, 5);
      const page2 = await s.admin.listStripePayouts(id, { pageSize: 2, page: 2 });
      assert.deepEqual(page2.map((p) => p.id), all.slice(2, 4).map((p) => p.id));
      assert.deepEqual(second.items.map((p) => p.id), all.slice(2, 4).map((p) => p.id));
      assert.deepEqual(await s.admin.listStripePayouts(id, { status: 'paid' }), []);
      await rejects(() => s.admin.listStripePayouts(id, { status: 'lost' as 'paid' }), 400, 'invalid_request');
      await rejects(() => s.admin.listStripePayouts(id, { pageSize: 0 }), 400, 'invalid_request');
      await rejects(() => s.admin.listStripePayouts('cmp_nope'), 404, 'campaign_not_found');
      const res = await fetch(`${s.url}/api/v1/admin/listStripePayouts?id=${id}`);
      assert.equal(res.status, 401);
      const badBody = await fetch(`${s.url}/api/v1/admin/retryStripePayout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, payoutId: 'one' }),
      });
      assert.equal(badBody.status, 400);
    });
  },
);

eachDatabase(
  'Stripe credit out, the running sender',
  (service) => {
    it('started with the service, it pays a new credit by itself', async () => {
      const s = service();
      const { id, benCode } = await program(s, { rules: { refereeRewardValue: 0 } });
      await benPays(s, id, benCode);
      for (let i = 0; i < 200 && (await payoutOf(s, id, 'ann@example.com')).status !== 'paid'; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal((await payoutOf(s, id, 'ann@example.com')).status, 'paid');
      assert.equal(fake.made.length, 1);
    });
  },
  // The fake's port is known once it listens: read when the service starts, after the file's beforeEach.
  {
    payouts: {
      get api() {
        return fake.api;
      },
      pollMs: 20,
    },
  },
);
