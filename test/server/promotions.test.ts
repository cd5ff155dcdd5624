/**
 * The friend's reward at checkout, on both databases, against the loopback stand-in of Stripe's API
 * (./helpers/fake-stripe.ts, ./helpers/fake-stripe-promotions.ts): the campaign's refereeDiscount made as
 * one coupon and a promotion code per participant (backfilled, made once under concurrent passes and
 * after a lost answer, kept in step when the discount changes, a taken text left unmade with its reason),
 * the codes on the participant's views and the public getPromotionCode, and attribution by code alone
 * from Stripe-shaped signed events (a new buyer made the owner's referee and credited, self-use refused,
 * an existing participant's referrer kept).
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, it } from 'node:test';
import type { RefereeDiscount } from '../../src/api/promotion-schemas.js';
import { PromotionCodeSync } from '../../src/server/promotions/domain/promotion-code-sync.js';
import { rejects } from './helpers/assert.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import type { TestService } from './helpers/service.js';
import { checkoutSession, event, invoice, SECRET, send } from './helpers/stripe.js';
import { eachDatabase } from './helpers/suite.js';

const KEY = 'rk_test_refkitPromotions0123456789';

let fake: FakeStripe;
beforeEach(async () => {
  fake = await new FakeStripe().allowKey(KEY).start();
});
afterEach(() => fake.stop());

const sync = (s: TestService) => new PromotionCodeSync(s.ctx, { api: fake.api, retryDelaysMs: [0], waitMs: 0, timeoutMs: 2000, leaseMs: 30_000 });
/** Passes until nothing is left to send (a deactivation and the code that waits for its text take two). */
async function settle(s: TestService): Promise<void> {
  for (let i = 0; i < 5 && (await sync(s).syncNow()) > 0; i++);
}
const promotionRequests = () => fake.made.filter((r) => r.path === '/v1/promotion_codes');

/** A campaign with Ann (who joined before the discount) and her referee Ben. */
async function program(s: TestService, discount: RefereeDiscount = { percentOff: 15, duration: 'repeating', durationInMonths: 3 }) {
  const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 0, rewardType: 'credit', rewardCurrency: 'USD' });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await s.admin.updateCampaign({ id, stripeWebhookSecret: SECRET, stripeRewardKey: KEY, refereeDiscount: discount });
  const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  return { id, ann: ann.referralCode!, ben: ben.referralCode! };
}

const promotionOf = async (s: TestService, id: string, code: string) => (await s.browser.getPromotionCode(id, code)).id;

