/**
 * Lemon Squeezy as a payment source, on both databases: events shaped as Lemon Squeezy's webhook reference
 * shows them (a JSON:API order or subscription invoice, amounts in cents with their `_usd` twins, custom data
 * in `meta`) and signed as it signs them (X-Signature, the hex HMAC-SHA256 of the body), posted to the running
 * service. Bad and missing signatures are 400 with nothing changed, a replay is a duplicate, a payment
 * qualifies and earns its commission, refunds given as running totals take only what is new, an unmatched
 * event is matched by hand, and an order in another currency is converted with its total_usd (or held).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const SECRET = 'ls-refkit-test-signing-secret';
let n = 0;

interface Lemon {
  meta: { event_name: string; test_mode: boolean; custom_data?: Record<string, string> };
  data: { type: string; id: string; attributes: Record<string, unknown> };
}

/** Posts a Lemon Squeezy webhook request, signed as Lemon Squeezy signs it (X-Signature: hex HMAC-SHA256 of the body). */
async function lemon(s: TestService, id: string, body: Lemon, options: { secret?: string | null } = {}) {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-event-name': body.meta.event_name };
  const secret = options.secret === undefined ? SECRET : options.secret;
  if (secret !== null) headers['x-signature'] = createHmac('sha256', secret).update(payload).digest('hex');
  const res = await fetch(`${s.url}/api/v1/integrations/lemonsqueezy/${id}`, { method: 'POST', headers, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string; error?: { code: string } } };
}

const meta = (event: string, code: string | null) => ({ event_name: event, test_mode: false, ...(code !== null && { custom_data: { refkit_code: code } }) });

interface OrderOptions {
  id?: string;
  currency?: string;
  totalUsd?: number;
  customer?: number;
  email?: string;
  status?: string;
  refunded?: number;
  updatedAt?: string;
}

/** An order event (order_created, order_refunded) as the reference shows its Order object: integers in cents. */
function order(event: 'order_created' | 'order_refunded', code: string | null, total: number, o: OrderOptions = {}): Lemon {
  const currency = o.currency ?? 'USD';
  const usd = o.totalUsd ?? total;
  const refunded = o.refunded ?? 0;
  const at = new Date().toISOString();
  return {
    meta: meta(event, code),
    data: {
      type: 'orders',
      id: o.id ?? String(++n),
      attributes: {
        store_id: 1,
        customer_id: o.customer ?? 11,
        identifier: `636f855c-1fb9-4c07-b75c-${String(++n).padStart(12, '0')}`,
        order_number: n,
        user_name: 'Ben Buyer',
        user_email: o.email ?? 'ben@example.com',
        currency,
        currency_rate: currency === 'USD' ? '1.0000' : (usd / total).toFixed(4),
        subtotal: total,
        discount_total: 0,
        tax: 0,
        total,
        refunded_amount: refunded,
        subtotal_usd: usd,
        discount_total_usd: 0,
        tax_usd: 0,
        total_usd: usd,
        refunded_amount_usd: Math.round((refunded * usd) / total),
        tax_name: null,
        tax_rate: '0.00',
        status: o.status ?? (refunded === 0 ? 'paid' : refunded < total ? 'partial_refund' : 'refunded'),
        status_formatted: 'Paid',
        refunded: refunded >= total,
        refunded_at: refunded === 0 ? null : at,
        created_at: at,
        updated_at: o.updatedAt ?? at,
        test_mode: false,
      },
    },
  };
}

/** A subscription_payment_success event: its Subscription Invoice object. */
function invoice(total: number, billingReason: 'initial' | 'renewal', o: { customer?: number; id?: string } = {}): Lemon {
  const at = new Date().toISOString();
  return {
    meta: meta('subscription_payment_success', null),
    data: {
      type: 'subscription-invoices',
      id: o.id ?? String(++n),
      attributes: {
        store_id: 1,
        subscription_id: 7,
        customer_id: o.customer ?? 11,
        user_name: 'Ben Buyer',
        user_email: 'ben@example.com',
        billing_reason: billingReason,
        card_brand: 'visa',
        card_last_four: '4242',
        currency: 'USD',
        currency_rate: '1.00000000',
        status: 'paid',
        status_formatted: 'Paid',
        refunded: false,
        refunded_at: null,
        subtotal: total,
        discount_total: 0,
        tax: 0,
        total,
        subtotal_usd: total,
        discount_total_usd: 0,
        tax_usd: 0,
        total_usd: total,
        created_at: at,
        updated_at: at,
        test_mode: false,
      },
    },
  };
}

