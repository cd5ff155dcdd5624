/**
 * Cash payouts on both databases, against loopback stand-ins of PayPal's Payouts API
 * (./helpers/fake-paypal.ts) and Stripe's Connect API (./helpers/fake-stripe.ts), each written from the
 * provider's reference: runs with a minimum and approval, parallel approvals (one batch), a crash between
 * PayPal's answer and our record (no second payment), a returned payout, and a Stripe Connect transfer.
 * The sender is driven by hand (sendDue) against a clock the tests move.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { CashPayoutSender } from '../../src/server/payouts/domain/cash-payout-sender.js';
import { rejects } from './helpers/assert.js';
import { FakePayPal } from './helpers/fake-paypal.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const CLIENT = { clientId: 'refkit-live-client', clientSecret: 'refkit-live-secret' };
const STRIPE_KEY = 'sk_live_refkitConnect0123456789';
const RETRY_MS = 60_000;
const POLL_MS = 3_600_000;

let offset = 0;
const later = (ms: number) => (offset += ms);

let paypal: FakePayPal;
let stripe: FakeStripe;
beforeEach(async () => {
  offset = 0;
  paypal = await new FakePayPal().allowClient(CLIENT.clientId, CLIENT.clientSecret).start();
  stripe = await new FakeStripe().allowKey(STRIPE_KEY).start();
});
afterEach(async () => {
  await paypal.stop();
  await stripe.stop();
});

function sender(s: TestService) {
  s.ctx.payouts = { publicUrl: s.url, paypalApiUrl: paypal.baseUrl, stripeApiUrl: `http://${stripe.api.host}:${stripe.api.port}` };
  return new CashPayoutSender(s.ctx, { retryDelaysMs: [RETRY_MS], statusPollMs: POLL_MS, waitMs: RETRY_MS, timeoutMs: 2000, leaseMs: 30_000 });
}

/**
 * A campaign paying $10 a referral and $5 to the friend, in cash by PayPal or Stripe, $10 at least: Ann
 * refers Ben and Cy (both qualify: $20 for her, $5 each for them).
 */
async function program(s: TestService, cash: Record<string, unknown> = {}) {
  const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD' });
  await s.admin.updateCampaign({ id, cashPayouts: { methods: ['paypal', 'stripe_connect'], minimum: 10, schedule: 'manual', approval: true, ...cash } } as never);
  await s.admin.updateAccountSettings({ paypal: { ...CLIENT, webhookId: paypal.webhookId } });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  for (const email of ['ben@example.com', 'cy@example.com']) {
    await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email });
  }
  return id;
}

const balance = async (s: TestService, id: string, email: string) => {
  const p = await s.admin.getParticipant(id, email) as Required<Awaited<ReturnType<typeof s.admin.getParticipant>>>;
  return { referral: p.referralReward - p.referralRewardRedeemed, referee: p.refereeReward - p.refereeRewardRedeemed, redeemed: p.referralRewardRedeemed + p.refereeRewardRedeemed };
};

