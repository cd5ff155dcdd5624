/**
 * What the signed-up widget says about rewards, in Chromium at a phone's and a desktop's width, against
 * the real service: the first step is ticked once the link is copied, not before; a referred friend
 * reads what their welcome reward is and that it comes when they qualify; after a redemption, what was
 * earned still reads as earned, with what is left beside it. "You are in!" is on the screen after the
 * sign-up, and nothing is wider than it.
 */
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { describeShop, fitsTheScreen, textOf } from './helpers/shop.js';

const currentStep = (widget: Locator) => textOf(widget.locator('[part=progress] [data-step=current]'));

describeShop('the widget on rewards, in Chromium', '', {
  name: "share step ticked by the copy; the friend's welcome reward and how to get it; earned and left after a redemption",
  async run(shop, { width, height }, show) {
    const campaignId = await shop.service.campaign({ hostURL: `${shop.url}/`, referrerRewardValue: 10, refereeRewardValue: 5, rewardCurrency: 'EUR' });
    show(campaignId);
    const ann = await shop.browser.newContext({ viewport: { width, height } });
    await ann.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shop.url });
    const pageA = await ann.newPage();
    await pageA.goto(`${shop.url}/`);
    const widgetA = pageA.locator('referral-widget');
    await widgetA.getByLabel('Email address').fill(`ann${width}@example.com`);
    await widgetA.getByRole('button', { name: 'Get my referral link' }).click();
    await widgetA.locator('[part=progress]').waitFor();
    // "You are in!" is where the screen shows it (at 390 px the signed-up card is taller than the screen).
    const status = widgetA.locator('[part=status]');
    assert.equal(await status.innerText(), 'You are in! Your link is ready to share.');
    const box = (await status.boundingBox())!;
    assert.ok(box.y >= 0 && box.y + box.height <= height, `"You are in!" on the screen: at ${box.y}-${box.y + box.height} of ${height} px`);
    assert.equal(await currentStep(widgetA), '1 Share your link (next step)');
    assert.equal(await widgetA.locator('[data-offer=referee]').innerText(), 'Your friends get €5 when they qualify (for example, with a purchase).');
    await widgetA.getByRole('button', { name: 'Copy' }).click();
    await widgetA.getByText('Copied!').waitFor();
    assert.equal(await currentStep(widgetA), '2 A friend signs up (next step)');
    const link = await widgetA.getByLabel('Your referral link', { exact: true }).inputValue();

    // Ben comes through Ann's link and signs up: his welcome reward is waiting for him to qualify.
    const ben = await shop.browser.newContext({ viewport: { width, height } });
    const pageB = await ben.newPage();
    await pageB.goto(link);
    const widgetB = pageB.locator('referral-widget');
    await widgetB.getByLabel('Email address').fill(`ben${width}@example.com`);
    await widgetB.getByRole('button', { name: 'Claim my reward' }).click();
    const pending = widgetB.locator('[data-stat=referee-pending]');
    await pending.waitFor();
    assert.equal(await pending.innerText(), '€5 when you qualify (for example, with a purchase)');
    assert.ok(await fitsTheScreen(pageB), 'nothing wider than the screen');
    await ben.close();

    // The backend: Ben qualifies (approved first: both came from this machine); Ann redeems her €10.
    await shop.service.admin.approveParticipant(campaignId, `ben${width}@example.com`);
    await shop.service.admin.qualifyParticipant({ id: campaignId, email: `ben${width}@example.com` });
    await shop.service.admin.redeemReward({ id: campaignId, email: `ann${width}@example.com`, kind: 'referral', amount: 10 });
    await pageA.reload();
    await widgetA.locator('[data-stat=referral-balance]').waitFor();
    assert.equal(await widgetA.locator('[data-stat=referral-earned]').innerText(), '€10');
    assert.equal(await widgetA.locator('[data-stat=referral-balance]').innerText(), '€0');
    assert.ok(await fitsTheScreen(pageA), 'nothing wider than the screen');
    await ann.close();
  },
});
