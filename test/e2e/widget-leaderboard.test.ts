/**
 * The leaderboard in the widget (`show-leaderboard`), in Chromium at a phone's and a desktop's width,
 * against the real service: a new participant sees the board; once
 * their friend qualifies, they come back (same browser) to their rank and their name on the board. Axe
 * runs in the widget tests; here nothing is wider than the screen.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const textOf = async (l: Locator) => (await l.innerText()).replace(/\s+/g, ' ').trim();
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the widget with a leaderboard, in Chromium', () => {
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
        <body><main><referral-widget campaign-id="${campaignId}" first-name last-name show-leaderboard></referral-widget></main></body></html>`),
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
    it(`at ${width} px: the board, then the rank and the name once a friend qualifies`, async () => {
      campaignId = await service.campaign({ hostURL: `${shop.url}/`, leaderboard: { period: 'all', size: 5 } });
      // Maya is on the board already, with two qualified friends.
      const maya = await service.admin.addParticipant({ id: campaignId, email: `maya${width}@example.com`, firstName: 'Maya' });
      for (const friend of ['f1', 'f2']) {
        await service.admin.addParticipant({ id: campaignId, email: `${friend}-${width}@example.com`, referredByCode: maya.referralCode! });
        await service.admin.qualifyParticipant({ id: campaignId, email: `${friend}-${width}@example.com` });
      }

      const context = await browser.newContext({ viewport: { width, height } });
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
      const ann = await service.admin.getParticipant(campaignId, `ann${width}@example.com`);
      await service.admin.addParticipant({ id: campaignId, email: `ben${width}@example.com`, referredByCode: ann.referralCode! });
      await service.admin.qualifyParticipant({ id: campaignId, email: `ben${width}@example.com` });
      await page.reload();
      const rank = widget.locator('[part=my-rank]');
      await rank.waitFor();
      assert.equal(await textOf(rank), 'You are #2 with 1 qualified friend.');
      assert.deepEqual(await widget.locator('[part=leaderboard-name]').allInnerTexts(), ['Maya', 'Ann L.']);
      assert.ok(await fitsTheScreen(page), 'nothing wider than the screen');
      await context.close();
    });
  }
});
