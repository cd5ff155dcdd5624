/**
 * The local stand-in for Stripe's coupons, promotion codes and invoices (./helpers/fake-stripe-promotions.ts,
 * routed by ./helpers/fake-stripe.ts), driven through the official `stripe` package as the service drives it:
 * what it answers, what it refuses (in Stripe's words), idempotent replays and injected failures. No database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { FakeStripe } from './helpers/fake-stripe.js';

const KEY = 'rk_test_refkitPromotions0123456789';

let fake: FakeStripe;
let stripe: Stripe;
before(async () => {
  fake = await new FakeStripe().allowKey(KEY).addCustomer('cus_ann').addCustomer('cus_ben').start();
  stripe = new Stripe(KEY, { host: '127.0.0.1', port: fake.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
});
after(() => fake.stop());

/** The Stripe error a call threw (it must throw one). */
async function refusal(call: () => Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await call();
  } catch (err) {
    assert.ok(err instanceof Stripe.errors.StripeError, String(err));
    return err;
  }
  assert.fail('expected the call to throw');
}

const percentCoupon = (percent_off = 20) => stripe.coupons.create({ percent_off, duration: 'once' });
const promotionCode = (coupon: string, params: Partial<Stripe.PromotionCodeCreateParams> = {}) =>
  stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon }, ...params });

