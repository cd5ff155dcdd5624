/**
 * Cash payouts on both databases, against loopback stand-ins of PayPal's Payouts API
 * (./helpers/fake-paypal.ts) and Stripe's Connect API (./helpers/fake-stripe.ts), each written from the
 * provider's reference: runs with a minimum and approval, parallel approvals (one batch), a crash between
 * PayPal's answer and our record (no second payment), a returned payout, and a Stripe Connect transfer.
 * The sender is driven by hand (sendDue) against a clock the tests move.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import pg from 'pg';
import { CashPayoutSender } from '../../src/server/payouts/domain/cash-payout-sender.js';
import { CLAIM_LOCK } from '../../src/server/payouts/store/cash-payout-store.js';
import { rejects } from './helpers/assert.js';
import { FakePayPal } from './helpers/fake-paypal.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { RefkitClient } from '../../src/api/client.js';
import { randomBytes } from 'node:crypto';
import { Sealer } from '../../src/server/kernel/sealed.js';
import { setTaxDetails } from '../../src/server/payouts/domain/tax-details.js';
import { pruneExpired } from '../../src/server/privacy/domain/retention.js';
import { stripe as stripeSigner } from './helpers/stripe.js';

const CLIENT = { clientId: 'refkit-live-client', clientSecret: 'refkit-live-secret' };
const STRIPE_KEY = 'sk_live_refkitConnect0123456789';
const CONNECT_SECRET = 'whsec_refkitConnect0123456789';
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

/** Stripe's Connect endpoint delivery of `event`, signed with the Connect webhook secret. */
async function connectEvent(s: TestService, body: unknown, secret = CONNECT_SECRET) {
  const payload = JSON.stringify(body);
  const signature = stripeSigner.webhooks.generateTestHeaderString({ payload, secret });
  const { accountId } = { accountId: (await s.admin.getAccountSettings()).id };
  const res = await fetch(`${s.url}/api/v1/integrations/stripe-connect/${accountId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string } };
}

/** PayPal's webhook delivery, as the stand-in signs it. */
async function paypalEvent(s: TestService, delivery: { headers: Record<string, string>; body: string }) {
  const { id } = await s.admin.getAccountSettings();
  const res = await fetch(`${s.url}/api/v1/integrations/paypal/${id}`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string } };
}

const balance = async (s: TestService, id: string, email: string) => {
  const p = await s.admin.getParticipant(id, email) as Required<Awaited<ReturnType<typeof s.admin.getParticipant>>>;
  return { referral: p.referralReward - p.referralRewardRedeemed, referee: p.refereeReward - p.refereeRewardRedeemed, redeemed: p.referralRewardRedeemed + p.refereeRewardRedeemed };
};

eachDatabase('Cash payouts', (service, kind) => {
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

  if (kind.name === 'postgres') {
    it('PostgreSQL: a claim of due payouts waits while another is under way, then takes the whole batch (two at once deadlocked, each holding half)', async () => {
      const s = service();
      const id = await program(s, { minimum: 5 });
      for (const email of ['ann@example.com', 'ben@example.com', 'cy@example.com']) await s.admin.setPayoutMethod({ id, email, method: 'paypal', paypalEmail: email });
      const run = await s.admin.createPayouts(id);
      await s.admin.approvePayouts(id, run.payouts.map((p) => p.id));
      // Another sender's claim under way: a transaction holding the claim's lock.
      const other = new pg.Client({ connectionString: s.database.url });
      await other.connect();
      let claimed: number | undefined;
      try {
        await other.query('begin');
        await other.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [CLAIM_LOCK]);
        const claim = s.ctx.store.transaction((tx) => tx.cashPayouts.claimDue(Date.now(), 30_000, 10)).then((rows) => (claimed = rows.length));
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(claimed, undefined, 'the claim waits for the other');
        await other.query('commit');
        await claim;
      } finally {
        await other.end();
      }
      assert.equal(claimed, 3, 'the whole batch');
    });
  }

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

  it('a refund that reverses a commission already paid out takes what the balance has, and the rest is owed', async () => {
    const s = service();
    const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 0, referrerRewardPercent: 10, rewardType: 'credit', rewardCurrency: 'USD' } as never);
    await s.admin.updateCampaign({ id, cashPayouts: { methods: ['paypal'], minimum: 1, schedule: 'manual', approval: false } } as never);
    await s.admin.updateAccountSettings({ paypal: { ...CLIENT } });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '200.00' });
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann@example.com' });
    assert.deepEqual((await s.admin.createPayouts(id)).payouts.map((p) => p.amount), [30]);
    const send = sender(s);
    await send.sendDue();
    later(POLL_MS);
    await send.sendDue();
    assert.equal((await s.admin.listPayouts(id))[0]!.status, 'paid');
    await s.admin.refundPayment({ id, email: 'ben@example.com', amount: '200.00' });
    const liability = await s.admin.getRewardLiability(id);
    assert.deepEqual([liability.referral.available, liability.referral.redeemed, liability.referral.owed], [0, 30, 20], 'the commission is owed: the money had left');
    await assertCountersAreTheLedger(s, id);
  });

  it("PayPal's webhooks end a payout without a poll, once; a tampered or another account's event changes nothing", async () => {
    const s = service();
    const id = await program(s, { approval: false });
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann@example.com' });
    await s.admin.createPayouts(id);
    const send = sender(s);
    await send.sendDue();
    const key = (paypal.made[0]!.body as { items: { sender_item_id: string }[] }).items[0]!.sender_item_id;
    paypal.settle();
    const delivery = paypal.itemEvent(key, 'SUCCESS');
    const tampered = { ...delivery, body: delivery.body.replace('"SUCCESS"', '"FAILED"') };
    assert.equal((await paypalEvent(s, tampered)).status, 400);
    assert.equal((await s.admin.listPayouts(id))[0]!.status, 'sent');
    const first = await paypalEvent(s, delivery);
    assert.deepEqual([first.status, first.body.outcome], [200, 'applied']);
    const again = await paypalEvent(s, delivery);
    assert.deepEqual([again.status, again.body.outcome], [200, 'ignored'], 'the second delivery changes nothing');
    assert.equal((await s.admin.listPayouts(id))[0]!.status, 'paid');
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 0, referee: 0, redeemed: 20 });
    const elsewhere = JSON.parse(delivery.body) as { resource: { payout_item: { sender_item_id: string } } };
    elsewhere.resource.payout_item.sender_item_id = 'refkit_po_someone_elses';
    const unknown = await paypalEvent(s, paypal.signedEvent('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', elsewhere.resource as never));
    assert.equal(unknown.body.outcome, 'ignored');
    await assertCountersAreTheLedger(s, id);
  });

  it('Stripe Connect: a transfer to the onboarded account, under the payout key; a live campaign waits without live keys', async () => {
    const s = service();
    const id = await program(s, { approval: false, methods: ['stripe_connect'] });
    const ann = await s.ctx.store.db.selectFrom('participants').select('id').where('campaign_id', '=', id).where('email', '=', 'ann@example.com').executeTakeFirstOrThrow();
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'stripe_connect' });
    assert.deepEqual((await s.admin.createPayouts(id)).skipped.find((k) => k.email === 'ann@example.com'), { email: 'ann@example.com', reason: 'Stripe account not connected' });
    await rejects(() => s.admin.updateAccountSettings({ stripe: { secretKey: 'sk_test_refkitConnect0123456789' } }), 400, 'invalid_request');
    await s.admin.updateAccountSettings({ stripe: { secretKey: STRIPE_KEY, connectWebhookSecret: CONNECT_SECRET } });
    assert.deepEqual((await s.admin.getAccountSettings()).stripe, { secretKeyConfigured: true, connectWebhookSecretConfigured: true });
    const campaign = (await s.ctx.store.findCampaign(id))!;
    const { connectStripe } = await import('../../src/server/payouts/domain/payout-methods.js');
    sender(s);
    const { url } = await connectStripe(s.ctx, campaign, { id: Number(ann.id), email: 'ann@example.com' }, `${s.url}/portal/${id}`);
    assert.match(url, /\/connect\/onboard\/acct_/);
    const account = url.split('/').pop()!;
    const updated = stripe.completeOnboarding(account);
    // Stripe tells the Connect receiver; a bad signature changes nothing.
    assert.equal((await connectEvent(s, updated, 'whsec_wrongSecret0123456789')).status, 400);
    assert.equal((await s.admin.createPayouts(id)).skipped.find((k) => k.email === 'ann@example.com')?.reason, 'Stripe account onboarding not finished');
    const applied = await connectEvent(s, updated);
    assert.deepEqual([applied.status, applied.body.outcome], [200, 'applied']);
    const run = await s.admin.createPayouts(id);
    assert.deepEqual(run.payouts.map((p) => [p.email, p.destination, p.amount]), [['ann@example.com', account, 20]]);
    await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['payout_sent', 'payout_paid', 'payout_failed'] });
    await sender(s).sendDue();
    const [paid] = await s.admin.listPayouts(id);
    assert.equal(paid!.status, 'paid');
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('event_type').where('campaign_id', '=', id).execute();
    assert.deepEqual(events.map((e) => e.event_type).sort(), ['payout_paid', 'payout_sent'], 'a transfer is sent and paid at once: both events');
    assert.match(paid!.providerId ?? '', /^tr_/);
    assert.deepEqual(await balance(s, id, 'ann@example.com'), { referral: 0, referee: 0, redeemed: 20 });
    await assertCountersAreTheLedger(s, id);
  });

  it('test mode: a test campaign is paid only through the sandbox, waiting with the reason until it is set; the monthly run follows its clock', async () => {
    const s = service();
    const made = await s.admin.createApiKey('tests', true);
    const testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
    const id = (await testKey.createCampaign({ campaignName: 'Test payouts', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5 })).campaignId!;
    await testKey.updateCampaign({ id, cashPayouts: { methods: ['paypal'], minimum: 10, schedule: 'monthly', approval: false } } as never);
    await s.admin.updateAccountSettings({ paypal: { ...CLIENT, webhookId: paypal.webhookId } });
    const ann = await testKey.addParticipant({ id, email: 'ann@example.com' });
    await testKey.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await testKey.qualifyParticipant({ id, email: 'ben@example.com' });
    await testKey.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann@example.com' });
    const send = sender(s);
    assert.equal(await send.runSchedules(), 0, 'the schedule starts at the next month');
    const now = new Date((await testKey.getCampaignClock(id)).now);
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 12);
    await testKey.advanceClock({ id, to: new Date(nextMonth).toISOString() });
    assert.equal(await send.runSchedules(), 1);
    assert.equal(await send.runSchedules(), 0, 'once a month');
    await send.sendDue();
    const [waiting] = await testKey.listPayouts(id);
    assert.deepEqual([waiting!.status, waiting!.amount, waiting!.reason], ['sending', 10, 'PayPal is not set up for test campaigns: set paypalSandbox in the account settings']);
    assert.equal(paypal.requests.length, 0, 'the live credentials never pay a test campaign');
    paypal.allowClient('refkit-sandbox-client', 'refkit-sandbox-secret');
    // The first save needs the secret (and a bad one of several providers writes none of them).
    await rejects(() => s.admin.updateAccountSettings({ paypalSandbox: { clientId: 'refkit-sandbox-client' }, stripeTest: { secretKey: 'sk_test_refkitConnect0123456789' } }), 400, 'invalid_request');
    assert.deepEqual([(await s.admin.getAccountSettings()).paypalSandbox, (await s.admin.getAccountSettings()).stripeTest], [null, null]);
    await s.admin.updateAccountSettings({ paypalSandbox: { clientId: 'refkit-sandbox-client', clientSecret: 'refkit-sandbox-secret', webhookId: 'WH-OLD' } });
    // A webhook id changed alone keeps the secret; another app's client id needs its own.
    await s.admin.updateAccountSettings({ paypalSandbox: { clientId: 'refkit-sandbox-client', webhookId: 'WH-NEW' } });
    await rejects(() => s.admin.updateAccountSettings({ paypalSandbox: { clientId: 'another-app' } }), 400, 'invalid_request');
    assert.deepEqual((await s.admin.getAccountSettings()).paypalSandbox, { clientId: 'refkit-sandbox-client', webhookId: 'WH-NEW', clientSecretConfigured: true });
    later(RETRY_MS);
    await send.sendDue();
    assert.equal(paypal.made.length, 1);
    assert.equal(paypal.made[0]!.clientId, 'refkit-sandbox-client');
    assert.equal((await testKey.listPayouts(id))[0]!.status, 'sent');
    await rejects(() => testKey.updateAccountSettings({ paypalSandbox: null }), 403, 'forbidden');
  });

  it("tax details: a payout past the year's threshold waits for them; the tax report lists the year's PayPal payees (TIN masked); export and erasure", async () => {
    const s = service();
    s.ctx.sealer = new Sealer(randomBytes(32));
    const id = await program(s, { approval: false });
    await s.admin.updateAccountSettings({ tax: { thresholds: { '2000': 15 } } });
    assert.deepEqual((await s.admin.getAccountSettings()).tax, { thresholds: { '2000': 15 }, retentionYears: 7 });
    await s.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann.pp@example.com' });
    assert.deepEqual((await s.admin.createPayouts(id)).skipped.find((k) => k.email === 'ann@example.com'), { email: 'ann@example.com', reason: 'tax details missing' });
    const ann = await s.ctx.store.db.selectFrom('participants').select('id').where('campaign_id', '=', id).where('email', '=', 'ann@example.com').executeTakeFirstOrThrow();
    // What the portal's setTaxDetails stores (test/server/portal.test.ts calls it through the route).
    await setTaxDetails(s.ctx, Number(ann.id), { form: 'w9', legalName: 'Ann Example', tin: '123-45-6789', address: '1 Main St, Springfield', country: 'US' });
    const stored = await s.ctx.store.payoutProfiles.taxDetails(Number(ann.id));
    assert.ok(!stored!.tin_sealed.includes('6789') && s.ctx.sealer.open(stored!.tin_sealed) === '123456789', 'the TIN is sealed');
    assert.equal((await s.admin.createPayouts(id)).payouts.length, 1);
    const send = sender(s);
    await send.sendDue();
    later(POLL_MS);
    await send.sendDue();
    const year = new Date(Date.now() + offset).getUTCFullYear();
    const res = await fetch(`${s.url}/api/v1/admin/exportTaxReport?year=${year}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), `email,legalName,taxForm,tin,address,country,payouts,totalUsd,threshold\nann@example.com,Ann Example,w9,•••••6789,"1 Main St, Springfield",US,1,20,15\n`);
    const testSecret = (await s.admin.createApiKey('tests', true)).key;
    const refused = await fetch(`${s.url}/api/v1/admin/exportTaxReport?year=${year}`, { headers: { authorization: `Bearer ${testSecret}` } });
    assert.equal(refused.status, 403, 'a test key reads nothing account-wide');
    const exported = (await s.admin.exportPerson('ann@example.com')).participants[0]!;
    assert.deepEqual([exported.payoutMethod.paypalEmail, exported.taxDetails?.tin, exported.payouts.map((p) => p.status)], ['ann.pp@example.com', '•••••6789', ['paid']]);
    await s.admin.erasePerson('ann@example.com');
    assert.equal(await s.ctx.store.payoutProfiles.method(Number(ann.id)), undefined, 'the payout method is erased');
    const end = Date.UTC(year + 1 + 7, 0, 1);
    assert.equal(Number((await s.ctx.store.payoutProfiles.taxDetails(Number(ann.id)))?.keep_until), end, 'tax details stay until 7 full years after the year paid');
    const [scrubbed] = await s.ctx.store.cashPayouts.ofParticipant(Number(ann.id), 10);
    assert.doesNotMatch(scrubbed!.destination, /ann/);
    assert.equal((await pruneExpired(s.ctx)).taxDetails, 0, 'kept while the period runs');
    later(end - (Date.now() + offset));
    assert.equal((await pruneExpired(s.ctx)).taxDetails, 1, 'the retention pruner deletes them when it ends');
    assert.equal(await s.ctx.store.payoutProfiles.taxDetails(Number(ann.id)), undefined);
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
