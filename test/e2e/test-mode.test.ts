/**
 * The dashboard's Test mode (docs/testing-mode.md, "From the dashboard") end to end: real service on SQLite,
 * the built dashboard, Chromium, at 1280 and 390 px. The switch (kept per browser) changes what the Campaigns,
 * API keys and Webhooks pages list, and what they create (checked through the API); a test campaign's Clock
 * panel advances its time, releasing a held reward the panel then shows, and says the service's refusals;
 * a live campaign has no clock panel; axe finds nothing serious.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RefkitClient } from '../../src/api/client.js';
import { reward } from '../../src/dashboard/format.js';
import { DAY, launch, overflowsSideways, seededService, seriousViolations, signedInTask, type Seeded } from './helpers/dashboard.js';

const USD = { rewardType: 'credit', rewardCurrency: 'USD' };
const HOLD = { hostURL: 'https://acme.example/try', referrerRewardValue: 10, refereeRewardValue: 5, ...USD, holdDays: 30 };

/** Turns the sidebar's switch on or off and waits for the banner to say so. */
async function switchTestMode(page: Page, on: boolean): Promise<void> {
  const toggle = page.getByRole('switch', { name: 'Test mode' });
  if (on) await toggle.check();
  else await toggle.uncheck();
  await page.getByRole('note', { name: 'Test mode' }).waitFor({ state: on ? 'visible' : 'detached' });
}

/** The rows of the page's first table body: what a list shows. */
const rows = (page: Page) => page.locator('tbody').first().locator('tr');
/** How many rows of the list lack the "Test" badge (live ones). */
const unbadged = (page: Page) => rows(page).filter({ hasNot: page.getByText('Test', { exact: true }) }).count();