describe('the fake Stripe: coupons, promotion codes, invoices', () => {
  it('coupons: percent_off or amount_off, repeating with its months, rendered as Stripe documents; GET answers them', async () => {
    const percent = await stripe.coupons.create({ percent_off: 25.5, duration: 'repeating', duration_in_months: 3, name: 'Spring referrals', metadata: { refkit_campaign: 'cmp_1' } });
    assert.deepEqual(
      [percent.object, percent.percent_off, percent.amount_off, percent.currency, percent.duration, percent.duration_in_months, percent.name, percent.valid, percent.metadata],
      ['coupon', 25.5, null, null, 'repeating', 3, 'Spring referrals', true, { refkit_campaign: 'cmp_1' }],
    );
    const amount = await stripe.coupons.create({ id: 'REFKIT-5-OFF', amount_off: 500, currency: 'usd', duration: 'forever', max_redemptions: 1 });
    assert.deepEqual(
      [amount.id, amount.percent_off, amount.amount_off, amount.currency, amount.duration, amount.duration_in_months, amount.max_redemptions, amount.redeem_by, amount.times_redeemed],
      ['REFKIT-5-OFF', null, 500, 'usd', 'forever', null, 1, null, 0],
    );
    assert.equal((await stripe.coupons.create({ percent_off: 10 })).duration, 'once', 'duration defaults to once');
    assert.deepEqual(fake.requests.at(-1)!.fields, { percent_off: '10' });
    assert.deepEqual({ ...(await stripe.coupons.retrieve(percent.id)) }, { ...percent });
    assert.equal((await stripe.coupons.retrieve('REFKIT-5-OFF')).amount_off, 500);
    assert.equal(fake.requests.at(-1)!.method, 'GET');
    assert.equal(fake.coupons.get('REFKIT-5-OFF')!.amount_off, 500);
    const missing = await refusal(() => stripe.coupons.retrieve('nope'));
    assert.deepEqual([missing.statusCode, missing.code, missing.message], [404, 'resource_missing', "No such coupon: 'nope'"]);
  });

  it("coupons: the combinations Stripe refuses, each a 400 naming its param; an existing id is resource_already_exists", async () => {
    await stripe.coupons.create({ id: 'TAKEN', percent_off: 5, duration: 'once' });
    const cases: [Stripe.CouponCreateParams, string, string | undefined][] = [
      [{ amount_off: 500, currency: 'usd', percent_off: 10 }, 'percent_off', undefined],
      [{ duration: 'once' }, 'amount_off', 'parameter_missing'],
      [{ amount_off: 500 }, 'currency', 'parameter_missing'],
      [{ amount_off: 0, currency: 'usd' }, 'amount_off', undefined],
      [{ amount_off: 2.5, currency: 'usd' }, 'amount_off', undefined],
      [{ percent_off: 0 }, 'percent_off', undefined],
      [{ percent_off: 100.5 }, 'percent_off', undefined],
      [{ percent_off: 12.345 }, 'percent_off', undefined],
      [{ percent_off: 10, duration: 'weekly' }, 'duration', undefined],
      [{ percent_off: 10, duration: 'repeating' }, 'duration_in_months', 'parameter_missing'],
      [{ percent_off: 10, duration: 'forever', duration_in_months: 3 }, 'duration_in_months', undefined],
      [{ percent_off: 10, duration: 'once', duration_in_months: 3 }, 'duration_in_months', undefined],
      [{ percent_off: 10, name: 'x'.repeat(41) }, 'name', undefined],
      [{ percent_off: 10, redeem_by: 1_000_000 }, 'redeem_by', undefined],
      [{ percent_off: 10, extra: 'yes' } as Stripe.CouponCreateParams, 'extra', 'parameter_unknown'],
      [{ id: 'TAKEN', percent_off: 5 }, 'id', 'resource_already_exists'],
    ];
    const count = fake.coupons.size;
    for (const [params, param, code] of cases) {
      const err = await refusal(() => stripe.coupons.create(params));
      assert.deepEqual([err.statusCode, err.type, err.param, err.code], [400, 'StripeInvalidRequestError', param, code], `${JSON.stringify(params)}: ${err.message}`);
    }
    assert.equal(fake.coupons.size, count, 'nothing refused was made');
    assert.equal(fake.coupons.get('TAKEN')!.percent_off, 5, 'the existing coupon is kept');
  });

  it('a promotion code: promotion[coupon], a customer, first_time_transaction, a minimum amount and metadata', async () => {
    const coupon = await percentCoupon();
    const made = await promotionCode(coupon.id, {
      code: 'ANN-20',
      customer: 'cus_ann',
      max_redemptions: 1,
      restrictions: { first_time_transaction: true, minimum_amount: 2000, minimum_amount_currency: 'usd' },
      metadata: { refkit_participant: '42' },
    });
    assert.deepEqual(fake.requests.at(-1)!.fields, {
      'promotion[type]': 'coupon',
      'promotion[coupon]': coupon.id,
      code: 'ANN-20',
      customer: 'cus_ann',
      max_redemptions: '1',
      'restrictions[first_time_transaction]': 'true',
      'restrictions[minimum_amount]': '2000',
      'restrictions[minimum_amount_currency]': 'usd',
      'metadata[refkit_participant]': '42',
    });
    assert.match(made.id, /^promo_/);
    assert.deepEqual(
      [made.object, made.active, made.code, made.customer, made.max_redemptions, made.metadata, made.promotion, made.restrictions],
      ['promotion_code', true, 'ANN-20', 'cus_ann', 1, { refkit_participant: '42' }, { type: 'coupon', coupon: coupon.id },
        { currency_options: {}, first_time_transaction: true, minimum_amount: 2000, minimum_amount_currency: 'usd' }],
    );
    assert.deepEqual({ ...(await stripe.promotionCodes.retrieve(made.id)) }, { ...made });
    const expanded = await stripe.promotionCodes.retrieve(made.id, { expand: ['promotion.coupon'] });
    assert.equal((expanded.promotion.coupon as Stripe.Coupon).percent_off, 20);
    assert.deepEqual(fake.requests.at(-1)!.fields, { 'expand[0]': 'promotion.coupon' });

    const plain = await promotionCode(coupon.id);
    assert.match(plain.code, /^[A-Z0-9]{8}$/, 'a code is generated when none is given');
    assert.deepEqual([plain.customer, plain.restrictions.first_time_transaction, plain.restrictions.minimum_amount], [null, false, null]);
    const refused: [Partial<Stripe.PromotionCodeCreateParams>, string, string | undefined][] = [
      [{ code: 'ANN 20' }, 'code', undefined],
      [{ code: 'ANN_20' }, 'code', undefined],
      [{ code: 'A'.repeat(501) }, 'code', undefined],
      [{ customer: 'cus_nobody' }, 'customer', 'resource_missing'],
      [{ restrictions: { minimum_amount: 2000 } }, 'restrictions[minimum_amount_currency]', 'parameter_missing'],
      [{ restrictions: { minimum_amount: 2000, minimum_amount_currency: 'usd', currency_options: { usd: { minimum_amount: 1 } } } }, 'restrictions[currency_options][usd][minimum_amount]', undefined],
      [{ max_redemptions: 0 }, 'max_redemptions', undefined],
    ];
    for (const [params, param, code] of refused) {
      const err = await refusal(() => promotionCode(coupon.id, params));
      assert.deepEqual([err.statusCode, err.param, err.code], [400, param, code], `${JSON.stringify(params)}: ${err.message}`);
    }
    const unknownCoupon = await refusal(() => promotionCode('no-such-coupon'));
    assert.deepEqual([unknownCoupon.statusCode, unknownCoupon.param, unknownCoupon.code], [400, 'promotion[coupon]', 'resource_missing']);
    const missing = await refusal(() => stripe.promotionCodes.retrieve('promo_nope'));
    assert.deepEqual([missing.statusCode, missing.code], [404, 'resource_missing']);
  });

  it('a code active twice is refused, regardless of case, until the first is deactivated; customer-restricted codes may share one', async () => {
    const coupon = await percentCoupon(15);
    const first = await promotionCode(coupon.id, { code: 'SPRING-15' });
    const twice = await refusal(() => promotionCode(coupon.id, { code: 'spring-15' }));
    assert.deepEqual(
      [twice.statusCode, twice.type, twice.message, twice.code, twice.param],
      [400, 'StripeInvalidRequestError', 'An active promotion code with `code: spring-15` already exists.', undefined, undefined],
    );
    const listed = await stripe.promotionCodes.list({ code: 'spring-15', active: true, limit: 5 });
    assert.deepEqual([listed.object, listed.data.map((p) => p.id), listed.has_more, listed.url], ['list', [first.id], false, '/v1/promotion_codes']);
    assert.deepEqual(fake.requests.at(-1)!.fields, { code: 'spring-15', active: 'true', limit: '5' });

    const off = await stripe.promotionCodes.update(first.id, { active: false, metadata: { refkit_reason: 'replaced' } });
    assert.deepEqual([off.id, off.active, off.code, off.metadata], [first.id, false, 'SPRING-15', { refkit_reason: 'replaced' }]);
    assert.equal(fake.promotionCodes.get(first.id)!.active, false);
    const second = await promotionCode(coupon.id, { code: 'spring-15' });
    assert.equal(second.active, true, 'the code is free once the first is inactive');
    assert.deepEqual((await stripe.promotionCodes.list({ code: 'SPRING-15' })).data.map((p) => p.id), [second.id, first.id], 'newest first, regardless of case');
    const back = await refusal(() => stripe.promotionCodes.update(first.id, { active: true }));
    assert.equal(back.message, 'An active promotion code with `code: SPRING-15` already exists.', 'reactivating it is the same refusal');
    assert.equal(fake.promotionCodes.get(first.id)!.active, false);
    await stripe.promotionCodes.update(second.id, { active: false });
    assert.equal((await stripe.promotionCodes.update(first.id, { active: true })).active, true, 'and allowed once the other is inactive');

    // Stripe's guide: customer-restricted codes may share a code; one any customer can redeem may not.
    await promotionCode(coupon.id, { code: 'FRIEND-15', customer: 'cus_ann' });
    await promotionCode(coupon.id, { code: 'friend-15', customer: 'cus_ben' });
    assert.match((await refusal(() => promotionCode(coupon.id, { code: 'Friend-15' }))).message, /already exists/);
    assert.match((await refusal(() => promotionCode(coupon.id, { code: 'FRIEND-15', customer: 'cus_ann' }))).message, /already exists/);
    assert.equal((await promotionCode(coupon.id, { code: 'FRIEND-15', active: false })).active, false, 'an inactive code never clashes');

    const unknown = await refusal(() => stripe.promotionCodes.update('promo_nope', { active: false }));
    assert.deepEqual([unknown.statusCode, unknown.code, unknown.message], [404, 'resource_missing', "No such promotion code: 'promo_nope'"]);
    const field = await refusal(() => stripe.promotionCodes.update(first.id, { code: 'OTHER' } as Stripe.PromotionCodeUpdateParams));
    assert.deepEqual([field.statusCode, field.code, field.param], [400, 'parameter_unknown', 'code']);
    const options = await stripe.promotionCodes.update(first.id, { restrictions: { currency_options: { eur: { minimum_amount: 1500 } } }, metadata: { refkit_reason: '' } });
    assert.deepEqual([options.restrictions.currency_options, options.metadata], [{ eur: { minimum_amount: 1500 } }, {}]);
  });

  it('the same Idempotency-Key answers the stored answer (even after the object changed); other fields are idempotency_error', async () => {
    const coupon = await stripe.coupons.create({ amount_off: 1000, currency: 'usd', duration: 'once' }, { idempotencyKey: 'idem-coupon' });
    const again = await stripe.coupons.create({ amount_off: 1000, currency: 'usd', duration: 'once' }, { idempotencyKey: 'idem-coupon' });
    assert.equal(again.id, coupon.id);
    assert.equal(fake.requests.at(-1)!.replayed, true);
    assert.equal(fake.made.filter((r) => r.idempotencyKey === 'idem-coupon').length, 1, 'made once');

    const code = await promotionCode(coupon.id, { code: 'IDEM-1' });
    const params = { active: false };
    await stripe.promotionCodes.update(code.id, params, { idempotencyKey: 'idem-off' });
    const replayed = await stripe.promotionCodes.update(code.id, params, { idempotencyKey: 'idem-off' });
    assert.deepEqual([replayed.active, fake.requests.at(-1)!.replayed], [false, true]);
    const created = await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: coupon.id }, code: 'IDEM-2' }, { idempotencyKey: 'idem-create' });
    await stripe.promotionCodes.update(created.id, { active: false });
    const stored = await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: coupon.id }, code: 'IDEM-2' }, { idempotencyKey: 'idem-create' });
    assert.deepEqual([stored.id, stored.active], [created.id, true], 'the answer first given, not the object as it is now');

    const other = await refusal(() => stripe.promotionCodes.update(code.id, { active: true }, { idempotencyKey: 'idem-off' }));
    assert.deepEqual([other.statusCode, other.type], [400, 'StripeIdempotencyError']);
    assert.equal(fake.promotionCodes.get(code.id)!.active, false);
  });

  it('an invoice: its discounts ids, or with expand[]=discounts the discount objects; 404 for an unknown one', async () => {
    const coupon = await stripe.coupons.create({ amount_off: 500, currency: 'usd', duration: 'once' });
    const other = await percentCoupon(10);
    const code = await promotionCode(coupon.id, { code: 'INVOICE-5', customer: 'cus_ann' });
    const discount = fake.addDiscount({ id: 'di_ann', promotion_code: code.id, customer: 'cus_ann', invoice: 'in_ann' });
    assert.deepEqual(discount.source, { coupon: coupon.id, type: 'coupon' }, "a promotion code's discount carries its coupon");
    fake.addDiscount({ id: 'di_other', coupon: other.id, customer: 'cus_ann' });
    fake.addInvoice({ id: 'in_ann', customer: 'cus_ann', currency: 'usd', subtotal: 5000, total: 4000, status: 'paid', discounts: ['di_ann', 'di_other'] });

    const plain = await stripe.invoices.retrieve('in_ann');
    assert.deepEqual([plain.object, plain.total, plain.discounts], ['invoice', 4000, ['di_ann', 'di_other']]);
    const expanded = await stripe.invoices.retrieve('in_ann', { expand: ['discounts'] });
    assert.deepEqual(fake.requests.at(-1)!.fields, { 'expand[0]': 'discounts' });
    const [ann, ten] = expanded.discounts as Stripe.Discount[];
    assert.deepEqual(
      [ann!.object, ann!.id, ann!.promotion_code, ann!.source, ann!.customer, ann!.invoice, ann!.end, ann!.checkout_session, ann!.subscription, typeof ann!.start],
      ['discount', 'di_ann', code.id, { coupon: coupon.id, type: 'coupon' }, 'cus_ann', 'in_ann', null, null, null, 'number'],
    );
    assert.deepEqual([ten!.promotion_code, ten!.source], [null, { coupon: other.id, type: 'coupon' }]);
    const deeper = await stripe.invoices.retrieve('in_ann', { expand: ['discounts.promotion_code', 'discounts.source.coupon'] });
    const first = (deeper.discounts as Stripe.Discount[])[0]!;
    assert.equal((first.promotion_code as Stripe.PromotionCode).code, 'INVOICE-5');
    assert.equal((first.source.coupon as Stripe.Coupon).amount_off, 500);
    assert.deepEqual((await stripe.invoices.retrieve('in_ann')).discounts, ['di_ann', 'di_other'], 'the stored invoice is not changed by an expansion');

    const lines = await refusal(() => stripe.invoices.retrieve('in_ann', { expand: ['customer'] }));
    assert.deepEqual([lines.statusCode, lines.param], [400, 'expand']);
    const missing = await refusal(() => stripe.invoices.retrieve('in_nope', { expand: ['discounts'] }));
    assert.deepEqual([missing.statusCode, missing.code, missing.message], [404, 'resource_missing', "No such invoice: 'in_nope'"]);
    assert.equal(fake.made.filter((r) => r.method !== 'POST').length, 0, 'a GET is never something made');
  });

  it('failures asked for apply to these endpoints too: a 500 and a 400 on GETs, a lost answer replayed on an update', async () => {
    const coupon = await percentCoupon(30);
    fake.fail({ kind: '500' });
    assert.equal((await refusal(() => stripe.coupons.retrieve(coupon.id))).statusCode, 500);
    fake.addInvoice({ id: 'in_fail', discounts: [] });
    fake.fail({ kind: '400', message: 'Something Stripe says.', code: 'some_code' });
    const said = await refusal(() => stripe.invoices.retrieve('in_fail'));
    assert.deepEqual([said.statusCode, said.code, said.message], [400, 'some_code', 'Something Stripe says.']);
    assert.equal((await stripe.invoices.retrieve('in_fail')).id, 'in_fail', 'one failure each');

    const code = await promotionCode(coupon.id, { code: 'LOST-30' });
    const count = fake.requests.length;
    // The update is done and stored, its answer lost; the `stripe` package retries it once with the same key.
    fake.fail({ kind: 'lost-answer' });
    const off = await stripe.promotionCodes.update(code.id, { active: false });
    assert.equal(off.active, false);
    assert.deepEqual(fake.requests.slice(count).map((r) => [r.method, r.status, r.replayed]), [['POST', 200, false], ['POST', 200, true]]);
    assert.equal(fake.pendingFailures, 0);
  });
});
