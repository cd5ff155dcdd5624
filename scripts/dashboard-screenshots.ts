/**
 * Writes the dashboard screenshots of docs/dashboard.md (docs/dashboard-*.png, at 1280 and 390 px) from the real
 * service with seeded data and Debian's Chromium. Run: npm run build:dashboard && npm run build:widget &&
 * node --import tsx scripts/dashboard-screenshots.ts [name ...] (only those views, e.g. `emails`)
 */
import type { Page } from 'playwright-core';
import { DEFAULT_ACCOUNT } from '../src/server/kernel/context.js';
import { createOwner } from '../src/server/accounts/domain/owners.js';
import { RefkitClient } from '../src/api/client.js';
import { launch, seededService, signedIn } from '../test/e2e/helpers/dashboard.js';

const seeded = await seededService();
const browser = await launch();
const { service, campaignId } = seeded;
// The Team page's members: the seeded owner, an admin and a viewer.
await createOwner(service.ctx, 'sam@acme.example', 'a long admin passphrase', DEFAULT_ACCOUNT, 'admin');
await createOwner(service.ctx, 'lee@acme.example', 'a long viewer passphrase', DEFAULT_ACCOUNT, 'viewer');
const id = encodeURIComponent(campaignId);
// Test mode: a test key, a test campaign whose referral's credits are held 30 days, and a test endpoint.
const testKey = new RefkitClient({ baseUrl: service.url, secretKey: (await service.admin.createApiKey('CI (test)', true)).key });
const testId = (
  await testKey.createCampaign({ campaignName: 'Spring (test)', hostURL: 'https://acme.example/try', referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', holdDays: 30 })
).campaignId!;
const tester = await testKey.addParticipant({ id: testId, email: 'ann@example.com' });
await testKey.addParticipant({ id: testId, email: 'ben@example.com', referredByCode: tester.referralCode! });
await testKey.qualifyParticipant({ id: testId, email: 'ben@example.com' });
await testKey.createWebhookEndpoint({ url: `${seeded.receiver.url}/test`, eventTypes: ['reward_unlocked', 'reward_reversed'] });
// Fraud cases for the Fraud page, held by the fraud controls themselves: referees of Ava's on the
// campaign's blocklist, and one of Ben's past a limit (the seeded history is credited already).
const ava = await service.admin.getParticipant(campaignId, 'ava.0@example.com');
await service.admin.updateCampaign({ id: campaignId, blocklist: { domains: ['mailinator.example'] } });
for (const email of ['deals.hunter@mailinator.example', 'free.stuff@mailinator.example']) {
  await service.admin.addParticipant({ id: campaignId, email, referredByCode: ava.referralCode! });
  await service.admin.qualifyParticipant({ id: campaignId, email, amountPaid: '19.00' });
}
const ben = await service.admin.getParticipant(campaignId, 'ben.1@example.com');
await service.admin.updateCampaign({ id: campaignId, autoApprove: { maxRewardsPerDay: 2 } });
for (const email of ['lou@example.net', 'max@example.net', 'ned@example.net']) {
  await service.admin.addParticipant({ id: campaignId, email, referredByCode: ben.referralCode! });
  await service.admin.qualifyParticipant({ id: campaignId, email, amountPaid: '29.00' });
}
await service.admin.updateCampaign({ id: campaignId, autoApprove: null });
/** Turns the sidebar's switch on: kept by the browser, so the views after it are in test mode too (they come last). */
const testMode = (p: Page) => p.getByRole('switch', { name: 'Test mode' }).check();

const only = process.argv.slice(2);
const ALL_VIEWS: [string, string, (page: Page) => Promise<void>][] = [
  ['campaigns', '#/campaigns', (p) => p.getByRole('link', { name: 'Acme Notes launch' }).waitFor()],
  ['campaign', `#/campaigns/${id}`, (p) => p.getByRole('heading', { name: 'Live preview' }).waitFor()],
  ['participants', `#/campaigns/${id}/participants`, (p) => p.getByRole('link', { name: /@example/ }).first().waitFor()],
  ['participant', `#/campaigns/${id}/participants/ava.0%40example.com`, (p) => p.getByRole('heading', { name: 'Fraud signals' }).waitFor()],
  // The erasure's confirmation, the email typed: the one screenshot of a dialog (of the viewport, where it shows).
  ['erase', `#/campaigns/${id}/participants/ava.0%40example.com`, async (p) => {
    await p.getByRole('button', { name: 'Erase' }).click();
    await p.getByLabel(/to confirm/).fill('ava.0@example.com');
  }],
  // The rules editor's offer backtest, run on an edited (unsaved) referrer reward.
  ['backtest', `#/campaigns/${id}`, async (p) => {
    await p.getByLabel('Referrer reward').fill('20');
    await p.getByRole('button', { name: 'What would this have cost?' }).click();
    await p.getByRole('button', { name: 'Run the backtest' }).click();
    await p.getByRole('table', { name: 'Backtest, per month' }).waitFor();
    await p.getByRole('heading', { name: 'What would this have cost?' }).scrollIntoViewIfNeeded();
  }],
  ['fraud', `#/campaigns/${id}/fraud`, (p) => p.getByRole('region', { name: /ava\.0@example\.com/ }).waitFor()],
  ['analytics', `#/campaigns/${id}/analytics`, (p) => p.locator('canvas').first().waitFor()],
  ['billing', `#/campaigns/${id}/billing`, async (p) => {
    await p.getByRole('button', { name: /^Match/ }).first().waitFor();
    await p.getByRole('button', { name: /^Retry payout/ }).first().waitFor();
  }],
  [
    'emails',
    `#/campaigns/${id}/emails`,
    async (p) => {
      await p.frameLocator('iframe').getByText('Welcome to Acme Notes launch').first().waitFor();
      // Chromium paints a frame below the fold only once it has been in view.
      await p.locator('iframe').scrollIntoViewIfNeeded();
    },
  ],
  ['webhooks', '#/webhooks', (p) => p.getByRole('button', { name: 'Redeliver' }).first().waitFor()],
  ['keys', '#/keys', (p) => p.getByRole('button', { name: /^Revoke/ }).first().waitFor()],
  ['team', '#/team', (p) => p.getByRole('cell', { name: 'lee@acme.example', exact: true }).waitFor()],
  ['audit', '#/audit', (p) => p.getByRole('cell', { name: 'createCampaign' }).first().waitFor()],
  ['retention', '#/settings/retention', (p) => p.getByLabel('Email log').waitFor()],
  // Test mode: the test campaigns (banner, badges), then a test campaign's clock advanced past its 30-day hold.
  ['test-mode', '#/campaigns', async (p) => {
    await testMode(p);
    await p.getByRole('link', { name: 'Spring (test)' }).waitFor();
  }],
  ['clock', `#/campaigns/${encodeURIComponent(testId)}`, async (p) => {
    await testMode(p);
    const panel = p.getByRole('region', { name: 'Clock' });
    await panel.getByRole('button', { name: '+30 days' }).click();
    await panel.getByText(/Clock advanced/).waitFor();
  }],
];
const VIEWS = only.length === 0 ? ALL_VIEWS : ALL_VIEWS.filter(([name]) => only.includes(name));

try {
  for (const width of [1280, 390]) {
    const { page, context } = await signedIn(browser, service.url, width);
    for (const [name, hash, ready] of VIEWS) {
      await page.goto(`/admin/${hash}`);
      await ready(page);
      await page.waitForTimeout(300);
      await page.screenshot({ path: `docs/dashboard-${name}-${width}.png`, fullPage: name !== 'erase' && (width !== 390 || name !== 'participants') });
      process.stdout.write(`docs/dashboard-${name}-${width}.png\n`);
    }
    await context.close();
  }
  if (only.length === 0 || only.includes('sign-in')) {
    const { page, context } = await signedIn(browser, service.url, 1280);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.screenshot({ path: 'docs/dashboard-sign-in-1280.png' });
    await context.close();
  }
} finally {
  await browser.close();
  await seeded.close();
}