/** A campaign paying 10% of each payment to the referrer, Ann referring Ben. */
async function program(s: TestService, rewardCurrency = 'USD') {
  const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency, rewardType: 'credit' });
  await s.admin.updateCampaign({ id, lemonSqueezyWebhookSecret: SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const annEarned = async (s: TestService, id: string) => (await s.admin.getParticipant(id, 'ann@example.com')).referralReward;

eachDatabase('Lemon Squeezy as a payment source', (service) => {
  it('bad and missing signatures are 400 invalid_signature and change nothing; a campaign with no secret is 400 too', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
    for (const options of [{ secret: null }, { secret: 'someone-elses-secret' }]) {
      const r = await lemon(s, id, order('order_created', ben, 5000), options);
      assert.deepEqual([r.status, r.body.error?.code], [400, 'invalid_signature'], JSON.stringify(options));
    }
    // Signed, then changed on the way: the signature is over the bytes.
    const body = order('order_created', ben, 5000);
    const signature = createHmac('sha256', SECRET).update(JSON.stringify(body)).digest('hex');
    const tampered = await fetch(`${s.url}/api/v1/integrations/lemonsqueezy/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': signature },
      body: JSON.stringify({ ...body, data: { ...body.data, attributes: { ...body.data.attributes, total: 500000 } } }),
    });
    assert.deepEqual([tampered.status, ((await tampered.json()) as { error: { code: string } }).error.code], [400, 'invalid_signature']);
    assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    const other = await s.campaign();
    assert.equal((await lemon(s, other, order('order_created', ben, 5000))).status, 400);
    assert.equal((await s.admin.updateCampaign({ id })).paymentSourcesConfigured.includes('lemonsqueezy'), true);
  });

  it('a paid order qualifies and earns its commission, once; a renewal invoice earns again, the initial one is its order', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const paid = order('order_created', ben, 5000, { id: '101' });
    assert.equal((await lemon(s, id, paid)).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    assert.equal(await annEarned(s, id), 5);
    assert.equal((await lemon(s, id, paid)).body.outcome, 'duplicate');
    // The same order sent again later (its updated_at changed): still paid once.
    assert.equal((await lemon(s, id, order('order_created', ben, 5000, { id: '101', updatedAt: '2030-01-01T00:00:00.000000Z' }))).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 5);
    // The subscription's first invoice is the order above: not counted again. A renewal is, by the customer the order tied to Ben.
    assert.equal((await lemon(s, id, invoice(5000, 'initial'))).body.outcome, 'ignored');
    assert.equal((await lemon(s, id, invoice(3000, 'renewal', { id: '101' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 8);
    // A pending order is kept, not counted.
    const pending = await lemon(s, id, order('order_created', ben, 5000, { status: 'pending' }));
    assert.deepEqual([pending.body.outcome, pending.body.reason], ['ignored', 'The order is pending, not paid']);
    assert.equal(await annEarned(s, id), 8);
  });

  it('order_refunded carries the running total: each event takes only what is new, in proportion', async () => {
    const s = service();
    const { id, ben } = await program(s);
    assert.equal((await lemon(s, id, order('order_created', ben, 5000, { id: '201' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 5);
    // 10.00 of 50.00 refunded: a fifth of the 5 back.
    const first = order('order_refunded', ben, 5000, { id: '201', refunded: 1000, updatedAt: '2030-01-01T00:00:00.000000Z' });
    assert.equal((await lemon(s, id, first)).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 4);
    assert.equal((await lemon(s, id, first)).body.outcome, 'duplicate');
    // Then 30.00 in all: the 20.00 not taken yet (two fifths), nothing of the first 10.00 again.
    assert.equal((await lemon(s, id, order('order_refunded', null, 5000, { id: '201', refunded: 3000, updatedAt: '2030-01-02T00:00:00.000000Z' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 2);
    // The same total told again (another updated_at): nothing more.
    const again = await lemon(s, id, order('order_refunded', null, 5000, { id: '201', refunded: 3000, updatedAt: '2030-01-03T00:00:00.000000Z' }));
    assert.deepEqual([again.body.outcome, again.body.reason], ['ignored', 'Nothing more was refunded of this payment']);
    assert.equal(await annEarned(s, id), 2);
  });

  it('an order for nobody is kept unmatched and matched by hand; its refund then finds the participant', async () => {
    const s = service();
    const { id } = await program(s);
    const r = await lemon(s, id, order('order_created', null, 3000, { id: '301', customer: 99, email: 'stranger@example.com' }));
    assert.equal(r.body.outcome, 'unmatched');
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'lemonsqueezy', status: 'unmatched' });
    assert.deepEqual([listed!.id, listed!.type, listed!.amount, listed!.currency, listed!.email], ['lemonsqueezy:order_created:301', 'order_created', '30.00', 'USD', 'stranger@example.com']);
    await rejects(() => s.admin.matchPaymentEvent(id, 'lemonsqueezy:nope', 'ben@example.com'), 404, 'not_found');
    const matched = await s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal(await annEarned(s, id), 3);
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com'), 409, 'invalid_transition');
    // The order is Ben's from now on: its refund (all of it) takes the 3 back.
    assert.equal((await lemon(s, id, order('order_refunded', null, 3000, { id: '301', customer: 99, email: 'stranger@example.com', refunded: 3000 }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 0);
  });

  it('a EUR order is converted with its total_usd for a campaign in USD; for one in EUR a GBP order is held with the reason', async () => {
    const s = service();
    const { id, ben } = await program(s);
    assert.equal((await lemon(s, id, order('order_created', ben, 4600, { currency: 'EUR', totalUsd: 5000, id: '401' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 5);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'lemonsqueezy' });
    assert.deepEqual([shown!.amount, shown!.currency, shown!.convertedAmount], ['46.00', 'EUR', '50.00']);
    // Its refund converts the same way (refunded_amount_usd: 18.40 EUR came to 20.00 USD): two fifths of the 5 back.
    assert.equal((await lemon(s, id, order('order_refunded', ben, 4600, { currency: 'EUR', totalUsd: 5000, id: '401', refunded: 1840 }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 3);

    const eur = await program(s, 'EUR');
    const held = await lemon(s, eur.id, order('order_created', eur.ben, 4000, { currency: 'GBP', totalUsd: 5000 }));
    assert.equal(held.body.outcome, 'held');
    assert.match(held.body.reason!, /GBP.*EUR/);
    assert.equal(await annEarned(s, eur.id), 0);
    const [kept] = await s.admin.listPaymentEvents(eur.id, { provider: 'lemonsqueezy', status: 'held' });
    assert.deepEqual([kept!.amount, kept!.currency], ['40.00', 'GBP']);
  });
});