eachDatabase(
  'The friend\'s reward at checkout',
  (started) => {
    // The service reads Stripe (an invoice's discounts) where STRIPE_API_URL says: the stand-in.
    const service = () => {
      const s = started();
      s.ctx.payouts = { publicUrl: s.url, stripeApiUrl: `http://127.0.0.1:${fake.port}` };
      return s;
    };
    it("the sync's progress through a campaign's participants empties no process's caches; a new discount does", async () => {
      const s = service();
      const { id } = await program(s);
      const { store } = s.ctx;
      const epoch = async () => Number((await sql<{ n: number }>`select n from cache_epoch`.execute(store.db)).rows[0]!.n);
      await settle(s);
      const [before, through] = [await epoch(), await store.promotionCodes.through(id)];
      await s.admin.addParticipant({ id, email: 'cat@example.com' });
      await settle(s);
      assert.ok((await store.promotionCodes.through(id))! > through!, 'the pass recorded its progress');
      assert.equal(promotionRequests().length, 3, "Cat's code was made");
      assert.equal(await epoch(), before, 'no cache was emptied');
      await s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 20, duration: 'once' } });
      assert.ok((await epoch()) > before, 'a new discount empties them');
    });

    it('makes one coupon and a first-purchase promotion code per participant, those who joined before included; getPromotionCode answers the referrer\'s', async () => {
      const s = service();
      const { id, ann, ben } = await program(s);
      const settings = await s.admin.updateCampaign({ id });
      assert.deepEqual(settings.refereeDiscount, { percentOff: 15, duration: 'repeating', durationInMonths: 3 });
      assert.equal(settings.promotionCodePrefix, null);
      // Two passes at once (two processes): each code is asked for once, the coupon made once.
      await Promise.all([sync(s).syncNow(), sync(s).syncNow()]);
      await settle(s);
      const coupons = fake.made.filter((r) => r.path === '/v1/coupons');
      assert.equal(coupons.length, 1);
      assert.deepEqual([coupons[0]!.fields.percent_off, coupons[0]!.fields.duration, coupons[0]!.fields.duration_in_months, coupons[0]!.key], ['15', 'repeating', '3', KEY]);
      const made = promotionRequests();
      assert.deepEqual(made.map((r) => r.fields.code).sort(), [ann, ben].sort());
      for (const r of made) {
        assert.equal(r.fields['restrictions[first_time_transaction]'], 'true');
        assert.equal(r.fields['promotion[coupon]'], (coupons[0]!.body as { id: string }).id);
        assert.equal(r.fields['metadata[refkit_campaign]'], id);
        assert.equal(r.fields['metadata[refkit_code]'], r.fields.code);
      }
      assert.equal(fake.promotionCodes.size, 2);

      // Ann's own code, to share, on her views; the code a visitor she referred applies is the same one.
      const annPromo = [...fake.promotionCodes.values()].find((p) => p.code === ann)!;
      const detail = await s.admin.getParticipantDetail(id, 'ann@example.com');
      assert.deepEqual(detail.promotionCode, { code: ann, id: annPromo.id });
      const { secret } = await s.admin.getSigningSecret(id);
      const mine = await s.browser.getMyReferrals(id, { emailSignature: createHmac('sha256', secret).update('ann@example.com').digest('hex') }, 'ann@example.com');
      assert.deepEqual(mine.promotionCode, { code: ann, id: annPromo.id });
      assert.deepEqual(await s.browser.getPromotionCode(id, ann.toLowerCase()), { code: ann, id: annPromo.id, percentOff: 15, currency: 'USD', duration: 'repeating', durationInMonths: 3 });
      await rejects(() => s.browser.getPromotionCode(id, 'NOSUCHCODE'), 404, 'promotion_code_not_found');
      const listed = await s.admin.listPromotionCodes(id, 'active');
      assert.deepEqual(listed.map((c) => [c.email, c.status, c.current]).sort(), [['ann@example.com', 'active', true], ['ben@example.com', 'active', true]]);
      // Nothing left to do: a pass sends nothing.
      const before = fake.requests.length;
      assert.equal(await sync(s).syncNow(), 0);
      assert.equal(fake.requests.length, before);
    });

    it('refuses a discount it cannot make, naming the field, and changes nothing', async () => {
      const s = service();
      const id = await s.campaign({});
      await rejects(() => s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 10, duration: 'once' } }), 400, 'invalid_request', 'refereeDiscount');
      await s.admin.updateCampaign({ id, stripeRewardKey: KEY });
      await rejects(() => s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 10, amountOff: 5, duration: 'once' } }), 400, 'invalid_request', 'refereeDiscount');
      await rejects(() => s.admin.updateCampaign({ id, refereeDiscount: { amountOff: 5, duration: 'repeating' } }), 400, 'invalid_request', 'refereeDiscount.durationInMonths');
      await rejects(() => s.admin.updateCampaign({ id, refereeDiscount: { amountOff: 5, duration: 'once', durationInMonths: 2 } }), 400, 'invalid_request', 'refereeDiscount.durationInMonths');
      await rejects(() => s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 10.005, duration: 'once' } }), 400, 'invalid_request', 'refereeDiscount.percentOff');
      await rejects(() => s.admin.updateCampaign({ id, promotionCodePrefix: 'NO SPACES' }), 400, 'invalid_request', 'promotionCodePrefix');
      assert.equal((await s.admin.updateCampaign({ id })).refereeDiscount, null);
      await rejects(() => s.browser.getPromotionCode(id, 'ANYCODE1'), 404, 'promotion_code_not_found');
    });

    it('a changed discount is a new coupon: the old codes are deactivated first, then the same texts made on it', async () => {
      const s = service();
      const { id, ann } = await program(s, { amountOff: 10, duration: 'once' });
      await settle(s);
      const first = await promotionOf(s, id, ann);
      assert.equal((await s.browser.getPromotionCode(id, ann)).amountOff, '10.00');
      await s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 20, duration: 'forever' } });
      // Until the new code is made, there is none to give.
      await rejects(() => s.browser.getPromotionCode(id, ann), 404, 'promotion_code_not_found');
      await settle(s);
      assert.equal(fake.promotionCodes.get(first)!.active, false);
      const second = await s.browser.getPromotionCode(id, ann);
      assert.notEqual(second.id, first);
      assert.deepEqual([second.code, second.percentOff, second.duration], [ann, 20, 'forever']);
      assert.equal(fake.made.filter((r) => r.path === '/v1/coupons').length, 2);
      // The deactivation went before the new code of the same text.
      const order = fake.made.filter((r) => r.path.startsWith('/v1/promotion_codes')).map((r) => (r.path === '/v1/promotion_codes' ? `make ${r.fields.code}` : `off ${r.path.split('/').pop()}`));
      assert.ok(order.indexOf(`off ${first}`) < order.lastIndexOf(`make ${ann}`), order.join(', '));
      const all = await s.admin.listPromotionCodes(id);
      assert.deepEqual(all.filter((c) => c.email === 'ann@example.com').map((c) => [c.status, c.current]), [['active', true], ['inactive', false]]);
      // Removing the discount deactivates every code.
      await s.admin.updateCampaign({ id, refereeDiscount: null });
      await settle(s);
      assert.equal([...fake.promotionCodes.values()].filter((p) => p.active).length, 0);
    });

    it('a text taken in the Stripe account stays unmade with the reason; a prefix makes it', async () => {
      const s = service();
      const id = await s.campaign({});
      const ann = (await s.admin.addParticipant({ id, email: 'ann@example.com' })).referralCode!;
      // Another campaign on the same account made Ann's text first.
      const stripe = new (await import('stripe')).default(KEY, { host: '127.0.0.1', port: fake.port, protocol: 'http', telemetry: false });
      const coupon = await stripe.coupons.create({ percent_off: 5, duration: 'once' });
      await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: coupon.id }, code: ann });
      await s.admin.updateCampaign({ id, stripeRewardKey: KEY, refereeDiscount: { percentOff: 10, duration: 'once' } });
      await settle(s);
      const [failed] = await s.admin.listPromotionCodes(id, 'failed');
      assert.equal(failed!.stripeCode, ann);
      assert.match(failed!.reason!, /promotionCodePrefix/);
      assert.equal((await s.admin.getParticipantDetail(id, 'ann@example.com')).promotionCode, undefined);
      await s.admin.updateCampaign({ id, promotionCodePrefix: 'shop2-' });
      await settle(s);
      const made = await s.browser.getPromotionCode(id, ann);
      assert.equal(made.code, `SHOP2-${ann}`);
      assert.equal(fake.promotionCodes.get(made.id)!.code, `SHOP2-${ann}`);
    });

    it('a code whose answer was lost is made once: the retry is answered what Stripe made', async () => {
      const s = service();
      const { id } = await program(s);
      await sync(s).syncNow(); // the coupon and both codes
      const made = promotionRequests().length;
      assert.equal(made, 2);
      // A new participant's code: Stripe makes it and the answer never arrives; the package's own retry of the
      // dropped connection meets a 500 (as a process dying after Stripe made it, before it recorded it).
      await s.admin.addParticipant({ id, email: 'cy@example.com' });
      fake.fail({ kind: 'lost-answer' }, { kind: '500' });
      await new PromotionCodeSync(s.ctx, { api: fake.api, retryDelaysMs: [60_000], timeoutMs: 2000 }).syncNow();
      const [waiting] = (await s.admin.listPromotionCodes(id)).filter((c) => c.email === 'cy@example.com');
      assert.equal(waiting!.status, 'queued');
      assert.match(waiting!.reason!, /Stripe answered 500/);
      // Its retry comes due.
      await s.ctx.store.db.updateTable('promotion_codes').set({ next_attempt_on: 0 }).where('status', '=', 'queued').execute();
      await settle(s);
      const cy = (await s.admin.listPromotionCodes(id)).find((c) => c.email === 'cy@example.com')!;
      assert.equal(cy.status, 'active');
      assert.equal([...fake.promotionCodes.values()].filter((p) => p.code === cy.code).length, 1, 'made once in Stripe');
      assert.ok(fake.requests.some((r) => r.replayed && r.path === '/v1/promotion_codes'));
    });

    it('attribution by code alone: a checkout with Ann\'s promotion code makes its buyer her referee and credits her, once', async () => {
      const s = service();
      const { id, ann } = await program(s);
      await settle(s);
      const promo = await promotionOf(s, id, ann);
      const session = checkoutSession('', 'dee@example.com', 5000, { client_reference_id: null, customer: 'cus_dee', discounts: [{ coupon: null, promotion_code: promo }] });
      const paid = event('checkout.session.completed', session);
      const first = await send(s, id, paid);
      assert.deepEqual([first.status, first.body.outcome], [200, 'applied']);
      const dee = await s.admin.getParticipant(id, 'dee@example.com');
      assert.equal(dee.referredByCode, ann);
      assert.equal(dee.rewardEventCompleted, true);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
      const [listed] = await s.admin.listStripeEvents(id);
      assert.deepEqual([listed!.status, listed!.promotionCode, listed!.participantEmail], ['applied', promo, 'dee@example.com']);
      // Sent again: a duplicate, nothing more.
      assert.equal((await send(s, id, paid)).body.outcome, 'duplicate');
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
      assert.equal((await s.admin.getReferrals(id, 'ann@example.com')).length, 2);
    });

    it('self-use is refused and an existing participant keeps their referrer; the event says why', async () => {
      const s = service();
      const { id, ann } = await program(s);
      await settle(s);
      const promo = await promotionOf(s, id, ann);
      const withCode = (email: string, customer: string) => event('checkout.session.completed', checkoutSession('', email, 5000, { client_reference_id: null, customer, payment_intent: `pi_${customer}`, discounts: [{ coupon: null, promotion_code: promo }] }));
      // Ann pays with her own code.
      const own = await send(s, id, withCode('ann@example.com', 'cus_ann'));
      assert.match((own.body as { reason?: string }).reason!, /self-referral/);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 0);
      assert.equal((await s.admin.getReferrals(id, 'ann@example.com')).length, 1);
      // Eve joined with no referrer, then pays with Ann's code: she stays unreferred.
      await s.admin.addParticipant({ id, email: 'eve@example.com' });
      const eve = await send(s, id, withCode('eve@example.com', 'cus_eve'));
      assert.match((eve.body as { reason?: string }).reason!, /never re-assigned/);
      assert.equal((await s.admin.getParticipant(id, 'eve@example.com')).referredByCode ?? null, null);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 0);
    });

    it('a subscription started with the code: its checkout makes the buyer a referee and ties the customer; the first invoice qualifies them', async () => {
      const s = service();
      const { id, ann } = await program(s);
      await settle(s);
      const promo = await promotionOf(s, id, ann);
      const started = checkoutSession('', 'gia@example.com', 0, { client_reference_id: null, mode: 'subscription', customer: 'cus_gia', discounts: [{ coupon: null, promotion_code: promo }] });
      assert.equal((await send(s, id, event('checkout.session.completed', started))).body.outcome, 'applied');
      const gia = await s.admin.getParticipant(id, 'gia@example.com');
      assert.deepEqual([gia.referredByCode, gia.rewardEventCompleted], [ann, false]);
      // The first invoice names only the customer (its discount is the subscription's, not repeated).
      const first = invoice('cus_gia', 1500, { customer_email: null, billing_reason: 'subscription_create' });
      assert.equal((await send(s, id, event('invoice.paid', first))).body.outcome, 'applied');
      assert.equal((await s.admin.getParticipant(id, 'gia@example.com')).rewardEventCompleted, true);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
    });

    it('an invoice whose discounts come as ids is read from Stripe, and attributed', async () => {
      const s = service();
      const { id, ann } = await program(s);
      await settle(s);
      const promo = await promotionOf(s, id, ann);
      const paid = invoice('cus_fay', 2900, { customer_email: 'fay@example.com', discounts: ['di_fay'], billing_reason: 'subscription_create' });
      fake.addDiscount({ id: 'di_fay', promotion_code: promo, customer: 'cus_fay', invoice: paid.id });
      fake.addInvoice({ ...paid, discounts: ['di_fay'] });
      assert.equal((await send(s, id, event('invoice.paid', paid))).body.outcome, 'applied');
      assert.equal((await s.admin.getParticipant(id, 'fay@example.com')).referredByCode, ann);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 10);
      const read = fake.requests.find((r) => r.method === 'GET' && r.path === `/v1/invoices/${paid.id}`)!;
      assert.equal(read.key, KEY);
    });
  },
);
