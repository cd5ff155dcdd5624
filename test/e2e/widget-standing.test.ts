/**
 * What the signed-up widget says about rewards, in Chromium at a phone's and a desktop's width, against
 * the real service: the first step is ticked once the link is copied, not before; a referred friend
 * reads what their welcome reward is and that it comes when they qualify; after a redemption, what was
 * earned still reads as earned, with what is left beside it. Nothing is wider than the screen.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const currentStep = async (widget: Locator) => (await widget.locator('[part=progress] [data-step=current]').innerText()).replace(/\s+/g, ' ').trim();
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the widget on rewards, in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let shop: { url: string; server: Server };
  let campaignId = '';

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!);
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Shop</title>
        <script type="module" src="${service.url}/widget/referral-widget.js"></script></head>
        <body><main><referral-widget campaign-id="${campaignId}"></referral-widget></main></body></html>`),
    );
    shop = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await service?.close();
  });

  for (const [width, height] of [
    [390, 844],
    [1280, 900],
  ] as const) {
    it(`at ${width} px: share step ticked by the copy; the friend's welcome reward and how to get it; earned and left after a redemption`, async () => {
      campaignId = await service.campaign({ hostURL: `${shop.url}/`, referrerRewardValue: 10, refereeRewardValue: 5, rewardCurrency: 'EUR' });
      const ann = await browser.newContext({ viewport: { width, height } });
      await ann.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shop.url });
      const pageA = await ann.newPage();
      await pageA.goto(`${shop.url}/`);
      const widgetA = pageA.locator('referral-widget');
      await widgetA.getByLabel('Email address').fill(`ann${width}@example.com`);
      await widgetA.getByRole('button', { name: 'Get my referral link' }).click();
      await widgetA.locator('[part=progress]').waitFor();
      assert.equal(await currentStep(widgetA), '1 Share your link (next step)');
      assert.equal(await widgetA.locator('[data-offer=referee]').innerText(), 'Your friends get €5 when they qualify (for example, with a purchase).');
      await widgetA.getByRole('button', { name: 'Copy' }).click();
      await widgetA.getByText('Copied!').waitFor();
      assert.equal(await currentStep(widgetA), '2 A friend signs up (next step)');
      const link = await widgetA.getByLabel('Your referral link', { exact: true }).inputValue();

      // Ben comes through Ann's link and signs up: his welcome reward is waiting for him to qualify.
      const ben = await browser.newContext({ viewport: { width, height } });
      const pageB = await ben.newPage();
      await pageB.goto(link);
      const widgetB = pageB.locator('referral-widget');
      await widgetB.getByLabel('Email address').fill(`ben${width}@example.com`);
      await widgetB.getByRole('button', { name: 'Get my referral link' }).click();
      const pending = widgetB.locator('[data-stat=referee-pending]');
      await pending.waitFor();
      assert.equal(await pending.innerText(), '€5 when you qualify (for example, with a purchase)');
      assert.ok(await fitsTheScreen(pageB), 'nothing wider than the screen');
      await ben.close();

      // The backend: Ben qualifies (approved first: both came from this machine); Ann redeems her €10.
      await service.admin.approveParticipant(campaignId, `ben${width}@example.com`);
      await service.admin.qualifyParticipant({ id: campaignId, email: `ben${width}@example.com` });
      await service.admin.redeemReward({ id: campaignId, email: `ann${width}@example.com`, kind: 'referral', amount: 10 });
      await pageA.reload();
      await widgetA.locator('[data-stat=referral-balance]').waitFor();
      assert.equal(await widgetA.locator('[data-stat=referral-earned]').innerText(), '€10');
      assert.equal(await widgetA.locator('[data-stat=referral-balance]').innerText(), '€0');
      assert.ok(await fitsTheScreen(pageA), 'nothing wider than the screen');
      await ann.close();
    });
  }
});
