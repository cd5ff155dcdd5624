/**
 * The whole journey in a real browser: an owner creates a campaign with a webhook; visitor A signs up on
 * a shop's landing page; the QR code, decoded from a screenshot, is A's link tagged with its channel
 * (utm_medium=qr); visitor B opens it in a new browser context and signs up with it (the utm go with the
 * sign-up); the backend qualifies B; A reloads and sees one referral and the
 * reward in the campaign's currency; the receiver got the three event types, signatures valid. axe-core
 * finds no serious or critical violation in any state. Also: the bundles are served compressed and
 * cached as docs/widget.md says. Real service (SQLite) with its dispatcher, built bundle, Debian's Chromium.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import jsQRModule from 'jsqr';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../src/api/schemas.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from '../server/helpers/receiver.js';
import { startService, type TestService } from '../server/helpers/service.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// jsqr is CommonJS whose typings declare an ES default export: under NodeNext the default import is the module.
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function landingPage(serviceUrl: string, campaignId: () => string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
      <script type="module" src="${serviceUrl}/widget/referral-widget.js"></script></head>
      <body><main><h1>Shop</h1><referral-widget campaign-id="${campaignId()}" first-name></referral-widget></main></body></html>`),
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

/** axe-core on the widget (shadow DOM included): the serious and critical violations, by rule. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; impact: string }[] }> } }).axe;
    const { violations } = await axe.run({ include: [['referral-widget']] });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact})`);
  });
}

/** The QR code as the screen shows it: a screenshot, decoded by the page's canvas into pixels, read by jsQR. */
async function qrFromScreenshot(page: Page): Promise<string | undefined> {
  const png = await page.locator('referral-widget [part=qr]').screenshot();
  const { data, width, height } = await page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const pixels = g.getImageData(0, 0, canvas.width, canvas.height);
    return { data: Array.from(pixels.data), width: pixels.width, height: pixels.height };
  }, `data:image/png;base64,${png.toString('base64')}`);
  return jsQR(Uint8ClampedArray.from(data), width, height)?.data;
}

