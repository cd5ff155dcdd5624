/**
 * The widget as a marketer embeds it: a landing page on another origin than the service, one script
 * tag from the service, one element. Real service (SQLite), real widget bundle, real Chromium.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** A page server on its own port (another origin) serving one landing page that embeds the widget. */
function landingPage(serviceUrl: string, campaignId: string): Promise<{ url: string; server: Server }> {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
    <script type="module" src="${serviceUrl}/widget/referral-widget.js"></script></head>
    <body><h1>Shop</h1><referral-widget campaign-id="${campaignId}"></referral-widget></body></html>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

describe('widget embedded on another origin', () => {
  let service: TestService;
  let browser: Browser;
  let shop: { url: string; server: Server };
  let campaignId: string;

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!);
    campaignId = await service.campaign();
    shop = await landingPage(service.url, campaignId);
    // The landing page's origin must be allowed: by default that is the origin of the campaign's hostURL.
    await service.admin.updateCampaign({ id: campaignId, hostURL: `${shop.url}/`, shareHeader: 'Share it', rewardHeader: 'Get rewarded' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await service?.close();
  });

  it('a visitor on a share link signs up through the widget and gets their own link; the referral counts', async () => {
    const referrer = await service.admin.addParticipant({ id: campaignId, email: 'ann@example.com' });
    const page = await browser.newPage();
    await page.goto(`${shop.url}/?id=${campaignId}&referralCode=${referrer.referralCode}`);
    const widget = page.locator('referral-widget');
    await widget.getByText('Get rewarded').waitFor();
    await widget.getByText('You were invited').waitFor();
    await widget.getByLabel('Email address').fill('ben@example.com');
    await widget.getByRole('button', { name: 'Claim my reward' }).click();
    await widget.getByText('Share it').waitFor();
    const link = await widget.getByLabel('Your referral link', { exact: true }).inputValue();
    const ben = await service.admin.getParticipant(campaignId, 'ben@example.com');
    assert.equal(link, ben.shareLink);
    assert.equal(ben.referredByCode, referrer.referralCode);
    assert.equal((await service.admin.getParticipant(campaignId, 'ann@example.com')).totalReferrals, 1);
    // The QR code is drawn once its encoder's chunk has loaded, a moment after the share view.
    await widget.locator('[part=qr] svg').waitFor();
    assert.equal(await widget.locator('[part=qr] svg').count(), 1);

    // Coming back later (a new visit on the same browser) goes straight to the share view.
    await page.goto(`${shop.url}/`);
    await page.locator('referral-widget').getByText('Welcome back').waitFor();
    await page.close();
  });

  it("allowedOrigins adds a second site to the landing page's origin: the widget works on both", async () => {
    const www = await landingPage(service.url, campaignId);
    try {
      await service.admin.updateCampaign({ id: campaignId, allowedOrigins: [www.url] });
      for (const site of [shop.url, www.url]) {
        const page = await browser.newPage();
        await page.goto(`${site}/`);
        await page.locator('referral-widget').getByLabel('Email address').waitFor();
        assert.equal(await page.locator('referral-widget').getByText('This site is not allowed').count(), 0, site);
        await page.close();
      }
    } finally {
      await service.admin.updateCampaign({ id: campaignId, allowedOrigins: [] });
      www.server.close();
    }
  });

  it('a page on an origin the campaign does not allow is refused (403), readable, and the widget says so', async () => {
    const stranger = await landingPage(service.url, campaignId);
    try {
      const page = await browser.newPage();
      await page.goto(`${stranger.url}/`);
      await page.locator('referral-widget').getByText('This site is not allowed to use this referral program.').waitFor();
      await page.close();
    } finally {
      stranger.server.close();
    }
  });
});
