/**
 * Sales from beyond Stripe, on both databases: each provider's events shaped as its webhook reference shows
 * them and signed as it signs them, posted to the running service. Per provider: bad and missing
 * signatures are 400 with nothing changed, a replay is a duplicate, a payment qualifies and earns its
 * commission, a refund reverses in proportion, an unmatched event is matched by hand, and a foreign-currency
 * order is converted with the provider's own settled amount (or held with its reason). listPaymentEvents
 * shows every source's events, Stripe's included.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { checkoutSession, event, SECRET, send } from './helpers/stripe.js';
import { RefkitClient } from '../../src/api/client.js';
import { FakeStripe } from './helpers/fake-stripe.js';

const STRIPE_KEY = 'rk_test_refkitSettlement0123456789';

const PADDLE_SECRET = 'pdl_ntfset_01refkitTestSecret_0123456789';
let n = 0;

/** Posts a Paddle notification, signed as Paddle signs it (ts, and h1 = hex HMAC-SHA256 of "ts:body"). */
async function paddle(s: TestService, id: string, body: unknown, options: { secret?: string | null; ts?: number } = {}) {
  const payload = JSON.stringify(body);
  const ts = options.ts ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const secret = options.secret === undefined ? PADDLE_SECRET : options.secret;
  if (secret !== null) headers['paddle-signature'] = `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${payload}`).digest('hex')}`;
  const res = await fetch(`${s.url}/api/v1/integrations/paddle/${id}`, { method: 'POST', headers, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string; error?: { code: string } } };
}

/** A transaction.completed notification, as Paddle's reference shows it (amounts: strings of the smallest unit). */
function transaction(code: string | null, total: string, options: { currency?: string; payout?: { total: string; currency_code: string }; customer?: string; id?: string } = {}) {
  const id = options.id ?? `txn_${++n}${Date.now()}`;
  return {
    event_id: `evt_${++n}${Date.now()}`,
    event_type: 'transaction.completed',
    occurred_at: new Date().toISOString(),
    notification_id: `ntf_${n}`,
    data: {
      id,
      status: 'completed',
      customer_id: options.customer ?? 'ctm_ben',
      currency_code: options.currency ?? 'USD',
      origin: 'web',
      custom_data: code === null ? null : { refkit_code: code },
      details: {
        totals: { subtotal: total, discount: '0', tax: '0', total, grand_total: total, fee: null, earnings: null, currency_code: options.currency ?? 'USD' },
        payout_totals: options.payout ? { subtotal: options.payout.total, tax: '0', discount: '0', total: options.payout.total, fee: '0', earnings: options.payout.total, currency_code: options.payout.currency_code } : null,
      },
    },
  };
}

function adjustment(transactionId: string, total: string, status: 'approved' | 'pending_approval', type: 'adjustment.created' | 'adjustment.updated' = 'adjustment.created') {
  return {
    event_id: `evt_${++n}${Date.now()}`,
    event_type: type,
    occurred_at: new Date().toISOString(),
    data: { id: `adj_${transactionId}`, action: 'refund', type: 'partial', status, transaction_id: transactionId, customer_id: 'ctm_ben', currency_code: 'USD', reason: 'error', totals: { subtotal: total, tax: '0', total, fee: '0', earnings: total, currency_code: 'USD' }, payout_totals: null },
  };
}

/** A campaign paying 10% of each payment to the referrer (USD), Ann referring Ben. */
async function program(s: TestService) {
  const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'USD', rewardType: 'credit' });
  await s.admin.updateCampaign({ id, paddleWebhookSecret: PADDLE_SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const annEarned = async (s: TestService, id: string) => (await s.admin.getParticipant(id, 'ann@example.com')).referralReward;

eachDatabase('Sales from beyond Stripe', (service) => {
  it('Paddle: bad, missing, stale and foreign signatures are 400 and change nothing; no secret is 400 too', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
    for (const options of [{ secret: null }, { secret: 'pdl_ntfset_someoneElse' }, { ts: Math.floor(Date.now() / 1000) - 3600 }, { ts: Math.floor(Date.now() / 1000) + 3600 }]) {
      const r = await paddle(s, id, transaction(ben, '5000'), options);
      assert.deepEqual([r.status, r.body.error?.code], [400, 'invalid_signature'], JSON.stringify(options));
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    const other = await s.campaign();
    assert.deepEqual((await paddle(s, other, transaction(ben, '5000'))).status, 400);
    assert.equal((await s.admin.updateCampaign({ id })).paymentSourcesConfigured.includes('paddle'), true);
  });

  it('Paddle: a completed transaction qualifies and earns its commission, once; an approved refund reverses in proportion, once', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const paid = transaction(ben, '5000', { id: 'txn_ben1' });
    assert.equal((await paddle(s, id, paid)).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    assert.equal(await annEarned(s, id), 5);
    assert.equal((await paddle(s, id, paid)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 5);
    // The next transaction names only the customer: the first one tied it to Ben.
    assert.equal((await paddle(s, id, transaction(null, '5000', { id: 'txn_ben2' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 10);
    // A refund waiting for approval does nothing; once approved (created and updated both say so) it reverses once.
    assert.equal((await paddle(s, id, adjustment('txn_ben2', '2000', 'pending_approval'))).body.outcome, 'ignored');
    assert.equal((await paddle(s, id, adjustment('txn_ben2', '2000', 'approved', 'adjustment.updated'))).body.outcome, 'applied');
    assert.equal((await paddle(s, id, adjustment('txn_ben2', '2000', 'approved', 'adjustment.updated'))).body.outcome, 'duplicate');
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 8, 'a fifth of the second payment refunded: a fifth of its 5 back');
  });

  it('Paddle: an event for nobody is kept unmatched and matched by hand; listPaymentEvents shows it', async () => {
    const s = service();
    const { id } = await program(s);
    const r = await paddle(s, id, transaction(null, '3000', { customer: 'ctm_stranger', id: 'txn_x' }));
    assert.equal(r.body.outcome, 'unmatched');
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'paddle', status: 'unmatched' });
    assert.deepEqual([listed!.provider, listed!.type, listed!.amount, listed!.currency], ['paddle', 'transaction.completed', '30.00', 'USD']);
    await rejects(() => s.admin.matchPaymentEvent(id, 'paddle:nope', 'ben@example.com'), 404, 'not_found');
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'nobody@example.com'), 404, 'participant_not_found');
    const matched = await s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal(await annEarned(s, id), 3);
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com'), 409, 'invalid_transition');
    // The customer is Ben's from now on.
    assert.equal((await paddle(s, id, transaction(null, '1000', { customer: 'ctm_stranger' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 4);
  });

  it('Paddle: a EUR transaction is converted with what Paddle pays out in USD; without it, it is held with the reason', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const converted = await paddle(s, id, transaction(ben, '4600', { currency: 'EUR', payout: { total: '5000', currency_code: 'USD' } }));
    assert.equal(converted.body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 5);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'paddle' });
    assert.deepEqual([shown!.amount, shown!.currency, shown!.convertedAmount], ['46.00', 'EUR', '50.00']);
    const held = await paddle(s, id, transaction(ben, '4600', { currency: 'EUR' }));
    assert.equal(held.body.outcome, 'held');
    assert.match(held.body.reason!, /EUR.*USD/);
    assert.equal(await annEarned(s, id), 5);
  });

  it("Stripe: a payment in another currency is converted at what its charge settled in the balance currency, read with the campaign's key", async () => {
    const s = service();
    const fake = await new FakeStripe().allowKey(STRIPE_KEY).start();
    try {
      s.ctx.payouts = { publicUrl: s.url, stripeApiUrl: `http://127.0.0.1:${fake.port}` };
      const { id, ben } = await program(s);
      await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET, stripeRewardKey: STRIPE_KEY });
      // €46.00 charged; the USD balance got $50.00 for it.
      fake.charges.addCharge({ id: 'ch_eur', amount: 4600, currency: 'eur', payment_intent: 'pi_eur', settled: { amount: 5000, currency: 'usd' } });
      const paid = checkoutSession(ben, 'ben@example.com', 4600, { currency: 'eur', payment_intent: 'pi_eur' });
      assert.equal((await send(s, id, event('checkout.session.completed', paid))).body.outcome, 'applied');
      assert.equal(await annEarned(s, id), 5);
      const read = fake.requests.find((r) => r.path === '/v1/payment_intents/pi_eur')!;
      assert.deepEqual([read.method, read.key, read.fields['expand[0]']], ['GET', STRIPE_KEY, 'latest_charge.balance_transaction']);
      const labels = (await s.admin.listRewardEntries(id, 'ann@example.com')).map((e) => e.label);
      assert.ok(labels.some((l) => /\(46\.00 EUR, settled by the provider: EUR -> USD\)/.test(l)), labels.join(' | '));
      // A charge Stripe does not know (or a key that may not read it): no settled amount, so it is held.
      const unknown = checkoutSession(ben, 'ben@example.com', 4600, { currency: 'eur', payment_intent: 'pi_unknown' });
      assert.equal((await send(s, id, event('checkout.session.completed', unknown))).body.outcome, 'held');
    } finally {
      await fake.stop();
    }
  });

  it("exchange rates: the account's rates convert what no provider settled; setting them applies the held events, Stripe's too, once; test keys may not", async () => {
    const s = service();
    const { id, ben } = await program(s);
    await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET });
    // Held: a Paddle transaction in EUR with no payout totals, and a Stripe checkout in JPY; and one in EUR of nobody.
    assert.equal((await paddle(s, id, transaction(ben, '4000', { currency: 'EUR' }))).body.outcome, 'held');
    assert.equal((await paddle(s, id, transaction(null, '800', { currency: 'EUR', customer: 'ctm_nobody', id: 'txn_nobody' }))).body.outcome, 'held');
    const yen = checkoutSession(ben, 'ben@example.com', 7500, { currency: 'jpy', payment_intent: 'pi_yen' });
    assert.equal((await send(s, id, event('checkout.session.completed', yen))).body.outcome, 'held');
    assert.equal(await annEarned(s, id), 0);
    assert.equal(await s.admin.getExchangeRates(), null);

    const testKey = new RefkitClient({ baseUrl: s.url, secretKey: (await s.admin.createApiKey('ci', true)).key });
    await rejects(() => testKey.setExchangeRates({ base: 'USD', rates: { EUR: 1.1 }, asOf: new Date().toISOString() }), 403, 'forbidden');
    await rejects(() => s.admin.setExchangeRates({ base: 'USD', rates: { USD: 2 }, asOf: new Date().toISOString() }), 400, 'invalid_request', 'rates.USD');
    await rejects(() => s.admin.setExchangeRates({ base: 'USD', rates: { EUR: -1 }, asOf: new Date().toISOString() }), 400, 'invalid_request');
    await rejects(() => s.admin.setExchangeRates({ base: 'USD', rates: {}, asOf: new Date().toISOString() }), 400, 'invalid_request', 'rates');
    assert.equal(await s.admin.getExchangeRates(), null, 'a refused call sets nothing');

    // 1 EUR = 1.25 USD, 1 JPY = 0.008 USD: 40.00 EUR is 50.00 USD (5 earned), ¥7,500 is 60.00 USD (6 earned).
    const set = await s.admin.setExchangeRates({ base: 'USD', rates: { EUR: 1.25, JPY: 0.008 }, asOf: '2026-12-01T00:00:00.000Z' });
    assert.deepEqual([set.base, set.rates, set.asOf, set.applied], ['USD', { EUR: 1.25, JPY: 0.008 }, '2026-12-01T00:00:00.000Z', 2]);
    assert.equal(await annEarned(s, id), 11);
    const events = await s.admin.listPaymentEvents(id);
    const paddled = events.find((e) => e.provider === 'paddle' && e.status === 'applied')!;
    assert.deepEqual([paddled.status, paddled.convertedAmount], ['applied', '50.00']);
    assert.match(paddled.rate!, /1 EUR = 1\.25 USD/);
    // The rate is kept on the payment, and the ledger says it beside the commission.
    const labels = (await s.admin.listRewardEntries(id, 'ann@example.com')).map((e) => e.label);
    assert.ok(labels.some((l) => /^Commission: 10% of payment \d \(40\.00 EUR, 1 EUR = 1\.25 USD/.test(l)), labels.join(' | '));
    assert.ok(labels.some((l) => /\(7500\.00 JPY, 1 JPY = 0\.008 USD/.test(l)), labels.join(' | '));
    assert.equal(events.find((e) => e.provider === 'stripe')!.status, 'applied');
    // Converted, the one of nobody waits to be matched by hand, and says so; matched, it is applied converted.
    const nobody = events.find((e) => e.id.startsWith('paddle:') && e.status === 'unmatched')!;
    assert.deepEqual([nobody.convertedAmount, nobody.reason], ['10.00', 'Converted by the exchange rates, but no participant of this campaign has its referral code, customer or email']);
    assert.equal((await s.admin.matchPaymentEvent(id, nobody.id, 'ben@example.com')).status, 'applied');
    assert.equal(await annEarned(s, id), 12);
    // Set again: nothing is held any more, nothing is applied twice.
    assert.equal((await s.admin.setExchangeRates({ base: 'USD', rates: { EUR: 1.25, JPY: 0.008 }, asOf: '2026-12-01T00:00:00.000Z' })).applied, 0);
    assert.equal(await annEarned(s, id), 12);
    // A new EUR payment is converted as it arrives.
    assert.equal((await paddle(s, id, transaction(ben, '2000', { currency: 'EUR' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 14);
  });
});
