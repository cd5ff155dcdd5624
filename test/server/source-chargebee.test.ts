/**
 * Chargebee as a payment source, on both databases: events shaped as Chargebee's v2 webhook reference shows
 * them (an event with its content's transaction, customer and subscription), sent with basic
 * authentication as Chargebee sends them. Bad and missing credentials are 400 with nothing changed, a
 * replay is a duplicate, a payment qualifies and earns its commission (the participant named by the
 * custom data Chargebee carries), a refund reverses in proportion, an unmatched event is matched by hand,
 * and a foreign-currency payment is held with its reason.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const AUTH = 'refkit-hooks:cb-Passw0rd:with-colon';
let n = 0;

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;

/** Posts a Chargebee event as Chargebee's webhook does (basic authentication with the webhook's username and password). */
async function chargebee(s: TestService, id: string, body: unknown, authorization: string | null = basic(AUTH)) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers.authorization = authorization;
  const res = await fetch(`${s.url}/api/v1/integrations/chargebee/${id}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string; error?: { code: string } } };
}

interface Who {
  /** Where the participant's own code is carried: the customer's meta_data, the subscription's, or a custom field. */
  code?: { in: 'customer' | 'subscription' | 'cf'; value: string };
  customer?: string;
  email?: string | null;
}

function customerOf(who: Who) {
  return {
    id: who.customer ?? 'cb_ben',
    ...(who.email !== null && { email: who.email ?? 'ben@example.com' }),
    first_name: 'Ben',
    auto_collection: 'on',
    net_term_days: 0,
    allow_direct_debit: false,
    created_at: Math.floor(Date.now() / 1000),
    taxability: 'taxable',
    deleted: false,
    object: 'customer',
    card_status: 'valid',
    promotional_credits: 0,
    refundable_credits: 0,
    excess_payments: 0,
    unbilled_charges: 0,
    preferred_currency_code: 'USD',
    ...(who.code?.in === 'customer' && { meta_data: { refkit_code: who.code.value } }),
    ...(who.code?.in === 'cf' && { cf_refkit_code: who.code.value }),
  };
}

/** The event envelope of Chargebee's reference (api_version v2). */
function event<Content>(eventType: string, content: Content) {
  return {
    id: `ev_${++n}${Date.now()}`,
    occurred_at: Math.floor(Date.now() / 1000),
    source: 'scheduled_job',
    object: 'event',
    api_version: 'v2',
    content,
    event_type: eventType,
    webhook_status: 'scheduled',
  };
}

/** payment_succeeded: the transaction (amount in the currency's smallest unit), its invoice, customer and subscription. */
function paid(amount: number, who: Who = {}, options: { currency?: string; txn?: string } = {}) {
  const currency = options.currency ?? 'USD';
  const txn = options.txn ?? `txn_${++n}${Date.now()}`;
  const customer = who.customer ?? 'cb_ben';
  return event('payment_succeeded', {
    transaction: {
      id: txn,
      customer_id: customer,
      subscription_id: `sub_${customer}`,
      gateway_account_id: 'gw_test',
      payment_source_id: 'pm_test',
      payment_method: 'card',
      gateway: 'chargebee',
      type: 'payment',
      date: Math.floor(Date.now() / 1000),
      exchange_rate: currency === 'USD' ? 1 : 1.08,
      amount,
      id_at_gateway: `cb_ch_${n}`,
      status: 'success',
      updated_at: Math.floor(Date.now() / 1000),
      resource_version: Date.now(),
      deleted: false,
      object: 'transaction',
      masked_card_number: '************1111',
      currency_code: currency,
      base_currency_code: 'USD',
      amount_unused: 0,
      linked_invoices: [{ invoice_id: `inv_${n}`, applied_amount: amount, applied_at: Math.floor(Date.now() / 1000), invoice_total: amount, invoice_status: 'paid' }],
      linked_credit_notes: [],
      linked_refunds: [],
      linked_payments: [],
    },
    invoice: { id: `inv_${n}`, customer_id: customer, subscription_id: `sub_${customer}`, status: 'paid', total: amount, amount_paid: amount, currency_code: currency, object: 'invoice' },
    customer: customerOf(who),
    subscription: {
      id: `sub_${customer}`,
      customer_id: customer,
      status: 'active',
      currency_code: currency,
      object: 'subscription',
      ...(who.code?.in === 'subscription' && { meta_data: { refkit_code: who.code.value } }),
    },
  });
}

/** payment_refunded: the refund transaction, naming the payment it refunds (refunded_txn_id) when given. */
function refunded(amount: number, payment: string | null, who: Who = {}) {
  const customer = who.customer ?? 'cb_ben';
  return event('payment_refunded', {
    transaction: {
      id: `txn_refund_${++n}${Date.now()}`,
      customer_id: customer,
      subscription_id: `sub_${customer}`,
      payment_method: 'card',
      gateway: 'chargebee',
      type: 'refund',
      date: Math.floor(Date.now() / 1000),
      exchange_rate: 1,
      amount,
      status: 'success',
      deleted: false,
      object: 'transaction',
      currency_code: 'USD',
      base_currency_code: 'USD',
      ...(payment !== null && { refunded_txn_id: payment }),
      linked_credit_notes: [{ cn_id: `cn_${n}`, applied_amount: amount, cn_reason_code: 'product_unsatisfactory', cn_total: amount, cn_status: 'refunded' }],
    },
    credit_note: { id: `cn_${n}`, customer_id: customer, type: 'refundable', reason_code: 'product_unsatisfactory', status: 'refunded', total: amount, amount_refunded: amount, currency_code: 'USD', object: 'credit_note' },
    customer: customerOf(who),
    subscription: { id: `sub_${customer}`, customer_id: customer, status: 'active', currency_code: 'USD', object: 'subscription' },
  });
}

/** A campaign paying 10% of each payment to the referrer (USD), Ann referring Ben. */
async function program(s: TestService) {
  const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'USD', rewardType: 'credit' });
  await s.admin.updateCampaign({ id, chargebeeWebhookAuth: AUTH });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const annEarned = async (s: TestService, id: string) => (await s.admin.getParticipant(id, 'ann@example.com')).referralReward;

eachDatabase('Chargebee as a payment source', (service) => {
  it('bad and missing credentials are 400 invalid_signature and change nothing; no secret is 400 too', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
    const [user, password] = [AUTH.slice(0, AUTH.indexOf(':')), AUTH.slice(AUTH.indexOf(':') + 1)];
    for (const authorization of [null, '', basic(`${user}:wrong`), basic(`someone:${password}`), basic(user), `Bearer ${Buffer.from(AUTH).toString('base64')}`, 'Basic !!!', basic(`${AUTH} `)]) {
      const r = await chargebee(s, id, paid(5000, { code: { in: 'customer', value: ben } }), authorization);
      assert.deepEqual([r.status, r.body.error?.code], [400, 'invalid_signature'], String(authorization));
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    const other = await s.campaign();
    assert.equal((await chargebee(s, other, paid(5000))).status, 400);
    assert.equal((await s.admin.updateCampaign({ id })).paymentSourcesConfigured.includes('chargebee'), true);
    // The scheme's name is case-insensitive (RFC 7617).
    assert.equal((await chargebee(s, id, paid(5000, { code: { in: 'customer', value: ben } }), `basic ${Buffer.from(AUTH).toString('base64')}`)).body.outcome, 'applied');
  });

  it('a payment qualifies and earns its commission, once; the code is read from the customer, the subscription or a custom field', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const first = paid(5000, { code: { in: 'customer', value: ben }, customer: 'cb_1', email: null });
    assert.equal((await chargebee(s, id, first)).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    assert.equal(await annEarned(s, id), 5);
    assert.equal((await chargebee(s, id, first)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 5);
    // Customers of no email and no earlier event: only the code names Ben.
    assert.equal((await chargebee(s, id, paid(2000, { code: { in: 'subscription', value: ben }, customer: 'cb_2', email: null }))).body.outcome, 'applied');
    assert.equal((await chargebee(s, id, paid(3000, { code: { in: 'cf', value: ben }, customer: 'cb_3', email: null }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 10);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'chargebee' });
    assert.deepEqual([shown!.type, shown!.action, shown!.amount, shown!.currency, shown!.code, shown!.participantEmail], ['payment_succeeded', 'payment', '30.00', 'USD', ben, 'ben@example.com']);
    // A zero-decimal currency's amount is in whole units (JPY 500 is 500 yen): hundredths of it, 50000.
    const other = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'JPY', rewardType: 'credit' });
    await s.admin.updateCampaign({ id: other, chargebeeWebhookAuth: AUTH });
    await chargebee(s, other, paid(500, { customer: 'cb_yen', email: 'yen@example.com' }, { currency: 'JPY' }));
    const [yen] = await s.admin.listPaymentEvents(other, { provider: 'chargebee' });
    assert.deepEqual([yen!.amount, yen!.currency, yen!.status], ['500.00', 'JPY', 'unmatched']);
  });

  it('a refund reverses in proportion, by the payment it names, once; one naming no payment goes by its customer', async () => {
    const s = service();
    const { id, ben } = await program(s);
    await chargebee(s, id, paid(5000, { code: { in: 'customer', value: ben } }, { txn: 'txn_ben1' }));
    // The second payment's customer is no one Refkit knows, and no email: its code alone names Ben.
    await chargebee(s, id, paid(5000, { code: { in: 'customer', value: ben }, customer: 'cb_ben_other', email: null }, { txn: 'txn_ben2' }));
    assert.equal(await annEarned(s, id), 10);
    // The refund names only the payment it refunds.
    const refund = refunded(2000, 'txn_ben2', { customer: 'cb_unknown', email: null });
    assert.equal((await chargebee(s, id, refund)).body.outcome, 'applied');
    assert.equal((await chargebee(s, id, refund)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 8, 'a fifth of the second payment refunded: a fifth of its 5 back');
    // No payment named: Ben's customer (tied to him by the first payment) decides.
    assert.equal((await chargebee(s, id, refunded(5000, null))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 3);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'chargebee' });
    assert.deepEqual([shown!.type, shown!.action, shown!.amount, shown!.participantEmail], ['payment_refunded', 'refund', '50.00', 'ben@example.com']);
  });

  it('an event for nobody is kept unmatched and matched by hand; its customer is the participant after', async () => {
    const s = service();
    const { id } = await program(s);
    const r = await chargebee(s, id, paid(3000, { customer: 'cb_stranger', email: 'stranger@example.com' }));
    assert.equal(r.body.outcome, 'unmatched');
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'chargebee', status: 'unmatched' });
    assert.deepEqual([listed!.provider, listed!.type, listed!.amount, listed!.currency, listed!.email], ['chargebee', 'payment_succeeded', '30.00', 'USD', 'stranger@example.com']);
    assert.match(listed!.id, /^chargebee:ev_/);
    await rejects(() => s.admin.matchPaymentEvent(id, 'chargebee:ev_nope', 'ben@example.com'), 404, 'not_found');
    const matched = await s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal(await annEarned(s, id), 3);
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com'), 409, 'invalid_transition');
    assert.equal((await chargebee(s, id, paid(1000, { customer: 'cb_stranger', email: 'stranger@example.com' }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 4);
  });

  it('a payment in another currency is held with its reason (Chargebee gives a reporting rate, not a settled amount); other event types are ignored', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const held = await chargebee(s, id, paid(4600, { code: { in: 'customer', value: ben } }, { currency: 'EUR' }));
    assert.equal(held.body.outcome, 'held');
    assert.match(held.body.reason!, /EUR.*USD/);
    assert.equal(await annEarned(s, id), 0);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'chargebee' });
    assert.deepEqual([shown!.status, shown!.amount, shown!.currency, shown!.convertedAmount], ['held', '46.00', 'EUR', undefined]);
    assert.equal((await chargebee(s, id, event('subscription_created', { customer: customerOf({}) }))).body.outcome, 'ignored');
    assert.equal((await s.admin.listPaymentEvents(id, { provider: 'chargebee' })).length, 1);
    // A payment whose transaction Chargebee would never send: kept ignored, with why.
    const odd = paid(10, { code: { in: 'customer', value: ben } });
    odd.content.transaction.amount = 12.5;
    const r = await chargebee(s, id, odd);
    assert.equal(r.body.outcome, 'ignored');
    assert.match(r.body.reason!, /content\.transaction/);
  });
});
