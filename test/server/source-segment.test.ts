/**
 * Segment as a payment source, on both databases: track calls of the V2 Ecommerce spec (Order Completed,
 * Order Refunded) with Segment's common fields, signed as the Webhooks destination signs them (X-Signature:
 * hex HMAC-SHA1 of the body with the shared secret). Bad and missing signatures are 400 with nothing
 * changed, a replay is a duplicate, a payment qualifies and earns its commission, a refund reverses in
 * proportion, an unmatched event is matched by hand, a foreign-currency order is held with its reason, and
 * a coupon that is a participant's code makes an unknown buyer their referee and credits them.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { decimalHundredths } from '../../src/server/billing/domain/segment-source.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const SECRET = 'segment-shared-secret-0123456789';
let n = 0;

/** Posts a Segment message as the Webhooks destination does: X-Signature is the hex HMAC-SHA1 of the body. */
async function segment(s: TestService, id: string, body: unknown, options: { secret?: string | null; signature?: string } = {}) {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Segment.io/1.0' };
  const secret = options.secret === undefined ? SECRET : options.secret;
  if (options.signature !== undefined) headers['x-signature'] = options.signature;
  else if (secret !== null) headers['x-signature'] = createHmac('sha1', secret).update(payload).digest('hex');
  const res = await fetch(`${s.url}/api/v1/integrations/segment/${id}`, { method: 'POST', headers, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string; reason?: string; error?: { code: string } } };
}

/** A track call with Segment's common fields (messageId, context with the user's traits, timestamps). */
function track(event: string, properties: Record<string, unknown>, who: { userId?: string | null; email?: string | null } = {}) {
  const now = new Date().toISOString();
  return {
    anonymousId: `anon-${++n}`,
    context: {
      library: { name: 'analytics-node', version: '6.0.0' },
      ...(who.email !== null && { traits: { email: who.email ?? 'ben@example.com' } }),
    },
    event,
    integrations: {},
    messageId: `api-${n}${Date.now()}`,
    properties,
    receivedAt: now,
    sentAt: now,
    timestamp: now,
    originalTimestamp: now,
    type: 'track',
    ...(who.userId !== null && { userId: who.userId ?? 'user_ben' }),
    version: 2,
  };
}

/** Order Completed as the spec's example shows it. */
function completed(total: number | string | undefined, extra: Record<string, unknown> = {}, who?: { userId?: string | null; email?: string | null }) {
  return track(
    'Order Completed',
    {
      checkout_id: `chk_${++n}`,
      order_id: `order_${n}${Date.now()}`,
      affiliation: 'Refkit Store',
      ...(total !== undefined && { total }),
      revenue: typeof total === 'number' ? total : 25,
      shipping: 3,
      tax: 2,
      discount: 2.5,
      currency: 'USD',
      products: [{ product_id: '507f1f77bcf86cd799439011', sku: '45790-32', name: 'Monopoly: 3rd Edition', price: 19, quantity: 1, category: 'Games' }],
      ...extra,
    },
    who,
  );
}

const refundedOrder = (orderId: string, total: number | undefined, who?: { userId?: string | null; email?: string | null }) =>
  track('Order Refunded', { order_id: orderId, ...(total !== undefined && { total }), currency: 'USD', products: [{ product_id: '507f1f77bcf86cd799439011', price: 19, quantity: 1 }] }, who);