describe('dashboard: test mode', () => {
  let seeded: Seeded;
  let browser: Browser;
  /** A test key's client: it sees test campaigns only. */
  let testKey: RefkitClient;

  before(async () => {
    seeded = await seededService(10);
    browser = await launch();
    const { admin } = seeded.service;
    testKey = new RefkitClient({ baseUrl: seeded.service.url, secretKey: (await admin.createApiKey('ci tests', true)).key });
    await testKey.createCampaign({ campaignName: 'Hold rehearsal', ...HOLD });
    await testKey.createWebhookEndpoint({ url: `${seeded.receiver.url}/test-hooks`, eventTypes: ['reward_unlocked'] });
  });
  after(async () => {
    await browser?.close();
    await seeded?.close();
  });

  // Each flow runs once: the switch is clicked in the phone's top row in the first and in the sidebar in
  // the second; the pages' width and axe are checked at both widths where the flows check them.
  it('at 1280 and 390 px: the switch changes the lists, is kept by the browser, and what is created is of its mode', () =>
    signedInTask(browser, seeded.service.url, 390, async ({ page }) => {
      const { admin } = seeded.service;
      // Live: the live campaigns, no test one, no banner.
      await page.getByRole('link', { name: 'Acme Notes launch' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Hold rehearsal' }).count(), 0);
      assert.equal(await page.getByRole('note', { name: 'Test mode' }).count(), 0);

      // The switch in the phone's top row, then the lists at 1280 px.
      await switchTestMode(page, true);
      await page.getByRole('link', { name: 'Hold rehearsal' }).waitFor();
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.equal(await page.getByRole('link', { name: 'Acme Notes launch' }).count(), 0);
      assert.equal(await rows(page).filter({ hasText: 'Hold rehearsal' }).getByText('Test', { exact: true }).count(), 1);
      assert.equal(await page.getByRole('switch', { name: 'Test mode' }).isChecked(), true);
      // Kept by the browser: a reload is still in test mode.
      await page.reload();
      await page.getByRole('link', { name: 'Hold rehearsal' }).waitFor();
      assert.equal(await page.getByRole('switch', { name: 'Test mode' }).isChecked(), true);
      assert.equal(await page.getByRole('link', { name: 'Acme Notes launch' }).count(), 0);

      // API keys: the test key only; a key created now is a test key.
      await page.goto('/admin/#/keys');
      await page.getByRole('heading', { name: 'Create a test key' }).waitFor();
      await rows(page).filter({ hasText: 'ci tests' }).waitFor();
      assert.equal(await unbadged(page), 0, 'no live key listed');
      await page.getByLabel('Name').fill('dash key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = await page.getByRole('status').locator('.secret code').textContent();
      assert.match(shown ?? '', /^sk_test_/);
      const made = (await testKey.listApiKeys()).find((k) => k.name === 'dash key');
      assert.equal(made?.test, true);
      await rows(page).filter({ hasText: 'dash key' }).getByText('Test', { exact: true }).waitFor();

      // Webhooks: the test endpoint only; one added now is a test endpoint.
      await page.goto('/admin/#/webhooks');
      await page.getByRole('heading', { name: 'Add a test endpoint' }).waitFor();
      await rows(page).filter({ hasText: '/test-hooks' }).waitFor();
      assert.equal(await unbadged(page), 0, 'no live endpoint listed');
      await page.getByLabel('Endpoint URL').fill(`${seeded.receiver.url}/dash-hooks`);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Endpoint added.').waitFor();
      const endpoint = (await testKey.listWebhookEndpoints()).find((e) => e.url === `${seeded.receiver.url}/dash-hooks`);
      assert.equal(endpoint?.test, true);
      await rows(page).filter({ hasText: '/dash-hooks' }).getByText('Test', { exact: true }).waitFor();

      // A campaign created now is a test campaign, with its clock.
      await page.goto('/admin/#/campaigns/new');
      await page.getByRole('heading', { name: 'New test campaign', level: 1 }).waitFor();
      await page.getByLabel('Campaign name').fill('Rehearsal run');
      await page.getByLabel('Landing page URL').fill('https://acme.example/rehearsal');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Rehearsal run', level: 1 }).waitFor();
      await page.getByRole('region', { name: 'Clock' }).waitFor();
      const created = (await testKey.listCampaigns()).find((c) => c.campaignName === 'Rehearsal run');
      assert.equal(created?.test, true);
      assert.equal((await admin.listCampaigns()).some((c) => c.campaignName === 'Rehearsal run'), false, 'not a live campaign');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);
      }

      // Off again: a test campaign on screen gives way to the live list.
      await switchTestMode(page, false);
      await page.getByRole('link', { name: 'Acme Notes launch' }).waitFor();
      assert.equal(await page.getByRole('link', { name: /Rehearsal|Hold rehearsal/ }).count(), 0);
      await page.goto('/admin/#/keys');
      await page.getByRole('heading', { name: 'Create a key' }).waitFor();
      await rows(page).first().waitFor();
      assert.equal(await rows(page).filter({ hasText: 'ci tests' }).count(), 0);
      await page.getByLabel('Name').fill('live key');
      await page.getByRole('button', { name: 'Create key' }).click();
      assert.match((await page.getByRole('status').locator('.secret code').textContent()) ?? '', /^sk_live_/);
      assert.equal((await admin.listApiKeys()).find((k) => k.name === 'live key')?.test, false);
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);
      }
    }));

  it("at 1280 and 390 px: a test campaign's clock advances past a hold, the released reward shows, refusals are said; a live campaign has no clock", () =>
    signedInTask(browser, seeded.service.url, 1280, async ({ page }) => {
      // A referral whose two credits ($10 and $5) are held 30 days.
      const id = (await testKey.createCampaign({ campaignName: 'Clock campaign', ...HOLD })).campaignId!;
      const ann = await testKey.addParticipant({ id, email: 'ann@example.com' });
      await testKey.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await testKey.qualifyParticipant({ id, email: 'ben@example.com' });

      await switchTestMode(page, true);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      const panel = page.getByRole('region', { name: 'Clock' });
      const value = (term: string) => panel.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]');
      await value('Held rewards').filter({ hasText: reward(15, USD) }).waitFor();
      assert.equal(await value('Available rewards').textContent(), reward(0, USD));
      assert.equal(await value('Ahead of real time').textContent(), 'Not moved: the real time');

      // Refusals: a time not ahead of the campaign's, and one past 5 years; the clock stays where it is.
      await panel.getByLabel('Advance to').fill('2020-01-01T00:00');
      await panel.getByRole('button', { name: 'Advance', exact: true }).click();
      await panel.getByRole('alert').getByText(/A clock moves forward only/).waitFor();
      await panel.getByLabel('Advance to').fill(`${new Date().getFullYear() + 6}-01-01T00:00`);
      await panel.getByRole('button', { name: 'Advance', exact: true }).click();
      await panel.getByRole('alert').getByText(/at most 1830 days ahead/).waitFor();
      assert.equal((await testKey.getCampaignClock(id)).offsetMs, 0);
      assert.equal((await testKey.getParticipant(id, 'ann@example.com')).referralReward, 0);

      // +30 days: past the hold, both credits are released, and the panel shows them available.
      await panel.getByRole('group', { name: 'Advance clock by' }).getByRole('button', { name: '+30 days' }).click();
      await panel.getByRole('status').getByText(/Clock advanced/).waitFor();
      assert.equal(await panel.getByRole('alert').count(), 0);
      await value('Available rewards').filter({ hasText: reward(15, USD) }).waitFor();
      assert.equal(await value('Held rewards').textContent(), reward(0, USD));
      assert.equal(await value('Ahead of real time').textContent(), '30 days');
      const clock = await testKey.getCampaignClock(id);
      assert.ok(clock.offsetMs > 30 * DAY - 60_000 && clock.offsetMs <= 30 * DAY, `offset ${clock.offsetMs}`);
      assert.equal((await testKey.getParticipant(id, 'ann@example.com')).referralReward, 10);
      // The date input: to a chosen moment, 2 days past the campaign's time.
      const to = new Date(Date.parse(clock.now) + 2 * DAY + 3_600_000);
      const local = new Date(to.getTime() - to.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      await panel.getByLabel('Advance to').fill(local);
      await panel.getByRole('button', { name: 'Advance', exact: true }).click();
      await value('Ahead of real time').filter({ hasText: /^32 days/ }).waitFor();
      assert.equal((await testKey.getCampaignClock(id)).now.slice(0, 16), new Date(Date.parse(local)).toISOString().slice(0, 16));
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);
      }

      // A live campaign's page: no clock.
      await switchTestMode(page, false);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(seeded.campaignId)}`);
      await page.getByRole('heading', { name: 'Acme Notes launch', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Live preview' }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'Clock' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: '+30 days' }).count(), 0);
    }));
});
