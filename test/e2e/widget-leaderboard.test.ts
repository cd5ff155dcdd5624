/**
 * The leaderboard in the widget (`show-leaderboard`), in Chromium at a phone's and a desktop's width,
 * against the real service: a new participant sees the board; once
 * their friend qualifies, they come back (same browser) to their rank and their name on the board. Axe
 * runs in the widget tests; here nothing is wider than the screen.
 */
import assert from 'node:assert/strict';
import { describeShop, fitsTheScreen, textOf } from './helpers/shop.js';

describeShop('the widget with a leaderboard, in Chromium', 'first-name last-name show-leaderboard', {
  name: 'the board, then the rank and the name once a friend qualifies',
  async run(shop, { width, height }, show) {
    const campaignId = await shop.service.campaign({ hostURL: `${shop.url}/`, leaderboard: { period: 'all', size: 5 } });
    show(campaignId);
    // Maya is on the board already, with two qualified friends.
    const maya = await shop.service.admin.addParticipant({ id: campaignId, email: `maya${width}@example.com`, firstName: 'Maya' });
    for (const friend of ['f1', 'f2']) {
      await shop.service.admin.addParticipant({ id: campaignId, email: `${friend}-${width}@example.com`, referredByCode: maya.referralCode! });
      await shop.service.admin.qualifyParticipant({ id: campaignId, email: `${friend}-${width}@example.com` });
    }

    const context = await shop.browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(`${shop.url}/`);
    const widget = page.locator('referral-widget');
    await widget.getByLabel('First name').fill('Ann');
    await widget.getByLabel('Last name').fill('Lee');
    await widget.getByLabel('Email address').fill(`ann${width}@example.com`);
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.locator('[part=leaderboard-list]').waitFor();
    assert.equal(await textOf(widget.getByRole('heading', { name: 'Top referrers' })), 'Top referrers');
    assert.deepEqual(await widget.locator('[part=leaderboard-list] li').allInnerTexts().then((t) => t.map((s) => s.replace(/\s+/g, ' ').trim())), ['#1 Maya 2 qualified friends']);

    // Ann's friend signs up through her link and qualifies; Ann comes back on the same browser.
    const ann = await shop.service.admin.getParticipant(campaignId, `ann${width}@example.com`);
    await shop.service.admin.addParticipant({ id: campaignId, email: `ben${width}@example.com`, referredByCode: ann.referralCode! });
    await shop.service.admin.qualifyParticipant({ id: campaignId, email: `ben${width}@example.com` });
    await page.reload();
    const rank = widget.locator('[part=my-rank]');
    await rank.waitFor();
    assert.equal(await textOf(rank), 'You are #2 with 1 qualified friend.');
    assert.deepEqual(await widget.locator('[part=leaderboard-name]').allInnerTexts(), ['Maya', 'Ann L.']);
    assert.ok(await fitsTheScreen(page), 'nothing wider than the screen');
    await context.close();
  },
});