describe('the journey, in Chromium', () => {
  let service: TestService;
  let receiver: Receiver;
  let browser: Browser;
  let shop: { url: string; server: Server };
  let campaignId = '';
  let signingSecret = '';

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!, { dispatcher: { retryDelaysMs: [100, 100], timeoutMs: 2000, pollMs: 50, leaseMs: 5000 } });
    receiver = await startReceiver();
    shop = await landingPage(service.url, () => campaignId);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await receiver?.close();
    await service?.close();
  });

  it('owner, referrer, friend, backend: one referral, the reward in euros, three signed events, accessible throughout', async () => {
    // The owner: a campaign for the shop's page, paid in euros, and a webhook for every event.
    const campaign = await service.admin.createCampaign({
      campaignName: 'Spring (internal)',
      hostURL: `${shop.url}/`,
      referrerRewardValue: 10,
      refereeRewardValue: 5,
      rewardType: 'credit',
      rewardCurrency: 'EUR',
      rewardHeader: 'Give €5, get €10',
      shareMessages: { whatsapp: 'Try the shop with my link: {link}' },
    });
    campaignId = campaign.campaignId!;
    signingSecret = (await service.admin.createWebhookEndpoint({ url: receiver.url, eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] })).secret;

    // Visitor A signs up.
    const a = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const pageA = await a.newPage();
    await pageA.goto(`${shop.url}/`);
    const widgetA = pageA.locator('referral-widget');
    await widgetA.getByLabel('Email address').waitFor();
    assert.deepEqual(await axeViolations(pageA), [], 'sign-up form');
    await widgetA.getByLabel('First name').fill('Ann');
    await widgetA.getByLabel('Email address').fill('ann@example.com');
    await widgetA.getByRole('button', { name: 'Get my referral link' }).click();
    await widgetA.locator('[part=qr] svg').waitFor();
    const link = await widgetA.getByLabel('Your referral link', { exact: true }).inputValue();
    assert.equal(link, (await service.admin.getParticipant(campaignId, 'ann@example.com')).shareLink);
    const viaQr = new URL(link);
    viaQr.searchParams.set('utm_source', 'refkit');
    viaQr.searchParams.set('utm_medium', 'qr');
    assert.equal(await qrFromScreenshot(pageA), viaQr.href, 'the QR code on screen is A\u2019s link, tagged with its channel');
    assert.match(await widgetA.locator('[data-target=whatsapp]').getAttribute('href') ?? '', /Try\+the\+shop\+with\+my\+link/);
    assert.deepEqual(await axeViolations(pageA), [], 'share view');

    // Visitor B scans A's QR code, opens its link in a browser of their own and signs up.
    const b = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const pageB = await b.newPage();
    await pageB.goto(viaQr.href);
    const widgetB = pageB.locator('referral-widget');
    await widgetB.getByText('You were invited. Your reward: €5.').waitFor();
    assert.deepEqual(await axeViolations(pageB), [], 'invited form');
    await widgetB.getByLabel('First name').fill('Ben');
    await widgetB.getByLabel('Email address').fill('ben@example.com');
    const signup = pageB.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/addParticipant');
    await widgetB.getByRole('button', { name: 'Claim my reward' }).click();
    const answer = await signup;
    assert.equal(answer.ok(), true, `the service takes the sign-up with its channel: ${answer.status()}`);
    assert.deepEqual((answer.request().postDataJSON() as { utm?: unknown }).utm, { source: 'refkit', medium: 'qr' });
    await widgetB.locator('[part=card][data-state=signed-up]').waitFor();
    const analytics = await service.admin.getCampaignAnalytics(campaignId);
    assert.deepEqual([analytics.channels, analytics.sources], [[{ value: 'qr', signups: 1, qualified: 0 }], [{ value: 'refkit', signups: 1, qualified: 0 }]], 'B counts for the QR code');
    await b.close();

    // Both visitors come from this one machine (one network), which the fraud rules hold for review:
    // the owner approves B, then the shop's backend reports that B started a plan.
    await service.admin.approveParticipant(campaignId, 'ben@example.com');
    await service.admin.qualifyParticipant({ id: campaignId, email: 'ben@example.com', amountPaid: '20' });

    // A comes back: one referral, qualified, and the reward in euros.
    await pageA.reload();
    await widgetA.locator('[part=referrals] li').first().waitFor();
    assert.equal(await widgetA.locator('[data-stat=referrals]').innerText(), '1');
    assert.equal(await widgetA.locator('[data-stat=referral-earned]').innerText(), '€10');
    assert.match((await widgetA.locator('[part=referrals] li').innerText()).replace(/\s+/g, ' '), /^Ben Reward earned /);
    assert.equal(await widgetA.getByText('Spring (internal)').count(), 0, 'the internal name is never shown');
    assert.deepEqual(await axeViolations(pageA), [], 'share view with a referral');

    // Paused: A keeps link, referrals and balances.
    await service.admin.setCampaignStatus(campaignId, 'Pause');
    await pageA.reload();
    await widgetA.locator('[data-campaign-state=paused]').waitFor();
    assert.equal(await widgetA.locator('[data-stat=referral-earned]').innerText(), '€10');
    assert.deepEqual(await axeViolations(pageA), [], 'paused participant');
    await a.close();

    // The receiver: each event type, signed with the endpoint's secret.
    const events = await waitFor(() => (receiver.received.length >= 4 ? receiver.received : undefined), 'four deliveries');
    const wh = new Webhook(signingSecret);
    const verified = events.map((x) => wh.verify(x.body, x.headers as Record<string, string>) as WebhookEvent);
    assert.deepEqual(
      verified.map((e) => `${e.eventType} ${e.data.email}`).sort(),
      ['referee_added ben@example.com', 'referrer_added ann@example.com', 'reward_unlocked ann@example.com', 'reward_unlocked ben@example.com'],
    );
  });

  it('serves the bundles compressed: brotli or gzip, hashed chunks cached for a year, the entry for minutes', async () => {
    const entry = await fetch(`${service.url}/widget/referral-widget.js`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(entry.headers.get('content-encoding'), 'br');
    assert.equal(entry.headers.get('cache-control'), 'public, max-age=300');
    const code = await entry.text();
    const chunk = /["'`]\.\/(chunks\/share-view-[\w-]+\.js)["'`]/.exec(code)?.[1];
    assert.ok(chunk, 'the entry names the share view chunk');
    const gz = await fetch(`${service.url}/widget/${chunk}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal(gz.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(gz.headers.get('access-control-allow-origin'), '*');
  });
});
