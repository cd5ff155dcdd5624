/**
 * The dashboard's cash payouts end to end (a real service on SQLite, the built dashboard, Chromium): the
 * owner turns cash payouts on in a campaign's Payouts page, makes a run with approval (the payouts made
 * and the participants skipped, with the reasons), approves a payout in the list and sees it sent and
 * paid (the service's sender runs here against the loopback PayPal of test/server/helpers/fake-paypal.ts,
 * written from PayPal's reference), downloads the run as CSV, and cancels another at a phone's width; a
 * campaign of points says why it cannot pay cash. On the Payout providers page the owner sets PayPal
 * sandbox credentials and sees them configured. Both pages at 390 and 1280 px: no axe violation of any
 * impact, nothing wider than the screen; screenshots to /tmp/payouts-{390,1280}.png.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { CashPayoutSender } from '../../src/server/payouts/domain/cash-payout-sender.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { FakePayPal } from '../server/helpers/fake-paypal.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { OWNER, confirm, launch, overflowsSideways, signedInTask } from './helpers/dashboard.js';

/** The live PayPal app the service pays live campaigns with: the fake's client. */
const LIVE = { clientId: 'acme-live-app', clientSecret: 'acme-live-secret' };

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** axe-core's violations of every impact (minor ones too) on the page as it is now. */
async function violations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run(document);
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

