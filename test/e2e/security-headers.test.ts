/**
 * The pages work under their Content-Security-Policy in a real Chromium: the demo page renders the widget,
 * /api/docs renders swagger-ui, and the classic-script bundle (fetched without CORS, so subject to
 * Cross-Origin-Resource-Policy) runs on another origin's page. No CSP violation is reported on any.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { seedIfEmpty } from '../../src/server/seed.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Opens a page that records every console message and CSP violation. */
async function watchedPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content[- ]Security[- ]Policy|Refused to/i.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, problems };
}

describe('pages under their security headers', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Server;
  let shopUrl: string;
  let campaignId: string;

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!, { demo: true });
    // The demo page embeds the campaign "demo", as `npm start` seeds it into an empty database.
    await seedIfEmpty(service.ctx, service.url);
    campaignId = await service.campaign({ rewardHeader: 'Get rewarded' });
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
      <script src="${service.url}/widget/referral-widget.iife.js"></script></head>
      <body><referral-widget campaign-id="${campaignId}"></referral-widget></body></html>`;
    shop = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    await service.admin.updateCampaign({ id: campaignId, hostURL: `${shopUrl}/` });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.close();
    await service?.close();
  });

  it('the demo page signs a visitor up with no CSP violation', async () => {
    const { page, problems } = await watchedPage(browser);
    const res = await page.goto(`${service.url}/demo/`);
    assert.match(res!.headers()['content-security-policy']!, /script-src 'self'/);
    const widget = page.locator('referral-widget');
    await widget.getByText('Give $5, get $10').waitFor();
    await widget.getByLabel('Email address').fill('csp@example.com');
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.locator('[part=qr] svg').waitFor();
    assert.deepEqual(problems, []);
  });

  it('/api/docs renders swagger-ui with no CSP violation', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${service.url}/api/docs/`);
    await page.getByText('/api/v1/addParticipant').first().waitFor();
    assert.deepEqual(problems, []);
  });

  it('the classic-script bundle runs on another origin', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${shopUrl}/`);
    await page.locator('referral-widget').getByText('Get rewarded').waitFor();
    assert.deepEqual(problems, []);
  });
});