/** A campaign paying 10% of each payment to the referrer (USD), Ann referring Ben. */
async function program(s: TestService) {
  const id = await s.campaign({ referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'USD', rewardType: 'credit' });
  await s.admin.updateCampaign({ id, segmentSharedSecret: SECRET });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const annEarned = async (s: TestService, id: string) => (await s.admin.getParticipant(id, 'ann@example.com')).referralReward;

describe('Segment amounts', () => {
  it('are rounded to hundredths on their decimal digits, with no float drift', () => {
    assert.equal(decimalHundredths(27.5), 2750);
    assert.equal(decimalHundredths(19.99), 1999);
    assert.equal(decimalHundredths(1.005), 101, '1.005 * 100 is 100.49999... in floating point');
    assert.equal(decimalHundredths(0.1 + 0.2), 30);
    assert.equal(decimalHundredths(33.335), 3334);
    assert.equal(decimalHundredths('39.95'), 3995);
    assert.equal(decimalHundredths(' 12 '), 1200);
    assert.equal(decimalHundredths(1e-7), 0);
    assert.equal(decimalHundredths(0), 0);
    for (const bad of [-1, '-1', 'abc', '1,5', '', Infinity, NaN, 1e21, null, undefined, {}, '1e3']) assert.equal(decimalHundredths(bad), undefined, String(bad));
  });
});

eachDatabase('Segment as a payment source', (service) => {
  it('bad and missing signatures are 400 invalid_signature and change nothing; no secret is 400 too', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
    const body = completed(50, { refkit_code: ben });
    const sha256 = createHmac('sha256', SECRET).update(JSON.stringify(body)).digest('hex');
    const otherBody = createHmac('sha1', SECRET).update(JSON.stringify({ ...body, messageId: 'else' })).digest('hex');
    for (const options of [{ secret: null }, { secret: 'someone-else' }, { signature: '' }, { signature: 'not-hex' }, { signature: sha256 }, { signature: otherBody }]) {
      const r = await segment(s, id, body, options);
      assert.deepEqual([r.status, r.body.error?.code], [400, 'invalid_signature'], JSON.stringify(options));
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    const other = await s.campaign();
    assert.equal((await segment(s, other, body)).status, 400);
    assert.equal((await s.admin.updateCampaign({ id })).paymentSourcesConfigured.includes('segment'), true);
    // The signature's hex in capitals verifies too.
    const upper = createHmac('sha1', SECRET).update(JSON.stringify(body)).digest('hex').toUpperCase();
    assert.equal((await segment(s, id, body, { signature: upper })).body.outcome, 'applied');
  });

  it('Order Completed qualifies and earns its commission, once; revenue stands in for a missing total; USD when no currency is given', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const first = completed(50, { refkit_code: ben });
    assert.equal((await segment(s, id, first)).body.outcome, 'applied');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).rewardEventCompleted, true);
    assert.equal(await annEarned(s, id), 5);
    assert.equal((await segment(s, id, first)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 5);
    // No total: its revenue (a string, as Segment's webhook example sends it); no currency: US dollars. Ben's userId names him.
    const second = completed(undefined, { revenue: '30.00' }, { email: null });
    delete (second.properties as { currency?: string }).currency;
    assert.equal((await segment(s, id, second)).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 8);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'segment' });
    assert.deepEqual([shown!.type, shown!.action, shown!.amount, shown!.currency, shown!.participantEmail], ['Order Completed', 'payment', '30.00', 'USD', 'ben@example.com']);
    // Other calls and events are not kept.
    assert.equal((await segment(s, id, track('Product Viewed', { product_id: 'p1', price: 19 }))).body.outcome, 'ignored');
    assert.equal((await segment(s, id, { ...track('Order Completed', { total: 10 }), type: 'identify' })).body.outcome, 'ignored');
    assert.equal((await s.admin.listPaymentEvents(id, { provider: 'segment' })).length, 2);
    // An order of no amount is kept ignored, with why.
    const none = completed(undefined, { revenue: undefined });
    const r = await segment(s, id, none);
    assert.deepEqual([r.body.outcome, /neither properties\.total nor properties\.revenue/.test(r.body.reason ?? '')], ['ignored', true]);
  });

  it('Order Refunded reverses its total in proportion, by its order_id, once; one with no total is ignored with why', async () => {
    const s = service();
    const { id, ben } = await program(s);
    await segment(s, id, completed(50, { refkit_code: ben, order_id: 'order_ben1' }));
    // A second order named only by its code: no userId, no email.
    await segment(s, id, completed(50, { refkit_code: ben, order_id: 'order_ben2' }, { userId: null, email: null }));
    assert.equal(await annEarned(s, id), 10);
    const refund = refundedOrder('order_ben2', 20, { userId: null, email: null });
    assert.equal((await segment(s, id, refund)).body.outcome, 'applied');
    assert.equal((await segment(s, id, refund)).body.outcome, 'duplicate');
    assert.equal(await annEarned(s, id), 8, 'a fifth of the second order refunded: a fifth of its 5 back');
    const unknown = await segment(s, id, refundedOrder('order_ben1', undefined));
    assert.equal(unknown.body.outcome, 'ignored');
    assert.match(unknown.body.reason!, /no properties\.total/);
    assert.equal(await annEarned(s, id), 8);
    const ignored = await s.admin.listPaymentEvents(id, { provider: 'segment', status: 'ignored' });
    assert.deepEqual(
      ignored.map((e) => [e.type, e.action]),
      [['Order Refunded', 'refund']],
    );
  });

  it('an event for nobody is kept unmatched and matched by hand; its userId is the participant after', async () => {
    const s = service();
    const { id } = await program(s);
    const r = await segment(s, id, completed(30, {}, { userId: 'user_stranger', email: 'stranger@example.com' }));
    assert.equal(r.body.outcome, 'unmatched');
    const [listed] = await s.admin.listPaymentEvents(id, { provider: 'segment', status: 'unmatched' });
    assert.deepEqual([listed!.provider, listed!.type, listed!.amount, listed!.currency, listed!.email], ['segment', 'Order Completed', '30.00', 'USD', 'stranger@example.com']);
    await rejects(() => s.admin.matchPaymentEvent(id, 'segment:nope', 'ben@example.com'), 404, 'not_found');
    await rejects(() => s.admin.matchPaymentEvent(id, listed!.id, 'nobody@example.com'), 404, 'participant_not_found');
    const matched = await s.admin.matchPaymentEvent(id, listed!.id, 'ben@example.com');
    assert.deepEqual([matched.status, matched.participantEmail], ['applied', 'ben@example.com']);
    assert.equal(await annEarned(s, id), 3);
    assert.equal((await segment(s, id, completed(10, {}, { userId: 'user_stranger', email: null }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 4);
  });

  it('an order in another currency is held with its reason: Segment gives no settled amount', async () => {
    const s = service();
    const { id, ben } = await program(s);
    const held = await segment(s, id, completed(46, { refkit_code: ben, currency: 'EUR' }));
    assert.equal(held.body.outcome, 'held');
    assert.match(held.body.reason!, /EUR.*USD/);
    assert.equal(await annEarned(s, id), 0);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'segment' });
    assert.deepEqual([shown!.status, shown!.amount, shown!.currency, shown!.convertedAmount], ['held', '46.00', 'EUR', undefined]);
  });

  it("a coupon that is a participant's code makes an unknown buyer their referee and credits them", async () => {
    const s = service();
    const { id, ann } = await program(s);
    const r = await segment(s, id, completed(40, { coupon: ann.toLowerCase() }, { userId: 'user_cara', email: 'cara@example.com' }));
    assert.equal(r.body.outcome, 'applied');
    const cara = await s.admin.getParticipant(id, 'cara@example.com');
    assert.deepEqual([cara.referredByCode, cara.rewardEventCompleted], [ann, true]);
    assert.equal(await annEarned(s, id), 4);
    const [shown] = await s.admin.listPaymentEvents(id, { provider: 'segment' });
    assert.deepEqual([shown!.referrerCode, shown!.participantEmail], [ann.toLowerCase(), 'cara@example.com']);
    // Her next order names her by her userId; a coupon no participant owns changes nothing.
    assert.equal((await segment(s, id, completed(10, { coupon: 'SUMMER10' }, { userId: 'user_cara', email: null }))).body.outcome, 'applied');
    assert.equal(await annEarned(s, id), 5);
    // Ann using her own code is no referral.
    const own = await segment(s, id, completed(20, { coupon: ann }, { userId: 'user_ann', email: 'ann@example.com' }));
    assert.match(own.body.reason ?? '', /self-referral/);
    assert.equal(await annEarned(s, id), 5);
  });
});
