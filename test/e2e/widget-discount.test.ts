/**
 * The friend's discount at checkout, in Chromium at a phone's and a desktop's width, against the real
 * service and the loopback stand-in of Stripe's API: the campaign's discount is made as a promotion code
 * per participant (the real outbox), a friend arriving on Ann's link reads what they get off and with which
 * code before they sign up, the page's script reads that code (window.refkit.getPromotionCode) to put on its
 * checkout, and the sign-up's referral-signup event carries it as referrerPromotionCode.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { PromotionCodeSync } from '../../src/server/promotions/domain/promotion-code-sync.js';
import { FakeStripe } from '../server/helpers/fake-stripe.js';
import { describeShop, fitsTheScreen, textOf } from './helpers/shop.js';

const KEY = 'rk_test_refkitWidgetDiscount0123';
let stripe: FakeStripe;
before(async () => {
  stripe = await new FakeStripe().allowKey(KEY).start();
});
after(() => stripe.stop());

describeShop("the friend's discount in the widget, in Chromium", '', {
  name: 'the friend reads their discount and its code before signing up; the page and the sign-up event get the code',
  async run(shop, { width, height }, show) {
    const s = shop.service;
    s.ctx.payouts = { publicUrl: s.url, stripeApiUrl: `http://127.0.0.1:${stripe.port}` };
    const campaignId = await s.campaign({ hostURL: `${shop.url}/`, referrerRewardValue: 10, refereeRewardValue: 0, rewardCurrency: 'USD' });
    show(campaignId);
    await s.admin.updateCampaign({ id: campaignId, stripeRewardKey: KEY, refereeDiscount: { percentOff: 15, duration: 'repeating', durationInMonths: 3 } });
    const ann = await s.admin.addParticipant({ id: campaignId, email: `ann${width}@example.com` });
    await new PromotionCodeSync(s.ctx, { api: stripe.api, timeoutMs: 2000 }).syncNow();
    const made = await s.browser.getPromotionCode(campaignId, ann.referralCode!);

    const friend = await shop.browser.newContext({ viewport: { width, height } });
    const page = await friend.newPage();
    await page.goto(ann.shareLink!);
    const widget = page.locator('referral-widget');
    const discount = widget.locator('[part=discount]');
    await discount.waitFor();
    assert.equal(await textOf(discount), `15% off your payments for the first 3 months with code ${ann.referralCode}.`);
    assert.ok(await fitsTheScreen(page), 'nothing wider than the screen');
    // The host's checkout script asks for the code to apply: the referrer's, as Stripe has it.
    assert.deepEqual(await page.evaluate((id) => (window as unknown as { refkit: { getPromotionCode(id: string): Promise<unknown> } }).refkit.getPromotionCode(id), campaignId), { code: made.code, id: made.id });

    const signedUp = page.evaluate(
      () => new Promise((resolve) => document.querySelector('referral-widget')!.addEventListener('referral-signup', (e) => resolve((e as CustomEvent).detail.referrerPromotionCode), { once: true })),
    );
    await widget.getByLabel('Email address').fill(`ben${width}@example.com`);
    await widget.locator('button[type=submit]').click();
    assert.deepEqual(await signedUp, { code: made.code, id: made.id });
    assert.equal((await s.admin.getParticipant(campaignId, `ben${width}@example.com`)).referredByCode, ann.referralCode);
    await friend.close();
  },
});
