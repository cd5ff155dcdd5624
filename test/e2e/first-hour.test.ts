/**
 * The first hour, as a new owner lives it from README and the docs pages alone: the demo (`npm start`'s
 * `refkit serve --demo`, in a fresh folder, so a fresh database), an owner made with the CLI, a campaign
 * made in the dashboard for the owner's own landing page, its embed code pasted there as copied, a
 * backend key and a webhook endpoint made in the dashboard, a referral through the widget on that page,
 * the backend's qualifying call (held for review: both visitors come from this machine; the answer says
 * so and the Review queue counts it), the approval, the signed events at the owner's receiver, and the
 * CSV export. Real processes (the built CLI), real browser (Debian's Chromium), SQLite as the demo runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../src/api/schemas.js';
import { cli, startProcess, type ServiceProcess } from '../server/helpers/process.js';
import { startReceiver, waitFor, type Receiver } from '../server/helpers/receiver.js';
import { confirm, launch } from './helpers/dashboard.js';

const OWNER = { email: 'owner@shop.example', password: 'correct horse battery staple' };

/** A port nothing listens on now: the demo's PUBLIC_URL must name the port it will listen on. */
function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) =>
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    }),
  );
}

/** The owner's own landing page: their HTML with the embed code pasted into it, as copied. */
function landingPage(snippet: () => string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The Shop</title></head>
      <body><main><h1>The Shop</h1><p>Tell a friend.</p>${snippet()}</main></body></html>`),
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

describe('the first hour', () => {
  let folder: string;
  let demo: ServiceProcess;
  let receiver: Receiver;
  let shop: { url: string; server: Server };
  let browser: Browser;
  let snippet = '';
  let env: Record<string, string>;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'refkit-first-hour-'));
    const port = await freePort();
    // What `npm start` runs, from a folder with no data yet: the default database, ./data/refkit.db.
    env = { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: '' };
    demo = await startProcess(env, ['--demo'], { cwd: folder });
    receiver = await startReceiver();
    shop = await landingPage(() => snippet);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await receiver?.close();
    await demo?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('demo, owner, campaign, own page, referral, qualify, review, webhook, export', async () => {
    // The demo: its banner names the demo page, which signs a visitor up.
    assert.match(demo.output(), /Demo page: +http:\/\/127\.0\.0\.1:\d+\/demo\//);
    const visitor = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const demoPage = await visitor.newPage();
    await demoPage.goto(`${demo.url}/demo/`);
    const demoWidget = demoPage.locator('referral-widget');
    await demoWidget.getByLabel('Email address').fill('first.visitor@example.com');
    await demoWidget.getByRole('button', { name: 'Get my referral link' }).click();
    await demoWidget.getByLabel('Your referral link', { exact: true }).waitFor();
    await visitor.close();

    // The owner, made with the CLI in the same folder (the same database), the password on stdin.
    const made = await cli(['user', 'create', OWNER.email, '--password-stdin'], env, { cwd: folder, input: `${OWNER.password}\n` });
    assert.equal(made.code, 0, made.stderr);

    // The dashboard at a desk: sign in, a campaign for the shop's own page, paid in euros.
    const desk = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: demo.url });
    await desk.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.url });
    const page = await desk.newPage();
    await page.goto('/admin/');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Friends of the Shop');
    await page.getByLabel('Landing page URL').fill(`${shop.url}/`);
    await page.getByLabel('Referrer reward').fill('20');
    await page.getByLabel('Referee reward').fill('10');
    await page.getByLabel('Currency').fill('EUR');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Embed on your site' }).waitFor();
    const campaignId = decodeURIComponent(/#\/campaigns\/([^/]+)$/.exec(page.url())![1]!);
    await page.getByRole('button', { name: 'Copy embed code' }).click();
    snippet = await page.evaluate(() => navigator.clipboard.readText());

    // A key for the shop's backend, and a webhook endpoint at the shop's receiver.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('shop backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.notice code').textContent())!;
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const signingSecret = (await page.locator('.notice code').textContent())!;
    assert.match(signingSecret, /^whsec_/);

    // The shop's page with the pasted code: Ann signs up there and gets her link.
    const ann = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const annPage = await ann.newPage();
    await annPage.goto(`${shop.url}/`);
    const annWidget = annPage.locator('referral-widget');
    await annWidget.getByLabel('Email address').fill('ann@example.com');
    await annWidget.getByRole('button', { name: 'Get my referral link' }).click();
    const link = await annWidget.getByLabel('Your referral link', { exact: true }).inputValue();
    assert.ok(link.startsWith(`${shop.url}/`), `the share link leads to the shop's page: ${link}`);

    // Ben opens Ann's link on his phone and signs up.
    const ben = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const benPage = await ben.newPage();
    await benPage.goto(link);
    const benWidget = benPage.locator('referral-widget');
    await benWidget.getByLabel('Email address').fill('ben@example.com');
    await benWidget.getByRole('button', { name: 'Claim my reward' }).click();
    await benWidget.locator('[part=card][data-state=signed-up]').waitFor();
    await ben.close();

    // Ben pays; the backend says so. Both visitors came from this machine, so the answer says the
    // rewards are held for review rather than crediting nothing in silence.
    const api = `${demo.url}/api/v1`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const qualified = await fetch(`${api}/qualifyParticipant`, { method: 'POST', headers, body: JSON.stringify({ id: campaignId, email: 'ben@example.com', amountPaid: '49.00' }) });
    assert.equal(qualified.status, 200);
    const answer = (await qualified.json()) as { held?: boolean; heldReason?: string };
    assert.equal(answer.held, true);
    assert.ok(answer.heldReason, 'the reason it was held');

    // The Review queue shows its count; the owner approves Ben, which credits the referral.
    await page.goto(`/admin/#/campaigns/${encodeURIComponent(campaignId)}`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Participants (1 sign-up held for review)' }).click();
    await page.getByRole('button', { name: 'Review queue 1' }).click();
    await page.getByRole('row', { name: /ben@example\.com/ }).getByRole('button', { name: 'Approve' }).click();
    await confirm(page, 'Approve');
    await page.getByText('ben@example.com approved.').waitFor();

    // Ann comes back: one referral and her €20.
    await annPage.reload();
    await annWidget.locator('[part=referrals] li').first().waitFor();
    assert.equal(await annWidget.locator('[data-stat=referral-balance]').innerText(), '€20');
    await ann.close();

    // The shop's receiver: every event, signed with the secret the dashboard showed once.
    const wh = new Webhook(signingSecret);
    const events = await waitFor(() => (receiver.received.length >= 4 ? receiver.received : undefined), 'four deliveries');
    assert.deepEqual(
      events.map((x) => wh.verify(x.body, x.headers as Record<string, string>) as WebhookEvent).map((e) => `${e.eventType} ${e.data.email}`).sort(),
      ['referee_added ben@example.com', 'referrer_added ann@example.com', 'reward_unlocked ann@example.com', 'reward_unlocked ben@example.com'],
    );

    // The export: both people, Ben referred by Ann, and Ann's referral and reward.
    await page.goto(`/admin/#/campaigns/${encodeURIComponent(campaignId)}/participants`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const file = join(folder, 'export.csv');
    await download.saveAs(file);
    const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((r) => r.email).sort(), ['ann@example.com', 'ben@example.com']);
    const annRow = rows.find((r) => r.email === 'ann@example.com')!;
    assert.deepEqual([annRow.totalReferrals, annRow.referralReward], ['1', '20']);
    assert.equal(rows.find((r) => r.email === 'ben@example.com')!.referredByCode, annRow.referralCode);
    await desk.close();
  });
});
