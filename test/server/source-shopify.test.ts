/**
 * Shopify as a payment source, on both databases: orders/paid and refunds/create shaped as Shopify's webhook
 * reference shows them (REST Order and Refund resources, decimal strings, money sets in shop and presentment
 * currencies) and signed as it signs them (X-Shopify-Hmac-Sha256, the base64 HMAC-SHA256 of the body), posted to
 * the running service. Bad and missing signatures are 400 with nothing changed, a replay is a duplicate (under
 * another X-Shopify-Webhook-Id too), a payment qualifies and earns its commission, a refund of its successful
 * transactions reverses in proportion, a participant's code used as the discount code makes an unknown buyer
 * their referee, an unmatched order is matched by hand, and an order paid in another currency is converted with
 * its shop money (or held).
 */
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const SECRET = 'shpss_refkitTestClientSecret0123456789';
let n = 1000;

type Topic = 'orders/paid' | 'refunds/create' | 'orders/create';

/** Posts a Shopify webhook delivery with the headers Shopify sends, signed as it signs them. */
async function shopify(s: TestService, id: string, topic: Topic, body: unknown, options: { secret?: string | null; hmac?: string; webhookId?: string } = {}) {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': 'refkit-test.myshopify.com',
    'x-shopify-api-version': '2025-07',
    'x-shopify-webhook-id': options.webhookId ?? randomUUID(),
    'x-shopify-event-id': randomUUID(),
    'x-shopify-triggered-at': new Date().toISOString(),
  };
  const secret = options.secret === undefined ? SECRET : options.secret;
  if (options.hmac !== undefined) headers['x-shopify-hmac-sha256'] = options.hmac;
  else if (secret !== null) headers['x-shopify-hmac-sha256'] = createHmac('sha256', secret).update(payload).digest('base64');
  const res = await fetch(`${s.url}/api/v1/integrations/shopify/${id}`, { method: 'POST', headers, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string; error?: { code: string } } };
}

const money = (shop: string, presentment: string, shopCurrency: string, presentmentCurrency: string) => ({
  shop_money: { amount: shop, currency_code: shopCurrency },
  presentment_money: { amount: presentment, currency_code: presentmentCurrency },
});

interface OrderOptions {
  id?: number;
  email?: string | null;
  customer?: number;
  discount?: string;
  /** What the buyer paid, in their currency, when it is not the shop's. */
  presentment?: { amount: string; currency: string };
  shopCurrency?: string;
  financialStatus?: string;
}

/** An orders/paid delivery: the REST Order resource (the shop's `currency` and totals, their sets in both currencies). */
function order(code: string | null, total: string, o: OrderOptions = {}) {
  const id = o.id ?? ++n;
  const shopCurrency = o.shopCurrency ?? 'USD';
  const shown = o.presentment ?? { amount: total, currency: shopCurrency };
  const set = money(total, shown.amount, shopCurrency, shown.currency);
  const customer = o.customer ?? 7001;
  const email = o.email === undefined ? 'ben@example.com' : o.email;
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    app_id: 580111,
    confirmation_number: `RFK${id}`,
    contact_email: email,
    created_at: '2030-01-01T10:00:00-05:00',
    currency: shopCurrency,
    current_subtotal_price: total,
    current_subtotal_price_set: set,
    current_total_discounts: '0.00',
    current_total_price: total,
    current_total_price_set: set,
    current_total_tax: '0.00',
    customer_locale: 'en',
    discount_codes: o.discount ? [{ code: o.discount, amount: '0.00', type: 'percentage' }] : [],
    email,
    financial_status: o.financialStatus ?? 'paid',
    fulfillment_status: null,
    name: `#${id}`,
    note: null,
    note_attributes: code === null ? [] : [{ name: 'refkit_code', value: code }],
    number: id,
    order_number: id,
    presentment_currency: shown.currency,
    processed_at: '2030-01-01T10:00:00-05:00',
    subtotal_price: total,
    subtotal_price_set: set,
    tags: '',
    taxes_included: false,
    test: false,
    total_discounts: '0.00',
    total_price: total,
    total_price_set: set,
    total_tax: '0.00',
    updated_at: '2030-01-01T10:00:01-05:00',
    customer: {
      id: customer,
      email,
      created_at: '2029-12-01T10:00:00-05:00',
      first_name: 'Ben',
      last_name: 'Buyer',
      currency: shopCurrency,
      admin_graphql_api_id: `gid://shopify/Customer/${customer}`,
    },
    line_items: [{ id: id * 10, admin_graphql_api_id: `gid://shopify/LineItem/${id * 10}`, name: 'Refkit mug', price: total, price_set: set, quantity: 1, sku: 'MUG', taxable: true, total_discount: '0.00' }],
  };
}

