/**
 * The pages work under their Content-Security-Policy in a real Chromium: the demo page renders the widget,
 * /api/docs renders the API reference (Redoc, loading nothing from elsewhere, and passing axe at a phone's
 * width and a laptop's), and the classic-script bundle (fetched without CORS, so subject to
 * Cross-Origin-Resource-Policy) runs on another origin's page. No CSP violation is reported on any.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { seedIfEmpty } from '../../src/server/seed.js';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * axe-core's violations on the page as it is now, whatever their impact. `contrast: false` leaves out the
 * colour-contrast rule, most of axe's time on a page as large as the API reference: its colours are the
 * same at every width, so one width checks them.
 */
async function axeViolations(page: Page, { contrast = true } = {}): Promise<string[]> {
  // Evaluated, not injected as a script tag: the page's CSP rightly refuses inline scripts.
  await page.evaluate(axeSource);
  return page.evaluate(async (contrast) => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'], rules: { 'color-contrast': { enabled: contrast } } });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)).join(', ')}`);
  }, contrast);
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Opens a page (at `width` px) that records every console message and CSP violation. */
async function watchedPage(browser: Browser, width = 1280): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
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

  for (const width of [390, 1280]) {
    it(`/api/docs at ${width} px renders the operations and the webhook events, from this origin only, with no CSP or axe violation`, async () => {
      const { page, problems } = await watchedPage(browser, width);
      const elsewhere: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(`${service.url}/`) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
      });
      await page.goto(`${service.url}/api/docs`);
      // Operations of the interface, the admin routes and the last tag, and a webhook event (their titles are their summaries).
      for (const title of ['Add a participant to a campaign, optionally as a referral', 'Create a campaign', 'Readiness: the process can reach its database', 'referrer_added: ']) {
        await page.locator('h2', { hasText: title }).first().waitFor();
      }
      assert.deepEqual(await axeViolations(page, { contrast: width === 1280 }), []);
      assert.deepEqual(problems, []);
      assert.deepEqual(elsewhere, []);
    });
  }

  it('the classic-script bundle runs on another origin', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${shopUrl}/`);
    await page.locator('referral-widget').getByText('Get rewarded').waitFor();
    assert.deepEqual(problems, []);
  });
});