/** A screenshot of the whole page: the viewport made as tall as the page first (the sidebar is as tall as the viewport). */
async function shoot(page: Page, path: string): Promise<void> {
  const { width, height } = page.viewportSize()!;
  await page.setViewportSize({ width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
  await page.screenshot({ path });
  await page.setViewportSize({ width, height });
}

async function fitsAndPasses(page: Page, what: string): Promise<void> {
  assert.deepEqual(await violations(page), [], `axe on ${what}`);
  assert.equal(await overflowsSideways(page), false, `${what} is wider than the screen`);
}

/** The Payout providers page at `width`: at 1280 px PayPal sandbox credentials are saved, at 390 px tax settings. */
async function providerSettings(page: Page, settled: () => Promise<void>, width: number, service: TestService, paypal: FakePayPal): Promise<void> {
  const { id: accountId } = await service.admin.getAccountSettings();
  await page.goto('/admin/#/settings/payouts');
  await page.getByRole('heading', { name: 'Payout providers', level: 1 }).waitFor();
  await page.getByText(`${service.url}/api/v1/integrations/paypal/${accountId}`, { exact: true }).waitFor();
  await page.getByText(`${service.url}/api/v1/integrations/stripe-connect/${accountId}`, { exact: true }).waitFor();
  const live = page.getByRole('region', { name: 'PayPal', exact: true });
  await live.getByText('configured', { exact: true }).waitFor();
  assert.equal(await live.getByLabel('Client ID').inputValue(), LIVE.clientId);

  const sandbox = page.getByRole('region', { name: 'PayPal sandbox' });
  const clientId = `sandbox-app-${width}`;
  if (width === 1280) {
    await sandbox.getByText('not configured', { exact: true }).waitFor();
    await sandbox.getByLabel('Client ID').fill(clientId);
    await sandbox.getByLabel('Client secret').fill('sandbox-secret-0123');
    await sandbox.getByLabel('Webhook ID').fill('8PT597110X687430LKGECATA');
    await sandbox.getByRole('button', { name: 'Save PayPal sandbox credentials' }).click();
    await sandbox.getByText('PayPal sandbox credentials saved.').waitFor();
    await sandbox.getByText('configured', { exact: true }).waitFor();
    await sandbox.getByText('set', { exact: true }).waitFor();
    assert.equal(await sandbox.getByLabel('Client secret').inputValue(), '', 'the secret is not kept in the page');
    const saved = await service.admin.getAccountSettings();
    assert.deepEqual(saved.paypalSandbox, { clientId, webhookId: '8PT597110X687430LKGECATA', clientSecretConfigured: true });
    assert.deepEqual(saved.paypal, { clientId: LIVE.clientId, webhookId: paypal.webhookId, clientSecretConfigured: true }, 'the live app is untouched');
  } else {
    await sandbox.getByText('configured', { exact: true }).waitFor();
    assert.equal(await sandbox.getByLabel('Client ID').inputValue(), 'sandbox-app-1280');
    // Tax: a threshold for next year beside the default one, and records kept 8 years.
    const tax = page.getByRole('region', { name: 'Tax details' });
    assert.equal(await tax.getByLabel('Year 1', { exact: true }).inputValue(), '2026');
    await tax.getByRole('button', { name: 'Add a year' }).click();
    await tax.getByLabel('Year 2', { exact: true }).fill('2027');
    await tax.getByLabel('Threshold of year 2, USD').fill('2500');
    await tax.getByLabel('Keep tax details and payout records').fill('8');
    await tax.getByRole('button', { name: 'Save tax settings' }).click();
    await tax.getByText('Tax settings saved.').waitFor();
    assert.deepEqual((await service.admin.getAccountSettings()).tax, { thresholds: { '2026': 2000, '2027': 2500 }, retentionYears: 8 });
    // A live Stripe key for test campaigns: the service's refusal, said beside the field; nothing is saved.
    const stripeTest = page.getByRole('region', { name: 'Stripe Connect test' });
    await stripeTest.getByLabel('Secret key').fill('sk_live_refkitConnect0123456789');
    await stripeTest.getByRole('button', { name: 'Save Stripe Connect test keys' }).click();
    await stripeTest.getByRole('alert').getByText(/it must be a test key/).waitFor();
    assert.equal(await stripeTest.getByLabel('Secret key').getAttribute('aria-invalid'), 'true');
    assert.equal((await service.admin.getAccountSettings()).stripeTest, null);
    // The live app's webhook id changed alone: the secret, left empty, stays.
    assert.equal(await live.getByLabel('Client secret').getAttribute('placeholder'), 'Leave empty to keep it');
    await live.getByLabel('Webhook ID').fill('WH-CHANGED-390');
    await live.getByRole('button', { name: 'Save PayPal credentials' }).click();
    await live.getByText('PayPal credentials saved.').waitFor();
    assert.deepEqual((await service.admin.getAccountSettings()).paypal, { clientId: LIVE.clientId, webhookId: 'WH-CHANGED-390', clientSecretConfigured: true });
  }
  await settled();
  await fitsAndPasses(page, `Payout providers at ${width} px`);
  await shoot(page, `/tmp/payout-providers-${width}.png`);
}

describe('dashboard: cash payouts', () => {
  let service: TestService;
  let browser: Browser;
  let paypal: FakePayPal;
  let sender: CashPayoutSender;
  let id: string;
  let points: string;

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!);
    paypal = await new FakePayPal().allowClient(LIVE.clientId, LIVE.clientSecret).start();
    // The service's PayPal calls go to the fake (PAYPAL_API_URL); the sender is driven by hand below.
    service.ctx.payouts = { publicUrl: service.url, paypalApiUrl: paypal.baseUrl };
    sender = new CashPayoutSender(service.ctx, { statusPollMs: 0, retryDelaysMs: [60_000], timeoutMs: 5000 });
    await createOwner(service.ctx, OWNER.email, OWNER.password);
    const { admin } = service;
    await admin.updateAccountSettings({ paypal: { ...LIVE, webhookId: paypal.webhookId } });
    id = (await admin.createCampaign({ campaignName: 'Acme cash rewards', hostURL: 'https://acme.example/cash', referrerRewardValue: 20, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD' })).campaignId!;
    points = (await admin.createCampaign({ campaignName: 'Acme points', hostURL: 'https://acme.example/points', referrerRewardValue: 100, rewardType: 'points' })).campaignId!;
    // Ann refers Ben and Cy ($40 for her, $5 each for them); Ben refers Dee ($20 more for him, so $25).
    const ann = await admin.addParticipant({ id, email: 'ann@example.com' });
    for (const email of ['ben@example.com', 'cy@example.com']) {
      await admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
      await admin.qualifyParticipant({ id, email });
    }
    const ben = await admin.getParticipant(id, 'ben@example.com');
    await admin.addParticipant({ id, email: 'dee@example.com', referredByCode: ben.referralCode! });
    await admin.qualifyParticipant({ id, email: 'dee@example.com' });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await sender?.stop();
    await service?.close();
    await paypal?.stop();
  });

  it('at 1280 px: cash payouts turned on, a run made with approval (made and skipped, with reasons), one approved, sent and paid; the run as CSV; PayPal sandbox credentials set', () =>
    signedInTask(browser, service.url, 1280, async ({ page, settled }) => {
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Acme cash rewards', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts', exact: true }).click();
      await page.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
      const settings = page.getByRole('region', { name: 'Cash payouts' });
      await settings.getByText('off', { exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Make a payout run' }).count(), 0, 'no run without cash payouts');

      await settings.getByLabel('Pay rewards in cash').check();
      await settings.getByLabel(/By PayPal/).waitFor();
      assert.equal(await settings.getByLabel(/By PayPal/).isChecked(), true);
      await settings.getByLabel('Minimum payout').fill('10');
      assert.equal(await settings.getByLabel('Approve each payout before it is sent').isChecked(), true);
      await settings.getByRole('button', { name: 'Save cash payouts' }).click();
      await settings.getByText(/Saved\. Make runs from this page; each payout waits for your approval/).waitFor();
      assert.deepEqual((await service.admin.listCampaigns()).find((c) => c.campaignId === id)?.cashPayouts, { methods: ['paypal'], minimum: 10, schedule: 'manual', approval: true });
      await settings.getByText('on', { exact: true }).waitFor();

      // Ann chose PayPal (set for her through the admin API, as the portal would); Ben chose nothing yet.
      await service.admin.setPayoutMethod({ id, email: 'ann@example.com', method: 'paypal', paypalEmail: 'ann.paypal@example.com' });
      await page.getByRole('button', { name: 'Make a payout run' }).click();
      await confirm(page, 'Make the run');
      const report = page.locator('rk-payout-run-report');
      await report.getByText('1 payout made, $40.00 in all:').waitFor();
      const made = report.getByRole('table', { name: 'Payouts made' });
      assert.match((await made.locator('tbody tr').innerText()).replace(/\s+/g, ' '), /ann@example\.com \$40\.00 PayPal ?ann\.paypal@example\.com pending approval/);
      const skipped = report.getByRole('table', { name: 'Skipped' });
      const why = async (email: string) => (await skipped.locator('tr', { hasText: email }).locator('td').nth(1).textContent())?.trim();
      assert.equal(await why('ben@example.com'), 'no payout method');
      assert.equal(await why('cy@example.com'), 'under the minimum (5 of 10 USD)');
      assert.equal(await why('dee@example.com'), 'under the minimum (5 of 10 USD)');

      // The list: Ann's payout waits; selected, it is approved after a confirmation that says how much.
      const list = page.getByRole('table', { name: 'Cash payouts' });
      const ann = list.locator('tbody tr', { hasText: 'ann@example.com' });
      await ann.getByText('pending approval').waitFor();
      await page.getByRole('checkbox', { name: /^Select payout \d+ to ann@example\.com$/ }).check();
      await page.getByText('1 payout selected, $40.00.').waitFor();
      await settled();
      await fitsAndPasses(page, 'the Payouts page with a run and a payout pending approval');
      await shoot(page, '/tmp/payouts-1280.png');

      // The run's CSV: generated in the page from the list of the run.
      const [download] = await Promise.all([page.waitForEvent('download'), report.getByRole('button', { name: 'Download run CSV' }).click()]);
      const csv = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
      assert.equal(csv[0], 'payoutId,runId,email,amount,referralAmount,refereeAmount,currency,method,destination,status,reason,providerId,createdAt,sentAt,settledAt');
      assert.equal(csv.length, 2);
      assert.match(csv[1]!, /^\d+,run_\w+,ann@example\.com,40,40,0,USD,paypal,ann\.paypal@example\.com,pending_approval,,,\d{4}-/);
      assert.match(download.suggestedFilename(), /^refkit-payouts-.+-run_\w+\.csv$/);

      await page.getByRole('button', { name: 'Approve selected' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('$40.00 in all is sent by PayPal at once, to 1 participant.', { exact: false }).waitFor();
      await confirm(page, 'Approve and send');
      await page.getByText('1 payout approved: being sent.').waitFor();
      await ann.getByText('sending', { exact: true }).waitFor();
      assert.equal((await service.admin.listPayouts(id))[0]!.status, 'sending');

      // The service's sender hands it to PayPal (sent), then reads the batch PayPal paid (paid).
      await sender.sendDue();
      await page.locator('rk-cash-payouts').getByRole('button', { name: 'Reload payouts' }).click();
      await ann.getByText('sent', { exact: true }).waitFor();
      await sender.sendDue();
      await page.locator('rk-cash-payouts').getByRole('button', { name: 'Reload payouts' }).click();
      await ann.getByText('paid', { exact: true }).waitFor();
      assert.equal(paypal.made.length, 1, 'one PayPal batch');

      // Filtered by status, and by run.
      await page.getByLabel('Filter payouts').first().selectOption('cancelled');
      await list.getByText('No cancelled cash payout yet.').waitFor();
      await page.getByLabel('Filter payouts').first().selectOption('');
      await ann.getByRole('button', { name: /^Show run run_/ }).click();
      await page.getByText(/^Run run_\w+ only\.$/).waitFor();
      // The Stripe credit payouts beside the cash ones.
      await page.getByRole('heading', { name: 'Paid into Stripe', level: 2 }).waitFor();
      await settled();
      await fitsAndPasses(page, 'the Payouts page after the payout was paid');

      await providerSettings(page, settled, 1280, service, paypal);
    }));

  it('at 390 px: a method not connected is said; a second run; a payout cancelled after a confirmation (its reason shown); a campaign of points cannot pay cash; tax settings', () =>
    signedInTask(browser, service.url, 390, async ({ page, settled }) => {
      // Without live PayPal credentials, the page says the campaign's method is not connected, and where to connect it.
      await service.admin.updateAccountSettings({ paypal: null });
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/payouts`);
      const warning = page.getByRole('note').filter({ hasText: 'PayPal is not connected for live campaigns' });
      await warning.waitFor();
      assert.equal(await warning.getByRole('link', { name: 'Set up payout providers' }).getAttribute('href'), '#/settings/payouts');
      await service.admin.updateAccountSettings({ paypal: { ...LIVE, webhookId: paypal.webhookId } });
      await service.admin.setPayoutMethod({ id, email: 'ben@example.com', method: 'paypal', paypalEmail: 'ben@example.com' });
      await page.reload();
      await page.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Make a payout run' }).waitFor();
      await settled();
      assert.equal(await page.getByRole('note').count(), 0, 'connected again: no warning');
      await page.getByRole('button', { name: 'Make a payout run' }).click();
      await confirm(page, 'Make the run');
      await page.locator('rk-payout-run-report').getByText('1 payout made, $25.00 in all:').waitFor();
      await page.getByRole('checkbox', { name: /^Select payout \d+ to ben@example\.com$/ }).check();
      await settled();
      await fitsAndPasses(page, 'the Payouts page at 390 px');
      await shoot(page, '/tmp/payouts-390.png');

      await page.getByRole('button', { name: 'Cancel selected' }).click();
      await confirm(page, 'Cancel payouts');
      await page.getByText('1 payout cancelled: the amounts are back on the balances.').waitFor();
      const ben = page.getByRole('table', { name: 'Cash payouts' }).locator('tbody tr', { hasText: 'ben@example.com' });
      await ben.getByText('cancelled', { exact: true }).waitFor();
      await ben.getByText('Cancelled by the owner').waitFor();
      const benNow = await service.admin.getParticipant(id, 'ben@example.com');
      assert.equal(benNow.referralRewardBalance, 20, 'the amount is back on the balance');
      assert.equal(await overflowsSideways(page), false);

      // A campaign of points: the card says why it cannot pay cash, and there is no run to make.
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(points)}/payouts`);
      await page.getByText(/not an amount of money, so they cannot be paid out in cash/).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Make a payout run' }).count(), 0);
      assert.equal(await overflowsSideways(page), false);

      await providerSettings(page, settled, 390, service, paypal);
    }));

});