interface RefundOptions {
  /** Shop money of its refunded line item, when the transactions are in another currency. */
  shop?: { amount: string; currency: string };
  /** A failed transaction besides the successful one. */
  failed?: string;
  /** Whether the refund names its line item (a refund of an amount alone names none). */
  items?: boolean;
}

/** A refunds/create delivery: the REST Refund resource, its transactions and refunded line items. */
function refund(orderId: number, amount: string, currency = 'USD', o: RefundOptions = {}) {
  const id = ++n;
  const shop = o.shop ?? { amount, currency };
  const transaction = (tid: number, value: string, status: string) => ({
    id: tid,
    order_id: orderId,
    kind: 'refund',
    gateway: 'shopify_payments',
    status,
    message: status === 'success' ? 'Transaction approved' : 'Declined',
    created_at: '2030-01-02T10:00:00-05:00',
    test: false,
    authorization: null,
    currency,
    amount: value,
    parent_id: orderId * 2,
    admin_graphql_api_id: `gid://shopify/OrderTransaction/${tid}`,
  });
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Refund/${id}`,
    order_id: orderId,
    created_at: '2030-01-02T10:00:00-05:00',
    note: 'wrong size',
    user_id: null,
    processed_at: '2030-01-02T10:00:00-05:00',
    restock: false,
    duties: [],
    refund_line_items:
      o.items === false
        ? []
        : [
            {
              id: id * 10,
              quantity: 1,
              line_item_id: orderId * 10,
              location_id: null,
              restock_type: 'no_restock',
              subtotal: Number(shop.amount),
              total_tax: 0,
              subtotal_set: money(shop.amount, amount, shop.currency, currency),
              total_tax_set: money('0.00', '0.00', shop.currency, currency),
            },
          ],
    transactions: [transaction(id * 10 + 1, amount, 'success'), ...(o.failed ? [transaction(id * 10 + 2, o.failed, 'failure')] : [])],
    order_adjustments: [],
  };
}

/** A campaign paying 10% of each payment to the referrer (USD), Ann referring Ben. */
async function program(s: TestService) {
  const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'USD', rewardType: 'credit' });
  await s.admin.updateCampaign({ id, shopifyWebhookSecret: SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const annEarned = async (s: TestService, id: string) => (await s.admin.getParticipant(id, 'ann@example.com')).referralReward;

eachDatabase('Shopify as a payment source', (service) => {
  it('bad, missing and malformed HMACs are 400 invalid_signature and change nothing; a campaign with no secret is 400 too', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
    for (const options of [{ secret: null }, { secret: 'shpss_someoneElse' }, { hmac: 'not base64 at all' }, { hmac: createHmac('sha256', SECRET).update('{}').digest('hex') }]) {
      const r = await shopify(s, id, 'orders/paid', order(ben, '50.00'), options);
      assert.deepEqual([r.status, r.body.error?.code], [400, 'invalid_signature'], JSON.stringify(options));
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    const other = await s.campaign();
    assert.equal((await shopify(s, other, 'orders/paid', order(ben, '50.00'))).status, 400);
    assert.equal((await s.admin.updateCampaign({ id })).paymentSourcesConfigured.includes('shopify'), true);
  });

  it('a paid order qualifies and earns its commission, once (under another webhook id too); a refund of its successful transactions reverses in proportion', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const paid = order(ben, '50.00', { id: 5001 });
    assert.equal((await shopify(s, id, 'orders/paid', paid, { webhookId: 'wh-1' })).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    assert.equal(await annEarned(s, id), 5);
    assert.equal((await shopify(s, id, 'orders/paid', paid, { webhookId: 'wh-1' })).body.outcome, 'duplicate');
    // X-Shopify-Webhook-Id is not signed: the same signed order under a new one is still paid once.
    assert.equal((await shopify(s, id, 'orders/paid', paid, { webhookId: 'wh-forged' })).body.outcome, 'duplicate');
    // Nor is the topic: the order posted as a refund is no refund.
    assert.equal((await shopify(s, id, 'refunds/create', paid)).body.outcome, 'ignored');
    assert.equal(await annEarned(s, id), 5);
    // A second order, named by the customer alone (the first tied it to Ben).
    assert.equal((await shopify(s, id, 'orders/paid', order(null, '30.00', { id: 5002, email: null }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 8);
    // 20.00 of the first order refunded (a failed 5.00 attempt besides): two fifths of its 5 back.
    const back = refund(5001, '20.00', 'USD', { failed: '5.00' });
    assert.equal((await shopify(s, id, 'refunds/create', back)).body.outcome, 'applied');
    assert.equal((await shopify(s, id, 'refunds/create', back)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 6);
    const [refunded] = await s.admin.listPaymentEvents(id, { provider: 'shopify' });
    assert.deepEqual([refunded!.type, refunded!.action, refunded!.amount, refunded!.participantEmail], ['refunds/create', 'refund', '20.00', 'ben@example.com']);
    // An orders/create (not paid yet) posted as orders/paid is kept and not counted.
    const unpaid = await shopify(s, id, 'orders/paid', order(ben, '80.00', { financialStatus: 'pending' }));
    assert.deepEqual([unpaid.body.outcome, unpaid.body.reason], ['ignored', 'The order is pending, not paid']);
    assert.equal(await annEarned(s, id), 6);
  });

  it("a participant's code used as the discount code makes an unknown buyer their referee and credits them, once", async () => {
    const s = service();
    const { id, ann } = await program(s);
    const paid = order(null, '50.00', { email: 'dee@example.com', customer: 7004, discount: ann });
    const first = await shopify(s, id, 'orders/paid', paid);
    assert.deepEqual([first.status, first.body.outcome], [200, 'applied']);
    const dee = await s.admin.getParticipant(id, 'dee@example.com');
    assert.deepEqual([dee.referredByCode, dee.rewardEventCompleted], [ann, true]);
    assert.equal(await annEarned(s, id), 5);
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'shopify' });
    assert.deepEqual([listed!.referrerCode, listed!.participantEmail], [ann, 'dee@example.com']);
    assert.equal((await shopify(s, id, 'orders/paid', paid)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 5);
    // Ann using her own code: a self-referral, said so.
    const own = await shopify(s, id, 'orders/paid', order(null, '50.00', { email: 'ann@example.com', customer: 7005, discount: ann }));
    assert.match(own.body.reason!, /self-referral/);
  });

  it('an order for nobody is kept unmatched and matched by hand; its refund then finds the participant', async () => {
    const s = service();
    const { id } = await program(s);
    const r = await shopify(s, id, 'orders/paid', order(null, '30.00', { id: 5101, customer: 7999, email: 'stranger@example.com' }));
    assert.equal(r.body.outcome, 'unmatched');
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'shopify', status: 'unmatched' });
    assert.deepEqual([listed!.id, listed!.type, listed!.amount, listed!.currency], ['shopify:order:5101:paid', 'orders/paid', '30.00', 'USD']);
    await rejects(() => s.admin.matchPaymentEvent(id, 'shopify:nope', 'ben@example.com'), 404, 'not_found');
    const matched = await s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal(await annEarned(s, id), 3);
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com'), 409, 'invalid_transition');
    // The refund names only the order: the order is Ben's now.
    assert.equal((await shopify(s, id, 'refunds/create', refund(5101, '30.00'))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 0);
  });

  it("an order paid in EUR is converted with its shop money in USD, its refund with its line items' shop money; without it, held with the reason", async () => {
    const s = service();
    const { id, ben } = await program(s);
    const paid = order(ben, '50.00', { id: 5201, presentment: { amount: '46.00', currency: 'EUR' } });
    assert.equal((await shopify(s, id, 'orders/paid', paid)).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 5);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'shopify' });
    assert.deepEqual([shown!.amount, shown!.currency, shown!.convertedAmount], ['46.00', 'EUR', '50.00']);
    // All of it refunded, the line item's shop money 50.00 USD: the 5 back.
    assert.equal((await shopify(s, id, 'refunds/create', refund(5201, '46.00', 'EUR', { shop: { amount: '50.00', currency: 'USD' } }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 0);
    // A shop whose own currency is GBP: nothing in USD to convert with.
    const gbp = await shopify(s, id, 'orders/paid', order(ben, '40.00', { id: 5202, shopCurrency: 'GBP', presentment: { amount: '7500', currency: 'JPY' } }));
    assert.equal(gbp.body.outcome, 'held');
    assert.match(gbp.body.reason!, /JPY.*USD/);
    const [held] = await s.admin.listPaymentEvents(id, { provider: 'shopify', status: 'held' });
    assert.deepEqual([held!.amount, held!.currency], ['7500.00', 'JPY']);
    // A EUR refund of an amount alone (no line item to tell its shop money): held too, never taken 1:1.
    const alone = await shopify(s, id, 'refunds/create', refund(5201, '12.29', 'EUR', { items: false }));
    assert.equal(alone.body.outcome, 'held');
    const [kept] = await s.admin.listPaymentEvents(id, { provider: 'shopify', status: 'held' });
    assert.deepEqual([kept!.type, kept!.amount, kept!.currency], ['refunds/create', '12.29', 'EUR']);
    assert.equal(await annEarned(s, id), 0);
  });
});