eachDatabase('Cash payouts', (service) => {
  it('a run pays who reaches the minimum and has a method, reserves it, and waits for approval; PayPal pays it once and the ledger redeems it', async () => {
    const s = service();
    const id = await program(s);
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'Ann.PayPal@example.com' });
    await s.admin.setPayoutMethod({ id, email: 'ben@example.com', method: 'paypal', paypalEmail: 'ben@example.com' });
    const run = await s.admin.createPayouts(id);
    assert.deepEqual(run.payouts.map((p) => [p.email, p.amount, p.referralAmount, p.refereeAmount, p.method, p.destination, p.status]), [
      ['ann@example.com', 20, 20, 0, 'paypal', 'ann.paypal@example.com', 'pending_approval'],
    ]);
    assert.deepEqual(run.skipped.sort((a, b) => a.email.localeCompare(b.email)), [
      { email: 'ben@example.com', reason: 'under the minimum (5 of 10 USD)' },
      { email: 'cy@example.com', reason: 'under the minimum (5 of 10 USD)' },
    ]);
    // Reserved: neither a redemption nor a second run takes it.
    await rejects(() => s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 1 }), 409, 'insufficient_balance');
    assert.deepEqual((await s.admin.createPayouts(id)).payouts, []);
    const send = sender(s);
    assert.equal(await send.sendDue(), 0, 'nothing is sent before approval');
    const [approved] = (await s.admin.approvePayouts(id, [run.payouts[0]!.id])).payouts;
    assert.equal(approved!.status, 'sending');
    await send.sendDue();
    assert.equal(paypal.made.length, 1);
    const body = paypal.made[0]!.body as { sender_batch_header: { sender_batch_id: string }; items: { receiver: string; amount: { value: string; currency: string } }[] };
    assert.deepEqual(body.items.map((i) => [i.receiver, i.amount]), [['ann.paypal@example.com', { value: '20.00', currency: 'USD' }]]);
    assert.equal(paypal.made[0]!.requestId, body.sender_batch_header.sender_batch_id, 'PayPal-Request-Id is the sender_batch_id');
    const [sent] = await s.admin.listPayouts(id);
    assert.equal(sent!.status, 'sent');
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 20, referee: 0, redeemed: 0 }, 'sent is not yet paid');
    // No webhook came: the batch is asked about after statusPollMs.
    assert.equal(await send.sendDue(), 0);
    later(POLL_MS);
    await send.sendDue();
    const [paid] = await s.admin.listPayouts(id);
    assert.equal(paid!.status, 'paid');
    assert.match(paid!.providerId ?? '', /./);
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 0, referee: 0, redeemed: 20 });
    const entries = await s.admin.listRewardEntries(id, 'ann@example.com');
    assert.match(entries[0]!.label, /^Paid by PayPal \(payout \d+, /);
    assert.equal(paypal.made.length, 1, 'one payment');
    await assertCountersAreTheLedger(s, id);
  });

  it('two approvals at once send each payout once, in one PayPal batch', async () => {
    const s = service();
    const id = await program(s, { minimum: 5 });
    for (const email of ['ann@example.com', 'ben@example.com', 'cy@example.com']) await s.admin.setPayoutMethod({ id, email, method: 'paypal', paypalEmail: email });
    const run = await s.admin.createPayouts(id);
    const ids = run.payouts.map((p) => p.id);
    assert.equal(ids.length, 3);
    await Promise.all([s.admin.approvePayouts(id, ids), s.admin.approvePayouts(id, ids)]);
    const send = sender(s);
    await Promise.all([send.sendDue(), sender(s).sendDue()]);
    assert.equal(paypal.made.length, 1, 'one batch');
    assert.equal((paypal.made[0]!.body as { items: unknown[] }).items.length, 3);
    later(POLL_MS);
    await send.sendDue();
    assert.deepEqual((await s.admin.listPayouts(id)).map((p) => p.status), ['paid', 'paid', 'paid']);
    await assertCountersAreTheLedger(s, id);
  });

  it('a crash between PayPal taking the batch and its record: the retry sends the same request, and PayPal makes no second payment', async () => {
    const s = service();
    const id = await program(s, { approval: false });
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann@example.com' });
    await s.admin.createPayouts(id);
    paypal.fail({ kind: 'lost-answer' });
    const send = sender(s);
    await send.sendDue();
    const [waiting] = await s.admin.listPayouts(id);
    assert.equal(waiting!.status, 'sending');
    assert.match(waiting!.reason ?? '', /PayPal could not be reached/);
    later(RETRY_MS);
    await send.sendDue();
    assert.equal(paypal.made.length, 1, 'PayPal made one batch');
    later(POLL_MS);
    await send.sendDue();
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 0, referee: 0, redeemed: 20 });
  });

  it('a returned payout releases its amount with the reason, for the next run', async () => {
    const s = service();
    const id = await program(s, { approval: false });
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann@example.com' });
    await s.admin.createPayouts(id);
    const send = sender(s);
    await send.sendDue();
    const key = (paypal.made[0]!.body as { items: { sender_item_id: string }[] }).items[0]!.sender_item_id;
    paypal.setItemStatus(key, 'RETURNED');
    later(POLL_MS);
    await send.sendDue();
    const [returned] = await s.admin.listPayouts(id);
    assert.equal(returned!.status, 'returned');
    assert.match(returned!.reason ?? '', /^PayPal: RETURNED/);
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 20, referee: 0, redeemed: 0 });
    assert.equal((await s.admin.createPayouts(id)).payouts.length, 1, 'the amount is payable again');
    await assertCountersAreTheLedger(s, id);
  });

  it('Stripe Connect: a transfer to the onboarded account, under the payout key; a live campaign waits without live keys', async () => {
    const s = service();
    const id = await program(s, { approval: false, methods: ['stripe_connect'] });
    const ann = await s.ctx.store.db.selectFrom('participants').select('id').where('campaign_id', '=', id).where('email', '=', 'ann@example.com').executeTakeFirstOrThrow();
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'stripe_connect' });
    assert.deepEqual((await s.admin.createPayouts(id)).skipped.find((k) => k.email === 'ann@example.com'), { email: 'ann@example.com', reason: 'Stripe account not connected' });
    await rejects(() => s.admin.updateAccountSettings({ stripe: { secretKey: 'sk_test_refkitConnect0123456789' } }), 400, 'invalid_request');
    await s.admin.updateAccountSettings({ stripe: { secretKey: STRIPE_KEY } });
    assert.deepEqual((await s.admin.getAccountSettings()).stripe, { secretKeyConfigured: true, connectWebhookSecretConfigured: false });
    const campaign = (await s.ctx.store.findCampaign(id))!;
    const { connectStripe } = await import('../../src/server/payouts/domain/payout-methods.js');
    sender(s);
    const { url } = await connectStripe(s.ctx, campaign, { id: Number(ann.id), email: 'ann@example.com' }, `${s.url}/portal/${id}`);
    assert.match(url, /\/connect\/onboard\/acct_/);
    const account = url.split('/').pop()!;
    stripe.completeOnboarding(account);
    // Stripe's account.updated (../../src/server/payouts/domain/stripe-connect-events.ts) sets this from the event.
    await s.ctx.store.payoutProfiles.setStripePayoutsEnabled(account, true, Date.now());
    const run = await s.admin.createPayouts(id);
    assert.deepEqual(run.payouts.map((p) => [p.email, p.destination, p.amount]), [['ann@example.com', account, 20]]);
    await sender(s).sendDue();
    const [paid] = await s.admin.listPayouts(id);
    assert.equal(paid!.status, 'paid');
    assert.match(paid!.providerId ?? '', /^tr_/);
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 0, referee: 0, redeemed: 20 });
    await assertCountersAreTheLedger(s, id);
  });

  it('bad input changes nothing: cashPayouts on points, an unknown payout, a method the campaign does not pay by', async () => {
    const s = service();
    const points = await s.campaign({ rewardType: 'points' });
    await rejects(() => s.admin.updateCampaign({ id: points, cashPayouts: { methods: ['paypal'], minimum: 0, schedule: 'manual', approval: false } } as never), 400, 'invalid_request');
    const id = await program(s, { methods: ['paypal'] });
    await rejects(() => s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'stripe_connect' }), 400, 'invalid_request');
    await rejects(() => s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal' }), 400, 'invalid_request');
    await rejects(() => s.admin.approvePayouts(id, [999_999]), 404, 'payout_not_found');
    assert.deepEqual(await s.admin.listPayouts(id), []);
  });
}, { now: () => Date.now() + offset });
