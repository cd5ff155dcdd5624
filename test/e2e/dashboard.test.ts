/**
 * The owner's dashboard end to end: real service (SQLite) with seeded data, the built dashboard at
 * /admin/, Debian's Chromium. Each test signs in and does one task the way an owner would.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { RefkitClient } from '../../src/api/client.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/api/schemas.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { rejects } from '../server/helpers/assert.js';
import { waitFor } from '../server/helpers/receiver.js';
import { reward } from '../../src/dashboard/format.js';
import { confirm, launch, OWNER, PAYOUT_KEY, overflowsSideways, seededService, seriousViolations, signedIn, signedInTask, type DashboardPage, type Seeded } from './helpers/dashboard.js';
import { allEntries, ledgerCampaign, type LedgerCampaign } from './helpers/rewards.js';
import { checkoutSession, event, SECRET, send } from '../server/helpers/stripe.js';
import { FakeStripe } from '../server/helpers/fake-stripe.js';
import { StripePayoutSender } from '../../src/server/payouts/domain/stripe-payouts.js';
import { PromotionCodeSync } from '../../src/server/promotions/domain/promotion-code-sync.js';

describe('dashboard', () => {
  let seeded: Seeded;
  let browser: Browser;
  let tmp: string;
  let ledger: LedgerCampaign;

  before(async () => {
    seeded = await seededService(60);
    ledger = await ledgerCampaign(seeded.service.admin);
    browser = await launch();
    tmp = mkdtempSync(join(tmpdir(), 'refkit-e2e-'));
  });
  after(async () => {
    await browser?.close();
    await seeded?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const task = (fn: (d: DashboardPage) => Promise<void>, width = 1280) => signedInTask(browser, seeded.service.url, width, fn);

  it('a wrong password is refused; the right one signs in; sign-out ends the session for good', async () => {
    const context = await browser.newContext({ baseURL: seeded.service.url });
    try {
      const page = await context.newPage();
      // Signed out, the sign-in page asks the service nothing it would refuse: no 401 in the console.
      const refused: string[] = [];
      page.on('response', (r) => void (r.status() === 401 && r.url().includes('/auth/session') && refused.push(r.url())));
      await page.goto('/admin/');
      await page.getByLabel('Email').fill(OWNER.email);
      assert.deepEqual(refused, []);
      await page.getByLabel('Password').fill('not my password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('The email or the password is wrong').waitFor();
      await page.getByLabel('Password').fill(OWNER.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      // The list says which reward is the referrer's and which the friend's.
      const seededRow = page.getByRole('row').filter({ hasText: seeded.campaignId });
      assert.match((await seededRow.innerText()).replace(/\s+/g, ' '), /Referrer \$10 Friend \$5/);
      const cookie = (await context.cookies()).find((c) => c.name === 'refkit_session')!;
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      // A reload keeps the session (it is in the cookie, not in the page).
      await page.reload();
      await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const replay = new RefkitClient({ baseUrl: seeded.service.url, fetch: (i, init) => fetch(i, { ...init, headers: { ...(init?.headers as object), cookie: `refkit_session=${cookie.value}` } }) });
      await rejects(() => replay.listCampaigns(), 401, 'unauthorized');
    } finally {
      await context.close();
    }
  });

  it('campaigns: create one while the preview follows the texts, edit it, pause, resume and end it with confirmation, copy the embed code', () =>
    task(async ({ page }) => {
      await page.getByRole('link', { name: 'New campaign' }).click();
      await page.getByLabel('Campaign name').fill('Summer friends');
      await page.getByLabel('Landing page URL').fill('https://acme.example/summer');
      await page.getByLabel('Reward headline').fill('Bring a friend, get a month free');
      const preview = page.locator('rk-widget-preview');
      await preview.getByText('Bring a friend, get a month free').waitFor();
      await page.getByLabel('Referrer reward').fill('30');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Embed on your site' }).waitFor();
      const id = decodeURIComponent(/#\/campaigns\/([^/]+)$/.exec(page.url())![1]!);
      const created = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.equal(created.campaignName, 'Summer friends');
      assert.equal(created.referrerRewardValue, 30);

      await page.getByLabel('Share headline').fill('Pass it on');
      await preview.getByLabel('Email address').fill('someone@example.com');
      await preview.getByRole('button', { name: 'Get my referral link' }).click();
      await preview.getByText('Pass it on').waitFor();
      await page.getByLabel('Currency').fill('EUR');
      await page.getByLabel('Allowed origins (optional)').fill('https://acme.example\nhttps://www.acme.example');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      const edited = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.equal(edited.shareHeader, 'Pass it on');
      assert.equal(edited.rewardCurrency, 'EUR');
      assert.deepEqual(edited.allowedOrigins, ['https://acme.example', 'https://www.acme.example']);
      // The preview signed nobody up.
      await rejects(() => seeded.service.admin.getParticipant(id, 'someone@example.com'), 404, 'participant_not_found');

      await page.getByRole('button', { name: 'Copy embed code' }).click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(copied, new RegExp(`<referral-widget campaign-id="${id}"`));
      assert.match(copied, /\/widget\/referral-widget\.js"><\/script>/);

      await page.getByRole('button', { name: 'Pause' }).click();
      await confirm(page, 'Pause campaign');
      await page.getByText('Paused', { exact: true }).waitFor();
      assert.equal((await seeded.service.admin.getCampaign(id)).status, 'Pause');
      await page.getByRole('button', { name: 'Resume' }).click();
      await confirm(page, 'Resume campaign');
      await page.getByText('Active', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'End campaign' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await seeded.service.admin.getCampaign(id)).status, 'Active');
      await page.getByRole('button', { name: 'End campaign' }).click();
      await confirm(page, 'End campaign');
      await page.getByText('An ended campaign cannot be restarted.').waitFor();
      assert.equal((await seeded.service.admin.getCampaign(id)).status, 'End');
    }));

  it('reward rules: each rule is saved (a reload shows it), the preview\'s offer follows them as typed, a value the service refuses is said beside its field', () =>
    task(async ({ page }) => {
      const { campaignId: id } = await seeded.service.admin.createCampaign({ campaignName: 'Rules campaign', hostURL: 'https://acme.example/rules', referrerRewardValue: 10, rewardType: 'credit' });
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}`);
      await page.getByRole('heading', { name: 'Rules campaign', level: 1 }).waitFor();
      const preview = page.locator('rk-widget-preview');
      const stored = async () => (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      // Beside the preview's form, the rules' lines follow what is typed, before anyone signs up in it.
      await page.getByLabel('Hold (days)').fill('1');
      await page.locator('.offer-lines').getByText('Rewards are confirmed 1 day after a friend qualifies.').waitFor();
      await page.getByLabel('Hold (days)').fill('0');
      await waitFor(async () => (await page.locator('.offer-lines').count()) === 0, 'no rules, no lines');
      // The offer, and its lines for the rules, show in the share view: sign up in the preview (nobody is).
      await preview.getByLabel('Email address').fill('someone@example.com');
      await preview.getByRole('button', { name: 'Get my referral link' }).click();
      await preview.getByText('You get $10 for each friend who qualifies.').waitFor();

      await page.getByLabel('Commission (%)').fill('10');
      await preview.getByText(/Plus 10% of what each friend pays/).waitFor();
      await page.getByLabel('Payments that earn it').fill('3');
      await preview.getByText(/10% of each friend.s first 3 payments/).waitFor();
      await page.getByRole('button', { name: 'Add milestone' }).click();
      await page.getByLabel('Referrals (milestone 1)').fill('3');
      await page.getByLabel('Bonus (milestone 1)').fill('50');
      await page.getByLabel('Label (milestone 1)').fill('Free month');
      await preview.getByText(/\$50 bonus when 3 friends qualify: Free month/).waitFor();
      await page.getByLabel('Most a referrer can earn (optional)').fill('200');
      await preview.getByText(/Up to \$200 in all/).waitFor();
      await page.getByLabel('Hold (days)').fill('30');
      await preview.getByText(/confirmed 30 days after a friend qualifies/).waitFor();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      const saved = await stored();
      assert.deepEqual(
        [saved.referrerRewardPercent, saved.commissionPayments, saved.milestones, saved.maxReferralReward, saved.holdDays],
        [10, 3, [{ referrals: 3, reward: 50, label: 'Free month' }], 200, 30],
      );
      await page.reload();
      await page.getByRole('heading', { name: 'Rules campaign', level: 1 }).waitFor();
      const values = () =>
        Promise.all(
          ['Commission (%)', 'Payments that earn it', 'Referrals (milestone 1)', 'Bonus (milestone 1)', 'Label (milestone 1)', 'Most a referrer can earn (optional)', 'Hold (days)'].map((l) =>
            page.getByLabel(l, { exact: true }).inputValue(),
          ),
        );
      assert.deepEqual(await values(), ['10', '3', '3', '50', 'Free month', '200', '30']);

      // A second milestone at the same count: the service refuses it, and says so beside the milestones.
      await page.getByRole('button', { name: 'Add milestone' }).click();
      await page.getByLabel('Referrals (milestone 2)').fill('3');
      await page.getByLabel('Bonus (milestone 2)').fill('80');
      await page.getByLabel('Label (milestone 2)').fill('Free year');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const problem = page.locator('rk-campaign-editor fieldset.milestones .field-error');
      await problem.waitFor();
      assert.match((await problem.textContent())!, /milestones/);
      // The input at fault (or, for a rule across the list, its first input) has the focus.
      assert.equal(await page.locator('rk-campaign-editor fieldset.milestones input:focus').count(), 1);
      assert.deepEqual((await stored()).milestones, [{ referrals: 3, reward: 50, label: 'Free month' }]);
      await page.getByLabel('Referrals (milestone 2)').fill('10');
      assert.equal(await problem.count(), 0);

      // Changed again and cleared: 12.5% of every payment, one milestone less, no ceiling, no hold.
      await page.getByLabel('Commission (%)').fill('12.5');
      await page.getByLabel('Payments that earn it').fill('0');
      await preview.getByText(/Plus 12.5% of what each friend pays/).waitFor();
      await page.getByRole('button', { name: 'Remove milestone 1' }).click();
      await preview.getByText(/\$80 bonus when 10 friends qualify: Free year/).waitFor();
      assert.equal(await preview.getByText(/Free month/).count(), 0);
      await page.getByLabel('Most a referrer can earn (optional)').fill('');
      await page.getByLabel('Hold (days)').fill('0');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      const cleared = await stored();
      assert.deepEqual(
        [cleared.referrerRewardPercent, cleared.commissionPayments, cleared.milestones, cleared.maxReferralReward, cleared.holdDays],
        [12.5, 0, [{ referrals: 10, reward: 80, label: 'Free year' }], null, 0],
      );
      await page.reload();
      await page.getByRole('heading', { name: 'Rules campaign', level: 1 }).waitFor();
      assert.equal(await page.getByLabel('Most a referrer can earn (optional)').inputValue(), '');
      assert.equal(await page.getByLabel('Label (milestone 1)').inputValue(), 'Free year');
      assert.equal(await page.getByLabel('Label (milestone 2)').count(), 0);
    }));

  it('leaderboard: turned on monthly with a time zone (a reload shows it), an unknown zone is said beside its field, then turned off', () =>
    task(async ({ page }) => {
      const { campaignId: id } = await seeded.service.admin.createCampaign({ campaignName: 'Board campaign', hostURL: 'https://acme.example/board' });
      const stored = async () => {
        const c = (await seeded.service.admin.listCampaigns()).find((x) => x.campaignId === id)!;
        return [c.leaderboard, c.timeZone];
      };
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}`);
      await page.getByRole('heading', { name: 'Board campaign', level: 1 }).waitFor();
      assert.equal(await page.getByLabel('Leaderboard', { exact: true }).inputValue(), 'off');
      await page.getByLabel('Leaderboard', { exact: true }).selectOption({ label: 'This month' });
      await page.getByLabel('Entries shown').fill('5');
      await page.getByLabel('Time zone').fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const problem = page.locator('rk-campaign-editor #f-timeZone-error');
      await problem.waitFor();
      assert.match((await problem.textContent())!, /Unknown time zone/);
      assert.deepEqual(await stored(), [null, 'UTC']);
      await page.getByLabel('Time zone').fill('Europe/Berlin');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      assert.deepEqual(await stored(), [{ period: 'month', size: 5 }, 'Europe/Berlin']);
      await page.reload();
      await page.getByRole('heading', { name: 'Board campaign', level: 1 }).waitFor();
      assert.deepEqual(
        [await page.getByLabel('Leaderboard', { exact: true }).inputValue(), await page.getByLabel('Entries shown').inputValue(), await page.getByLabel('Time zone').inputValue()],
        ['month', '5', 'Europe/Berlin'],
      );
      await page.getByLabel('Leaderboard', { exact: true }).selectOption({ label: 'Off' });
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      assert.deepEqual(await stored(), [null, 'Europe/Berlin']);
    }));

  it('waitlist: turned on in the editor; the Waitlist page shows the queue with positions, lets in the first N and by email, and passes axe', () =>
    task(async ({ page }) => {
      const admin = seeded.service.admin;
      const { campaignId: id } = await admin.createCampaign({ campaignName: 'Early access', hostURL: 'https://acme.example/early' });
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}`);
      await page.getByRole('heading', { name: 'Early access', level: 1 }).waitFor();
      await page.getByLabel('Places up per referral').fill('2');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      assert.deepEqual((await admin.listCampaigns()).find((c) => c.campaignId === id)!.waitlist, { spotsPerReferral: 2, counts: 'signups' });
      for (const email of ['w0@example.com', 'w1@example.com', 'w2@example.com']) await admin.addParticipant({ id: id!, email });
      const w2 = await admin.getParticipant(id!, 'w2@example.com');
      await admin.addParticipant({ id: id!, email: 'w3@example.com', referredByCode: w2.referralCode! });
      // A reload reads the campaign's settings again: the Waitlist link appears in the menu.
      await page.reload();
      await page.getByRole('link', { name: 'Waitlist' }).click();
      await page.getByRole('heading', { name: 'Waitlist', level: 1 }).waitFor();
      const rows = page.locator('rk-waitlist tbody tr');
      const queue = async () => (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
      await page.getByText('4 waiting, 0 let in.').waitFor();
      // w2 (third, one referral: 2 places up) is first: at w0's key, the later sign-up with the referral is ahead.
      assert.deepEqual(await queue(), ['#1 w2@example.com', '#2 w0@example.com', '#3 w1@example.com', '#4 w3@example.com']);
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByLabel('Let in the first').fill('1');
      await page.getByRole('button', { name: 'Let them in' }).click();
      await page.getByText('Let in 1 participant.').waitFor();
      await page.getByText('3 waiting, 1 let in.').waitFor();
      assert.deepEqual(await queue(), ['#1 w0@example.com', '#2 w1@example.com', '#3 w3@example.com']);
      await page.getByLabel(/Let in by email/).fill('w3@example.com, nobody@example.com');
      await page.getByRole('button', { name: 'Let these in' }).click();
      await page.getByText('Let in 1 participant. Not participants: nobody@example.com.').waitFor();
      // The message comes with the grant's answer; the queue is read again after it: wait for the new list.
      await page.getByText('2 waiting, 2 let in.').waitFor();
      assert.deepEqual(await queue(), ['#1 w0@example.com', '#2 w1@example.com']);
      assert.equal((await admin.getWaitlist(id!)).granted, 2);
    }));

  it('a new campaign is created with its reward rules', () =>
    task(async ({ page }) => {
      await page.goto('/admin/#/campaigns/new');
      await page.getByLabel('Campaign name').fill('Rules from the start');
      await page.getByLabel('Landing page URL').fill('https://acme.example/start');
      await page.getByLabel('Commission (%)').fill('7.25');
      await page.getByLabel('Hold (days)').fill('14');
      await page.getByRole('button', { name: 'Add milestone' }).click();
      await page.getByLabel('Referrals (milestone 1)').fill('5');
      await page.getByLabel('Bonus (milestone 1)').fill('25');
      await page.getByLabel('Label (milestone 1)').fill('Tote bag');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Embed on your site' }).waitFor();
      const id = decodeURIComponent(/#\/campaigns\/([^/]+)$/.exec(page.url())![1]!);
      const created = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual(
        [created.referrerRewardPercent, created.commissionPayments, created.milestones, created.maxReferralReward, created.holdDays],
        [7.25, 0, [{ referrals: 5, reward: 25, label: 'Tote bag' }], null, 14],
      );
    }));

  // The ledger's paging and its figures are the page's behaviour, checked once; its layout at each width
  // (the navigation's height on a phone, the share link's row, nothing wider than the screen, axe) is
  // checked at both, on the same page resized: the dashboard's layout is its CSS media queries alone.
  it('reward ledger at 1280 and 390 px: every entry of a participant, paged; pending and owed back beside the balances', () =>
    task(async ({ page }) => {
      const { campaignId: id, referrer } = ledger;
      const campaign = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      const entries = await allEntries(seeded.service.admin, id, referrer);
      assert.ok(entries.length > 20, `${entries.length} entries: more than a page`);
      for (const kind of ['referral', 'commission', 'redemption', 'reversal'] as const) assert.ok(entries.some((e) => e.kind === kind), kind);
      assert.ok(entries.some((e) => e.capped) && entries.some((e) => e.status === 'pending'), 'capped and pending entries');
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/participants/${encodeURIComponent(referrer)}`);
      const table = page.getByRole('table', { name: 'Reward ledger' });
      const rows = table.locator('tbody tr');
      await waitFor(async () => (await rows.count()) === 20, 'the first page of the ledger');
      /** The share link is a row of its own, across its card, never a few characters a line beside its label. */
      const shareLinkRow = async (width: number) => {
        const [dd, dl] = [(await page.locator('dd.wide').boundingBox())!, (await page.locator('dl:has(dd.wide)').boundingBox())!];
        assert.ok(dd.width >= dl.width - 1, `at ${width} px the share link's row is ${dd.width} of ${dl.width} px`);
      };
      await shareLinkRow(1280);
      await page.getByRole('button', { name: 'Show more entries' }).click();
      await waitFor(async () => (await rows.count()) === entries.length, 'every entry');
      assert.equal(await page.getByRole('button', { name: 'Show more entries' }).count(), 0);
      const { rewards } = await seeded.service.admin.getParticipantDetail(id, referrer);
      assert.ok(rewards.pending.referral > 0);
      const balances = page.locator('rk-participant-detail .balances');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        if (width === 390) {
          // The navigation leaves the page to the page: under 15% of the screen's height on a phone.
          const nav = (await page.getByRole('navigation', { name: 'Main' }).boundingBox())!;
          assert.ok(nav.height < 0.15 * 900, `the navigation takes ${nav.height} of 900 px`);
          await shareLinkRow(390);
        }
        const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
        assert.equal(cells.length, entries.length);
        cells.forEach(([, , label, amount, status, , referee, capped], i) => {
          const e = entries[i]!;
          assert.deepEqual([label, amount, status, referee, capped], [e.label || '—', reward(e.amount, campaign), e.status, e.refereeEmail ?? '—', e.capped ? reward(e.capped, campaign) : '—'], `entry ${i} at ${width} px`);
        });
        await balances.getByText(`${reward(rewards.pending.referral, campaign)} pending · ${reward(rewards.owed.referral, campaign)} owed back`).waitFor();
        await balances.getByText(`${reward(rewards.pending.referee, campaign)} pending · ${reward(rewards.owed.referee, campaign)} owed back`).waitFor();
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
        assert.deepEqual(await seriousViolations(page), [], `at ${width} px`);
      }
    }));

  it('reward liability: pending, available, redeemed and owed back per reward kind and in all; the ledger\'s CSV export', () =>
    task(async ({ page }) => {
      const { campaignId: id, referrer, friends, refunded } = ledger;
      const campaign = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      const liability = await seeded.service.admin.getRewardLiability(id);
      assert.ok(liability.total.pending > 0);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/analytics`);
      const table = page.getByRole('table', { name: 'Reward liability' });
      await table.waitFor();
      const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.trim())));
      assert.deepEqual(
        cells,
        (['referral', 'referee', 'total'] as const).map((k, i) => [
          ['Referral rewards', 'Referee rewards', 'Total'][i],
          ...(['pending', 'available', 'redeemed', 'owed'] as const).map((c) => reward(liability[k][c], campaign)),
        ]),
      );
      assert.match(cells[2]![1]!, /^€/);

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export ledger (CSV)' }).click()]);
      const file = join(tmp, 'ledger.csv');
      await download.saveAs(file);
      const text = readFileSync(file, 'utf8');
      assert.equal(text.split(/\r?\n/, 1)[0], 'createdOn,email,kind,rewardKind,amount,status,availableOn,label,refereeEmail,paymentId,capped,code');
      const rows = parse(text, { columns: true }) as Record<string, string>[];
      const expected = (await Promise.all([referrer, ...friends].map((email) => allEntries(seeded.service.admin, id, email)))).flat();
      assert.equal(rows.length, expected.length);
      assert.ok(rows.some((r) => r.email === referrer && r.kind === 'reversal'), 'the refund\'s reversal');
      assert.ok(rows.some((r) => r.email === referrer && Number(r.capped) > 0), 'a capped credit');
      assert.ok(rows.some((r) => r.email === refunded && r.kind === 'referee'), 'the referee\'s own reward');
      const sum = (amounts: number[]) => amounts.reduce((a, b) => a + b, 0);
      assert.equal(sum(rows.filter((r) => r.email === referrer).map((r) => Number(r.amount))), sum((await allEntries(seeded.service.admin, id, referrer)).map((e) => e.amount)));
    }));

  it('participants: search by email or code, sort, page with keyset cursors, open one, redeem a reward', () =>
    task(async ({ page }) => {
      const id = seeded.campaignId;
      await page.goto(`/admin/#/campaigns/${id}/participants`);
      const rows = page.locator('rk-participants tbody tr');
      await page.getByRole('link', { name: 'a.v.a.0+2@example.com' }).waitFor();
      assert.equal(await rows.count(), 25);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2', { exact: true }).waitFor();
      const page2 = await rows.first().locator('a').textContent();
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByText('Page 1', { exact: true }).waitFor();
      await page.getByRole('link', { name: 'a.v.a.0+2@example.com' }).waitFor();
      assert.notEqual(page2, 'a.v.a.0+2@example.com');

      await page.getByLabel('Sort').selectOption({ label: 'Email A–Z' });
      await page.getByRole('link', { name: 'a.v.a.0+2@example.com' }).waitFor();
      const emails = await rows.locator('td.who a').allTextContents();
      assert.deepEqual(emails, [...emails].sort());

      await page.getByLabel('Search').fill('ben.');
      await waitFor(async () => {
        const found = await rows.locator('td.who a').allTextContents();
        return found.length > 0 && found.every((e) => e.startsWith('ben.')) && found.join() === [...found].sort().join();
      }, 'search results, in email order');
      const ava = await seeded.service.admin.getParticipant(id, 'ava.0@example.com');
      await page.getByLabel('Search').fill(ava.referralCode!.toLowerCase());
      await waitFor(async () => (await rows.locator('td.who a').allTextContents()).join() === 'ava.0@example.com', 'code search');

      await page.getByRole('link', { name: 'ava.0@example.com' }).click();
      await page.getByRole('heading', { name: 'ava.0@example.com' }).waitFor();
      await page.getByRole('heading', { name: 'Fraud signals' }).waitFor();
      const before = ava.referralRewardBalance!;
      assert.ok(before >= 5);
      await page.getByLabel('Balance').selectOption('referral');
      await page.getByLabel('Amount').fill('5');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await confirm(page, 'Redeem');
      await page.getByText('Redeemed $5 from the referral balance.').waitFor();
      assert.equal((await seeded.service.admin.getParticipant(id, 'ava.0@example.com')).referralRewardBalance, before - 5);
      await page.getByLabel('Amount').fill('100000');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await confirm(page, 'Redeem');
      await page.getByRole('alert').getByText(/balance is less than 100000/).waitFor();
      // The referral list links on to a referral, whose detail names the referrer.
      await page.getByRole('table', { name: /^Referrals/ }).getByRole('link', { name: 'friend0@example.org' }).click();
      await page.getByRole('heading', { name: 'Referred by' }).waitFor();
      await page.locator('rk-participant-detail').getByRole('link', { name: 'ava.0@example.com' }).waitFor();
    }));

  it('review queue: the held sign-ups are listed; one is approved (credited), one rejected', () =>
    task(async ({ page }) => {
      const id = seeded.campaignId;
      await page.goto(`/admin/#/campaigns/${id}/participants`);
      await page.getByRole('button', { name: 'Review queue' }).click();
      await page.getByRole('link', { name: 'ava.0+again@example.com' }).waitFor();
      const held = await page.locator('rk-participants tbody td.who a').allTextContents();
      assert.deepEqual(held.sort(), ['ava.0+again@example.com']);
      await page.getByRole('button', { name: 'Reject', exact: true }).click();
      await confirm(page, 'Reject');
      await page.getByText('Nobody is waiting for review.').waitFor();
      await page.getByRole('button', { name: 'Rejected' }).click();
      await page.getByRole('link', { name: 'ava.0+again@example.com' }).waitFor();
      // Changed their mind: approve from the rejected list.
      await page.getByRole('button', { name: 'Approve' }).click();
      await confirm(page, 'Approve');
      await page.getByText('ava.0+again@example.com approved.').waitFor();
      assert.equal((await seeded.service.admin.getParticipantDetail(id, 'ava.0+again@example.com')).participant.approval, true);
    }));

  it('CSV: export downloads every participant, formulas neutralised; import is all or nothing, with a report of the refused rows', () =>
    task(async ({ page }) => {
      const id = seeded.campaignId;
      await seeded.service.admin.addParticipant({ id, email: 'formula@example.com', firstName: '=HYPERLINK("http://evil.example","Click")' });
      await page.goto(`/admin/#/campaigns/${id}/participants`);
      await page.getByRole('link', { name: 'Export CSV' }).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      const file = join(tmp, 'export.csv');
      await download.saveAs(file);
      const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as { email: string; firstName: string }[];
      const all = await seeded.service.admin.searchParticipants({ id, pageSize: 100 });
      assert.equal(rows.length, all.participants.length);
      assert.equal(rows.find((r) => r.email === 'formula@example.com')?.firstName, '\'=HYPERLINK("http://evil.example","Click")');

      const refused = join(tmp, 'refused.csv');
      writeFileSync(refused, 'email,firstName\nnew.one@example.com,New\nnot-an-email,Bad\nava.0@example.com,Again\nzw@example.com,Z\u200bW\n');
      await page.locator('#import-file').setInputFiles(refused);
      await page.getByRole('alert').getByText('2 of 4 rows cannot be imported, so none was').waitFor();
      const report = page.getByRole('table', { name: 'Rows refused by the import' });
      await report.getByRole('row', { name: '3 email email must be an email address' }).waitFor();
      await report.getByRole('row', { name: /^5 firstName firstName must be one line of text/ }).waitFor();
      await assert.rejects(() => seeded.service.admin.getParticipant(id, 'new.one@example.com'));

      const upload = join(tmp, 'new.csv');
      writeFileSync(upload, 'email,firstName\nnew.one@example.com,New\nava.0@example.com,Again\n');
      await page.locator('#import-file').setInputFiles(upload);
      await page.getByText('Imported 1 participant; 1 already there.').waitFor();
      assert.equal(await report.count(), 0);
      assert.equal((await seeded.service.admin.getParticipant(id, 'new.one@example.com')).firstName, 'New');
    }));

  it("personal data: a participant's data downloads as JSON; Erase works only once their email is typed, and their referrer's list then shows a Deleted participant", () =>
    task(async ({ page }) => {
      const id = seeded.campaignId;
      const admin = seeded.service.admin;
      const erin = await admin.addParticipant({ id, email: 'erin.keeps@example.com', firstName: 'Erin' });
      await admin.addParticipant({ id, email: 'erika.leaves@example.com', firstName: 'Erika', lastName: 'Gone', referredByCode: erin.referralCode! });
      await admin.qualifyParticipant({ id, email: 'erika.leaves@example.com' });
      const erinBefore = await admin.getParticipant(id, 'erin.keeps@example.com');
      await page.goto(`/admin/#/campaigns/${id}/participants/erika.leaves%40example.com`);
      await page.getByRole('heading', { name: 'Personal data' }).waitFor();

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export data' }).click()]);
      assert.equal(download.suggestedFilename(), 'refkit-erika.leaves@example.com.json');
      const file = join(tmp, 'person.json');
      await download.saveAs(file);
      const exported = JSON.parse(readFileSync(file, 'utf8')) as { email: string; participants: { campaignId: string; participant: { firstName: string; refereeReward: number } }[] };
      assert.equal(exported.email, 'erika.leaves@example.com');
      assert.deepEqual(exported.participants.map((p) => [p.campaignId, p.participant.firstName]), [[id, 'Erika']]);

      await page.getByRole('button', { name: 'Erase' }).click();
      const dialog = page.getByRole('dialog');
      const erase = dialog.getByRole('button', { name: 'Erase' });
      assert.equal(await erase.isDisabled(), true);
      await dialog.getByLabel(/to confirm/).fill('erika@example.com');
      assert.equal(await erase.isDisabled(), true, 'another address does not unlock it');
      // Cancel erases nothing.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await admin.getParticipant(id, 'erika.leaves@example.com')).firstName, 'Erika');
      await page.getByRole('button', { name: 'Erase' }).click();
      await dialog.getByLabel(/to confirm/).fill('erika.leaves@example.com');
      await erase.click();
      await page.getByRole('heading', { name: 'Participants', level: 1 }).waitFor();
      await rejects(() => admin.getParticipant(id, 'erika.leaves@example.com'), 404, 'participant_not_found');

      await page.goto(`/admin/#/campaigns/${id}/participants/erin.keeps%40example.com`);
      const referrals = page.getByRole('table', { name: /^Referrals/ });
      await referrals.getByText('Deleted participant').waitFor();
      assert.equal(await referrals.getByRole('link').count(), 0, 'a deleted participant has no page to open');
      const erinAfter = await admin.getParticipant(id, 'erin.keeps@example.com');
      assert.deepEqual([erinAfter.referralReward, erinAfter.totalReferrals], [erinBefore.referralReward, erinBefore.totalReferrals]);
    }));

  it('analytics: funnel, sign-ups per day on a chart, top referrers, revenue and viral coefficient; sign-ups by channel and by source (none yet is said)', () =>
    task(async ({ page }) => {
      // A campaign nobody joined by a tagged link: both tables say so.
      const spring = (await seeded.service.admin.listCampaigns()).find((c) => c.campaignName === 'Spring referral push')!;
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(spring.campaignId!)}/analytics`);
      await page.getByText('No sign-up came through a tagged link yet', { exact: false }).waitFor();
      await page.getByText('No sign-up came with a source yet', { exact: false }).waitFor();
      // Sign-ups by Ava's WhatsApp link (two of three qualify) and by a newsletter's email.
      const id = seeded.campaignId;
      const ava = await seeded.service.admin.getParticipant(id, 'ava.0@example.com');
      for (let i = 0; i < 3; i++) {
        await seeded.service.admin.addParticipant({ id, email: `wa${i}@example.org`, referredByCode: ava.referralCode!, utm: { source: 'refkit', medium: 'whatsapp' } });
        if (i < 2) await seeded.service.admin.qualifyParticipant({ id, email: `wa${i}@example.org` });
      }
      await seeded.service.admin.addParticipant({ id, email: 'reader@example.org', utm: { source: 'newsletter', medium: 'email' } });
      const a = await seeded.service.admin.getCampaignAnalytics(seeded.campaignId);
      await page.goto(`/admin/#/campaigns/${seeded.campaignId}/analytics`);
      await page.getByRole('heading', { name: 'Sign-ups per day' }).waitFor();
      await page.locator('rk-analytics canvas').first().waitFor();
      const funnel = page.locator('rk-analytics .funnel');
      for (const v of [a.funnel.impressions, a.funnel.referredSignups, a.funnel.qualified]) await funnel.getByText(String(v), { exact: true }).first().waitFor();
      await page.locator('rk-analytics .stat').getByText(String(a.funnel.signups), { exact: true }).first().waitFor();
      await page.getByText(`$${a.referredRevenue}`).first().waitFor();
      await page.getByText(a.viralCoefficient.toFixed(2), { exact: true }).waitFor();
      await page.locator('rk-analytics').getByRole('link', { name: a.topReferrers[0]!.email! }).waitFor();
      const rows = async (table: string) =>
        (await page.getByRole('table', { name: table }).locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
      assert.deepEqual(await rows('By channel'), ['WhatsApp whatsapp 3 2 66.7%', 'Email email 1 0 0.0%']);
      assert.deepEqual(await rows('By source'), ['Refkit share links refkit 3 2 66.7%', 'newsletter 1 0 0.0%']);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('rk-analytics .two').last().screenshot({ path: `/tmp/analytics-channels-${width}.png` });
      }
    }));

  it('webhooks: add an endpoint (secret shown once), read the attempts of a delivery, filter failed ones, redeliver, remove', () =>
    task(async ({ page }) => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill('https://hooks.acme.example/refkit');
      await page.getByLabel('reward_unlocked').uncheck();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page.locator('.notice code').textContent();
      assert.match(secret!, /^whsec_/);
      const added = (await seeded.service.admin.listWebhookEndpoints()).find((e) => e.url === 'https://hooks.acme.example/refkit')!;
      assert.deepEqual(added.eventTypes, WEBHOOK_EVENT_TYPES.filter((t) => t !== 'reward_unlocked'), 'every type offered, all but the one unticked chosen');
      assert.equal(added.secret, undefined);

      // The seeded receiver answers 500 to every fifth delivery, and the seeded dispatcher does not retry.
      await page.getByLabel('Status').selectOption('failed');
      // The filtered list replaces the whole one when it arrives: until then a button of the old list may be first.
      await waitFor(async () => (await page.locator('rk-webhooks tbody').getByText('delivered', { exact: true }).count()) === 0, 'only failed deliveries listed');
      const attempts = page.getByRole('button', { name: '1 attempt' }).first();
      await attempts.click();
      await page.getByText(/HTTP 500/).first().waitFor();
      const before = seeded.receiver.received.length;
      await page.getByRole('button', { name: 'Redeliver' }).first().click();
      await page.getByText('Sent again').waitFor();
      await waitFor(() => seeded.receiver.received.length > before, 'the redelivery to arrive');

      await page.getByRole('button', { name: 'Remove https://hooks.acme.example/refkit' }).click();
      await confirm(page, 'Remove endpoint');
      await page.getByText('Endpoint removed.').waitFor();
      assert.equal((await seeded.service.admin.listWebhookEndpoints()).some((e) => e.url === 'https://hooks.acme.example/refkit'), false);
    }));

  it('emails: SMTP not configured is said; emails turned off and the address saved; a text edited with its live preview, saved, reset; no test send without SMTP', () =>
    task(async ({ page }) => {
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(seeded.campaignId)}/emails`);
      await page.getByRole('heading', { name: 'Emails', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Emails' }).getAttribute('aria-current'), 'page', 'in the sidebar, current');
      await page.getByRole('note').getByText('SMTP is not configured.').waitFor();

      await page.getByLabel('Friend joined').uncheck();
      await page.getByRole('checkbox', { name: 'Reminder to share' }).check();
      await page.getByLabel(/^Days after joining before the reminder/).fill('10');
      await page.getByLabel("Your postal address (shown in every email's footer)").fill('Acme Ltd, 1 Main Street');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Email settings saved.').waitFor();
      const saved = await seeded.service.admin.getEmailSettings(seeded.campaignId);
      assert.equal(saved.settings.friend_joined, false);
      assert.equal(saved.settings.welcome, true);
      assert.deepEqual([saved.settings.reminder, saved.settings.reminderDays], [true, 10]);
      assert.equal(saved.settings.postalAddress, 'Acme Ltd, 1 Main Street');

      // The preview follows the text as it is typed, in the chosen language, before anything is saved.
      await page.getByLabel('Language').selectOption('de');
      await page.getByLabel('Subject').fill('Hallo {firstName}, <b>willkommen</b>');
      const preview = page.frameLocator('iframe[title="Preview of the email"]');
      await preview.getByText('Hallo Alex, <b>willkommen</b>').first().waitFor();
      await preview.getByText('Acme Ltd, 1 Main Street').waitFor();
      await page.getByRole('button', { name: 'Save text' }).click();
      await page.getByText('Welcome (German) saved.').waitFor();
      let texts = (await seeded.service.admin.getEmailSettings(seeded.campaignId)).texts.filter((t) => t.custom);
      assert.deepEqual(texts.map((t) => [t.kind, t.locale, t.subject]), [['welcome', 'de', 'Hallo {firstName}, <b>willkommen</b>']]);
      await page.getByRole('button', { name: 'Back to the default text' }).click();
      await page.getByText('Welcome (German) is the default text again.').waitFor();
      assert.equal(await page.getByLabel('Subject').inputValue(), 'Willkommen bei {campaign}');
      texts = (await seeded.service.admin.getEmailSettings(seeded.campaignId)).texts.filter((t) => t.custom);
      assert.deepEqual(texts, []);

      // Without SMTP_URL nothing can be sent: the test send says so instead of failing.
      assert.equal(await page.getByRole('button', { name: 'Send test' }).isDisabled(), true);
      await page.getByText('A test needs SMTP_URL.').waitFor();
      await page.getByText('No emails yet.').waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await preview.getByText('Willkommen bei Acme Notes launch').first().waitFor();
        assert.deepEqual(await seriousViolations(page), [], `the Emails page at ${width} px`);
        assert.equal(await overflowsSideways(page), false, `the Emails page is wider than ${width} px`);
      }
      await seeded.service.admin.updateEmailSettings({ id: seeded.campaignId, friend_joined: true, reminder: false, reminderDays: 7, postalAddress: '' });
    }));

  it('billing: the Stripe endpoint URL to copy; the signing secret is set (a malformed one is refused beside the field), replaced and removed', () =>
    task(async ({ page }) => {
      const { campaignId: id } = await seeded.service.admin.createCampaign({ campaignName: 'Billing campaign', hostURL: 'https://acme.example/billing', referrerRewardValue: 10 });
      const configured = async () => (await seeded.service.admin.listCampaigns()).find((c) => c.campaignId === id)!.stripeWebhookConfigured;
      const ping = (secret: string) => send({ url: seeded.service.url }, id!, event('customer.created', { id: 'cus_x', object: 'customer' }), secret).then((r) => r.status);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}`);
      await page.locator('rk-campaign-editor').getByRole('link', { name: 'Billing' }).click();
      await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
      const setup = page.locator('rk-stripe-setup');
      await setup.getByText('not set', { exact: true }).waitFor();
      for (const type of ['invoice.paid', 'checkout.session.completed', 'charge.refunded', 'charge.dispute.created', 'charge.dispute.closed']) await setup.getByText(type, { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Copy endpoint URL' }).click();
      const endpoint = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(endpoint, `${seeded.service.url}/api/v1/integrations/stripe/${id}`);

      await page.getByLabel('Signing secret').fill('not-a-secret');
      await page.getByRole('button', { name: 'Save secret' }).click();
      const problem = setup.locator('.field-error');
      await problem.getByText(/stripeWebhookSecret/).waitFor();
      assert.equal(await page.getByLabel('Signing secret').getAttribute('aria-invalid'), 'true');
      assert.equal(await configured(), false);

      await page.getByLabel('Signing secret').fill(SECRET);
      await page.getByRole('button', { name: 'Save secret' }).click();
      await page.getByText('Signing secret saved.').waitFor();
      assert.equal(await problem.count(), 0);
      await setup.getByText('set', { exact: true }).waitFor();
      assert.equal(await configured(), true);
      assert.equal(await ping(SECRET), 200, 'the endpoint takes events signed with the secret');
      // Write-only: a reload shows that one is set, never what it is.
      await page.reload();
      await setup.getByText('set', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Signing secret').inputValue(), '');

      const next = 'whsec_replaced_0123456789';
      await page.getByLabel('Signing secret').fill(next);
      await page.getByRole('button', { name: 'Replace secret' }).click();
      await page.getByText('Signing secret saved.').waitFor();
      assert.deepEqual([await ping(SECRET), await ping(next)], [400, 200]);

      await page.getByRole('button', { name: 'Remove secret' }).click();
      await confirm(page, 'Remove secret');
      await page.getByText('Signing secret removed.').waitFor();
      await setup.getByText('not set', { exact: true }).waitFor();
      assert.equal(await configured(), false);
      assert.equal(await ping(next), 400);
      assert.equal(await page.getByRole('button', { name: 'Remove secret' }).count(), 0);
    }));

  it('billing: events Stripe signs show in the table, unmatched first; one is matched by hand (a wrong email is said in its row); filtered by status', () =>
    task(async ({ page }) => {
      const id = seeded.campaignId;
      await page.goto(`/admin/#/campaigns/${id}`);
      await page.getByRole('link', { name: 'Billing' }).first().click();
      const table = page.getByRole('table', { name: 'Received events' });
      const rows = table.locator('tbody tr');
      await table.getByText('billing@stranger.example').waitFor();
      // Sent while the page is open: Refresh reads it.
      const stray = event('checkout.session.completed', checkoutSession('NOSUCHCODE', 'friend.personal@example.net', 3000, { customer: 'cus_stranger' }));
      assert.equal((await send(seeded.service, id, stray)).body.outcome, 'unmatched');
      await page.getByRole('button', { name: 'Refresh' }).click();
      const row = rows.filter({ hasText: stray.id });
      await row.waitFor();
      const listed = await seeded.service.admin.listStripeEvents(id);
      const unmatched = listed.filter((e) => e.status === 'unmatched').length;
      assert.ok(unmatched >= 2 && listed.length > unmatched);
      const statuses = await rows.evaluateAll((trs) => trs.map((tr) => tr.className));
      assert.deepEqual(statuses, [...statuses.slice(0, unmatched).map(() => 'unmatched'), ...listed.filter((e) => e.status !== 'unmatched').map((e) => e.status)]);
      await row.getByText('$30.00').waitFor();

      await page.getByLabel(`Participant for ${stray.id}`).fill('nobody@example.com');
      await page.getByRole('button', { name: `Match ${stray.id}` }).click();
      await row.getByRole('alert').getByText(/participant/i).waitFor();
      assert.equal(await page.getByLabel(`Participant for ${stray.id}`).getAttribute('aria-invalid'), 'true');
      await page.getByLabel(`Participant for ${stray.id}`).fill('friend5@example.org');
      await page.getByRole('button', { name: `Match ${stray.id}` }).click();
      await page.getByText(`${stray.id} applied to friend5@example.org.`).waitFor();
      await row.getByText('applied', { exact: true }).waitFor();
      await row.getByRole('link', { name: 'friend5@example.org' }).waitFor();
      assert.equal((await seeded.service.admin.listStripeEvents(id)).find((e) => e.id === stray.id)!.status, 'applied');
      assert.equal((await seeded.service.admin.getParticipant(id, 'friend5@example.org')).rewardEventCompleted, true);

      // In another currency than the campaign's rewards: held, with its reason in its row.
      const yen = event('checkout.session.completed', checkoutSession('NOSUCHCODE', 'yen@example.net', 5000, { currency: 'jpy', customer: 'cus_yen' }));
      assert.equal((await send(seeded.service, id, yen)).body.outcome, 'held');
      await page.getByRole('button', { name: 'Refresh' }).click();
      const heldRow = rows.filter({ hasText: yen.id });
      await heldRow.getByText('held', { exact: true }).waitFor();
      await heldRow.getByText(/in JPY .* in USD/).waitFor();

      for (const status of ['applied', 'ignored', 'unmatched', 'held'] as const) {
        const expected = (await seeded.service.admin.listStripeEvents(id, status)).map((e) => e.id);
        await page.getByLabel('Status').selectOption(status);
        await waitFor(async () => JSON.stringify(await rows.locator('td.event .mono').allTextContents()) === JSON.stringify(expected), `only ${status} events listed`);
      }
    }));

  it('billing: sales from other providers: each provider\'s URL and events; a Paddle secret set (a refusal beside the field); its signed events listed, unmatched first, one matched by hand; exchange rates set apply a held one; a 403 said plainly; a viewer only reads', () =>
    task(async ({ page }) => {
      const admin = seeded.service.admin;
      const { campaignId } = await admin.createCampaign({ campaignName: 'Sources campaign', hostURL: 'https://acme.example/sources', referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10, rewardCurrency: 'USD', rewardType: 'credit' });
      const id = campaignId!;
      const ann = await admin.addParticipant({ id, email: 'ann.sources@example.com' });
      const ben = await admin.addParticipant({ id, email: 'ben.sources@example.com', referredByCode: ann.referralCode! });
      // Signed as Paddle signs (test/server/payment-sources.test.ts): h1 is the hex HMAC-SHA256 of "ts:body".
      const PADDLE_SECRET = 'pdl_ntfset_01dashboardE2E_0123456789';
      const paddle = async (body: unknown) => {
        const payload = JSON.stringify(body);
        const ts = Math.floor(Date.now() / 1000);
        const signature = `ts=${ts};h1=${createHmac('sha256', PADDLE_SECRET).update(`${ts}:${payload}`).digest('hex')}`;
        const res = await fetch(`${seeded.service.url}/api/v1/integrations/paddle/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'paddle-signature': signature }, body: payload });
        return ((await res.json()) as { outcome?: string }).outcome;
      };
      const transaction = (txn: string, code: string | null, total: string, currency = 'USD', payout?: string) => ({
        event_id: `evt_${txn}`,
        event_type: 'transaction.completed',
        occurred_at: new Date().toISOString(),
        data: {
          id: txn,
          status: 'completed',
          customer_id: code === null ? 'ctm_stranger' : 'ctm_ben',
          currency_code: currency,
          custom_data: code === null ? null : { refkit_code: code },
          details: {
            totals: { subtotal: total, discount: '0', tax: '0', total, grand_total: total, currency_code: currency },
            payout_totals: payout ? { subtotal: payout, tax: '0', discount: '0', total: payout, fee: '0', earnings: payout, currency_code: 'USD' } : null,
          },
        },
      });

      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/billing`);
      const card = page.locator('rk-payment-sources');
      await card.getByRole('heading', { name: 'Sales from other providers' }).waitFor();
      // Each provider: its endpoint and the events to select in its console.
      const events: [string, string, string[]][] = [
        ['Lemon Squeezy', 'lemonsqueezy', ['order_created', 'subscription_payment_success', 'order_refunded']],
        ['Shopify', 'shopify', ['orders/paid', 'refunds/create']],
        ['Chargebee', 'chargebee', ['payment_succeeded', 'payment_refunded']],
        ['Segment', 'segment', ['Order Completed', 'Order Refunded']],
        ['Paddle', 'paddle', ['transaction.completed', 'adjustment.created', 'adjustment.updated']],
      ];
      for (const [name, path, types] of events) {
        await card.getByRole('group', { name: 'Provider' }).getByRole('button', { name, exact: true }).click();
        const listed = card.getByRole('list', { name: `Events to select in ${name}` });
        for (const type of types) await listed.getByText(type, { exact: true }).waitFor();
        assert.equal(await listed.locator('li').count(), types.length);
        await card.getByRole('button', { name: `Copy ${name} endpoint URL` }).click();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${seeded.service.url}/api/v1/integrations/${path}/${id}`);
        if (path === 'chargebee') {
          await card.getByLabel('Chargebee password').waitFor();
          await card.locator('form.secret').screenshot({ path: '/tmp/payment-sources-chargebee-1280.png' });
        }
      }
      assert.equal(await card.getByRole('button', { name: 'Paddle', exact: true }).getAttribute('aria-pressed'), 'true');

      // The secret: a refusal beside the field, then set (write-only: "set" after a reload, never the secret).
      await card.getByText('not set', { exact: true }).waitFor();
      await card.getByLabel('Paddle secret key').fill('x'.repeat(501));
      await card.getByRole('button', { name: 'Save Paddle secret' }).click();
      await card.locator('.field-error').getByText(/paddleWebhookSecret/).waitFor();
      assert.equal(await card.getByLabel('Paddle secret key').getAttribute('aria-invalid'), 'true');
      await card.getByLabel('Paddle secret key').fill(PADDLE_SECRET);
      await card.getByRole('button', { name: 'Save Paddle secret' }).click();
      await card.getByText('Paddle secret saved.').waitFor();
      await card.getByText('set', { exact: true }).waitFor();
      assert.deepEqual((await admin.listCampaigns()).find((c) => c.campaignId === id)!.paymentSourcesConfigured, ['paddle']);

      // Paddle's events: one converted by what Paddle paid out, one for nobody, one held for its currency.
      assert.equal(await paddle(transaction('txn_eur_paid', ben.referralCode!, '4600', 'EUR', '5000')), 'applied');
      assert.equal(await paddle(transaction('txn_stranger', null, '3000')), 'unmatched');
      assert.equal(await paddle(transaction('txn_eur_held', ben.referralCode!, '4000', 'EUR')), 'held');
      await page.reload();
      await card.getByText('set', { exact: true }).waitFor();
      assert.equal(await card.getByLabel('Paddle secret key').inputValue(), '');
      const table = card.getByRole('table', { name: 'Events from Paddle' });
      const rows = table.locator('tbody tr');
      const listed = await admin.listPaymentEvents(id, { provider: 'paddle' });
      const stray = listed.find((e) => e.status === 'unmatched')!;
      const converted = listed.find((e) => e.status === 'applied')!;
      const held = listed.find((e) => e.status === 'held')!;
      await rows.filter({ hasText: held.id }).waitFor();
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.className)), ['unmatched', ...listed.filter((e) => e.status !== 'unmatched').map((e) => e.status)]);
      await card.getByText('1 event names no participant').waitFor();
      await rows.filter({ hasText: stray.id }).getByText('$30.00').waitFor();
      const convertedRow = rows.filter({ hasText: converted.id });
      for (const text of ['€46.00', '= $50.00', 'settled by the provider: EUR -> USD']) await convertedRow.getByText(text).waitFor();
      await rows.filter({ hasText: held.id }).getByText(/in EUR .* in USD/).waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        assert.deepEqual(await seriousViolations(page), [], `billing with Paddle's events at ${width} px`);
        assert.equal(await overflowsSideways(page), false, `billing wider than ${width} px`);
        await card.screenshot({ path: `/tmp/payment-sources-${width}.png` });
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // Matched by hand: a wrong email said in its row, then the right one applies it.
      await card.getByLabel(`Participant for ${stray.id}`).fill('nobody@example.com');
      await card.getByRole('button', { name: `Match ${stray.id}` }).click();
      await rows.filter({ hasText: stray.id }).getByRole('alert').getByText(/participant/i).waitFor();
      await card.getByLabel(`Participant for ${stray.id}`).fill(ben.email!);
      await card.getByRole('button', { name: `Match ${stray.id}` }).click();
      await card.getByText(`${stray.id} applied to ${ben.email}.`).waitFor();
      await rows.filter({ hasText: stray.id }).getByRole('link', { name: ben.email! }).waitFor();
      assert.equal((await admin.listPaymentEvents(id, { provider: 'paddle', status: 'unmatched' })).length, 0);

      // Exchange rates: none yet; the base refused among the rates beside its row; then saved, applying the held event.
      const rates = page.locator('rk-exchange-rates');
      await rates.getByText('No rates set yet', { exact: false }).waitFor();
      await rates.getByLabel('Base currency').fill('usd');
      await rates.getByLabel('Rates as of').fill('2026-12-01');
      await rates.getByLabel('Currency 1', { exact: true }).fill('USD');
      await rates.getByLabel('Units of USD per 1 USD').fill('2');
      await rates.getByRole('button', { name: 'Save exchange rates' }).click();
      await rates.getByRole('alert').getByText(/leave USD out of rates/).waitFor();
      assert.equal(await rates.getByLabel('Units of USD per 1 USD').getAttribute('aria-invalid'), 'true');
      assert.equal(await admin.getExchangeRates(), null);
      await rates.getByLabel('Currency 1', { exact: true }).fill('EUR');
      await rates.getByLabel('Units of USD per 1 EUR').fill('1.25');
      await rates.getByRole('button', { name: 'Add currency' }).click();
      await rates.getByLabel('Currency 2', { exact: true }).fill('GBP');
      await rates.getByLabel('Units of USD per 1 GBP').fill('1.27');
      await rates.getByRole('button', { name: 'Save exchange rates' }).click();
      await rates.getByText('Exchange rates saved: 1 held event applied.').waitFor();
      await rates.getByText('Dec 1, 2026').waitFor();
      const saved = (await admin.getExchangeRates())!;
      assert.deepEqual([saved.base, saved.rates, saved.asOf], ['USD', { EUR: 1.25, GBP: 1.27 }, '2026-12-01T00:00:00.000Z']);
      const heldRow = rows.filter({ hasText: held.id });
      await heldRow.getByText('applied', { exact: true }).waitFor();
      await heldRow.getByText('= $50.00').waitFor();
      await heldRow.getByText(/1 EUR = 1\.25 USD/).waitFor();
      await page.reload();
      await rates.getByText('Dec 1, 2026').waitFor();
      assert.deepEqual([await rates.getByLabel('Units of USD per 1 EUR').inputValue(), await rates.getByLabel('Units of USD per 1 GBP').inputValue()], ['1.25', '1.27']);

      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
        assert.deepEqual(await seriousViolations(page), [], `billing with exchange rates at ${width} px`);
        assert.equal(await overflowsSideways(page), false, `billing wider than ${width} px`);
        await rates.screenshot({ path: `/tmp/exchange-rates-${width}.png` });
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // The service refusing the account-wide rates to test mode (a test key's 403): said plainly, nothing changed.
      await page.route('**/api/v1/admin/setExchangeRates', (route) =>
        route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'forbidden', message: 'A test key acts on test mode only, never on the whole account (members, invitations, settings): use a live key or the dashboard' } }) }),
      );
      await rates.getByLabel('Units of USD per 1 EUR').fill('1.3');
      await rates.getByRole('button', { name: 'Save exchange rates' }).click();
      await rates.getByRole('alert').getByText(/exchange rates are the whole account’s, for live and test campaigns alike, and test mode may not change them/).waitFor();
      await page.unroute('**/api/v1/admin/setExchangeRates');
      assert.deepEqual((await admin.getExchangeRates())!.rates, { EUR: 1.25, GBP: 1.27 });

      // A viewer reads the secret's state, the events and the rates, with no control.
      const VIEWER = { email: 'viewer.sources@acme.example', password: 'a viewer passphrase' };
      await createOwner(seeded.service.ctx, VIEWER.email, VIEWER.password, undefined, 'viewer');
      const viewer = await signedIn(browser, seeded.service.url, 1280, VIEWER);
      try {
        await viewer.page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/billing`);
        const theirs = viewer.page.locator('rk-exchange-rates');
        await theirs.getByRole('table', { name: 'Exchange rates' }).getByText('1 EUR = 1.25 USD', { exact: false }).waitFor();
        await viewer.page.locator('rk-payment-sources').getByRole('table', { name: 'Events from Paddle' }).getByText(held.id).waitFor();
        await viewer.page.locator('rk-payment-sources').getByText('set', { exact: true }).waitFor();
        for (const name of ['Save exchange rates', 'Add currency', 'Save Paddle secret', 'Replace Paddle secret', 'Remove Paddle secret']) {
          assert.equal(await viewer.page.getByRole('button', { name }).count(), 0, name);
        }
        assert.equal(await viewer.page.locator('rk-payment-sources').getByLabel('Paddle secret key').isDisabled(), true);
        assert.deepEqual(viewer.problems, []);
      } finally {
        await viewer.context.close();
      }
    }));

  it('billing: reward code pools filled from a CSV file and from pasted codes (the counts change); a bad line, in a file or pasted after blank lines, is shown and nothing is added', () =>
    task(async ({ page }) => {
      const { campaignId: id } = await seeded.service.admin.createCampaign({ campaignName: 'Pools campaign', hostURL: 'https://acme.example/pools', referrerRewardValue: 10, refereeRewardValue: 5 });
      const pools = () => seeded.service.admin.listRewardCodePools(id!);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}/billing`);
      const card = page.locator('rk-reward-code-pools');
      const table = card.getByRole('table', { name: 'Reward code pools' });
      await table.getByText('No pool yet').waitFor();

      const good = join(tmp, 'codes.csv');
      writeFileSync(good, 'code\nGIFT-1\nGIFT-2\nGIFT-3\nGIFT-2\n');
      await card.getByLabel('Pool', { exact: true }).selectOption('referee');
      await card.getByLabel('CSV file').setInputFiles(good);
      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByText('Referee rewards: added 3 codes, 1 duplicate skipped.').waitFor();
      await table.getByRole('row', { name: 'Referee rewards 3 0 0' }).waitFor();
      assert.deepEqual(await pools(), [{ kind: 'referee', available: 3, used: 0, waiting: 0 }]);

      const bad = join(tmp, 'bad-codes.csv');
      writeFileSync(bad, `NEW-1\n${'X'.repeat(101)}\nNEW-2\n`);
      await card.getByLabel('Pool', { exact: true }).selectOption('referee');
      await card.getByLabel('CSV file').setInputFiles(bad);
      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByRole('alert').getByText('1 of 3 codes cannot be added, so none was').waitFor();
      const report = card.getByRole('table', { name: 'Lines refused' });
      await report.getByRole('row', { name: /^2 code code is 101 characters long/ }).waitFor();
      assert.deepEqual(await pools(), [{ kind: 'referee', available: 3, used: 0, waiting: 0 }]);

      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByRole('alert').getByText('Choose a CSV file or paste codes, one a line.').waitFor();
      // Pasted: the list sent has no blank lines, yet the report names the line of the text area.
      await card.getByLabel('Pool', { exact: true }).selectOption('referral');
      await card.getByLabel('Or paste codes, one a line').fill(`P-1\n\nP-2\n\n${'Y'.repeat(101)}\nP-3`);
      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByRole('alert').getByText('Line 5 cannot be added, so no code was').waitFor();
      await report.getByRole('row', { name: /^5 — The code .*100 characters/ }).waitFor();
      assert.deepEqual(await pools(), [{ kind: 'referee', available: 3, used: 0, waiting: 0 }]);

      await card.getByLabel('Or paste codes, one a line').fill('P-1\r\n\r\n  P-2  \nP-1\n');
      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByText('Referral rewards: added 2 codes, 1 duplicate skipped.').waitFor();
      assert.equal(await report.count(), 0);
      await table.getByRole('row', { name: 'Referral rewards 2 0 0' }).waitFor();
      await table.getByRole('row', { name: 'Referee rewards 3 0 0' }).waitFor();
      assert.equal(await card.getByLabel('Or paste codes, one a line').inputValue(), '');
      assert.deepEqual(
        (await pools()).sort((a, b) => a.kind.localeCompare(b.kind)),
        [
          { kind: 'referee', available: 3, used: 0, waiting: 0 },
          { kind: 'referral', available: 2, used: 0, waiting: 0 },
        ],
      );
    }));

  it('billing: credits waiting on an empty pool are a warning until a refill serves them; the low threshold is saved and heeded', () =>
    task(async ({ page }) => {
      const admin = seeded.service.admin;
      const { campaignId: id } = await admin.createCampaign({ campaignName: 'Waiting campaign', hostURL: 'https://acme.example/waiting', referrerRewardValue: 10 });
      // One code for three qualified referrals: the first takes it, two wait.
      await admin.addRewardCodes({ id: id!, kind: 'referral', codes: ['FIRST'] });
      const ann = await admin.addParticipant({ id: id!, email: 'ann@example.com' });
      for (let i = 0; i < 3; i++) {
        await admin.addParticipant({ id: id!, email: `pal${i}@example.com`, referredByCode: ann.referralCode! });
        await admin.qualifyParticipant({ id: id!, email: `pal${i}@example.com` });
      }
      assert.deepEqual(await admin.listRewardCodePools(id!), [{ kind: 'referral', available: 0, used: 1, waiting: 2 }]);

      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}/billing`);
      const card = page.locator('rk-reward-code-pools');
      const table = card.getByRole('table', { name: 'Reward code pools' });
      const warnings = card.getByRole('list', { name: 'Pools that need codes' });
      await table.getByRole('row', { name: 'Referral rewards 0 1 2' }).waitFor();
      await warnings.getByText('empty Referral rewards: 2 credits wait for a code').waitFor();

      const threshold = card.getByLabel('Low when fewer than');
      assert.equal(await threshold.inputValue(), '10');
      await threshold.fill('5');
      await card.getByRole('button', { name: 'Save threshold' }).click();
      await card.getByText('A pool with fewer than 5 codes left is called low now.').waitFor();
      assert.equal((await admin.listCampaigns()).find((c) => c.campaignId === id)!.rewardCodesLowThreshold, 5);

      await card.getByLabel('Pool', { exact: true }).selectOption('referral');
      await card.getByLabel('Or paste codes, one a line').fill('SECOND\nTHIRD\nFOURTH\n');
      await card.getByRole('button', { name: 'Add codes' }).click();
      await card.getByText('Referral rewards: added 3 codes, 0 duplicates skipped; 2 waiting credits got one.').waitFor();
      await table.getByRole('row', { name: 'Referral rewards 1 3 0' }).waitFor();
      await warnings.getByText('low Referral rewards: 1 code left, under 5').waitFor();
      assert.equal(await warnings.getByText('empty').count(), 0);
      assert.deepEqual(await admin.listRewardCodePools(id!), [{ kind: 'referral', available: 1, used: 3, waiting: 0 }]);

      await threshold.fill('0');
      await card.getByRole('button', { name: 'Save threshold' }).click();
      await card.getByText('Pools are never called low now.').waitFor();
      await warnings.waitFor({ state: 'detached' });
      await page.reload();
      await table.getByRole('row', { name: 'Referral rewards 1 3 0' }).waitFor();
      assert.equal(await threshold.inputValue(), '0');
      assert.equal(await warnings.count(), 0);
    }));

  it('billing: rewards paid into Stripe: the restricted key (a secret key is refused beside the field) and mode saved; payouts listed, a failed one retried', () =>
    task(async ({ page }) => {
      const admin = seeded.service.admin;
      const { campaignId: id } = await admin.createCampaign({ campaignName: 'Payout campaign', hostURL: 'https://acme.example/payouts', referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit' });
      await admin.updateCampaign({ id: id!, stripeWebhookSecret: SECRET });
      const fake = await new FakeStripe().allowKey(PAYOUT_KEY).addCustomer('cus_ann').addCustomer('cus_ben').start();
      try {
        await page.goto(`/admin/#/campaigns/${encodeURIComponent(id!)}/billing`);
        const card = page.locator('rk-stripe-payout-settings');
        await card.getByText('not set', { exact: true }).waitFor();
        await card.getByLabel('Restricted key').fill('sk_live_notRestricted0123456789');
        await card.getByLabel('Pay rewards as').selectOption('balance');
        await card.getByRole('button', { name: 'Save payout settings' }).click();
        await card.locator('.field-error').getByText(/stripeRewardKey/).waitFor();
        assert.equal(await card.getByLabel('Restricted key').getAttribute('aria-invalid'), 'true');
        assert.equal((await admin.listCampaigns()).find((c) => c.campaignId === id)!.stripeRewardMode, 'off');
        await card.getByLabel('Restricted key').fill(PAYOUT_KEY);
        await card.getByRole('button', { name: 'Save payout settings' }).click();
        await card.getByText('Saved. Available rewards are paid into Stripe from now on.').waitFor();
        await card.getByText('set', { exact: true }).waitFor();
        const settings = (await admin.listCampaigns()).find((c) => c.campaignId === id)!;
        assert.deepEqual([settings.stripeRewardKeyConfigured, settings.stripeRewardMode], [true, 'balance']);
        await page.reload();
        await card.getByText('set', { exact: true }).waitFor();
        assert.equal(await card.getByLabel('Restricted key').inputValue(), '', 'write-only');
        assert.equal(await card.getByLabel('Pay rewards as').inputValue(), 'balance');

        // Ann's subscription links her customer; Ben pays: both are credited, and Stripe refuses Ben's credit once
        // (the sender also sends what other tests left due, in an order of its own: the failure is Ben's alone).
        const ann = await admin.addParticipant({ id: id!, email: 'ann@example.com' });
        const ben = await admin.addParticipant({ id: id!, email: 'ben@example.com', referredByCode: ann.referralCode! });
        await send(seeded.service, id!, event('checkout.session.completed', checkoutSession(ann.referralCode!, 'ann@example.com', 0, { mode: 'subscription', customer: 'cus_ann' })));
        await send(seeded.service, id!, event('checkout.session.completed', checkoutSession(ben.referralCode!, 'ben@example.com', 2900, { customer: 'cus_ben' })));
        const sender = new StripePayoutSender(seeded.service.ctx, { api: fake.api });
        fake.fail({ kind: '400', message: 'This customer has no balance in usd', path: '/v1/customers/cus_ben/' });
        await sender.sendDue();
        const failed = (await admin.listStripePayouts(id!, { status: 'failed' }))[0]!;
        assert.equal(failed.email, 'ben@example.com');

        await page.getByRole('button', { name: 'Reload payouts' }).click();
        const table = page.getByRole('table', { name: 'Payouts to Stripe' });
        const failedRow = table.locator('tbody tr').filter({ hasText: failed.email });
        await failedRow.getByText('Stripe answered 400: This customer has no balance in usd').waitFor();
        await failedRow.getByText('failed', { exact: true }).waitFor();
        const paidRow = table.locator('tbody tr').filter({ hasText: 'ann@example.com' });
        await paidRow.getByText('paid', { exact: true }).waitFor();
        await paidRow.getByText(/^cbtxn_/).waitFor();
        assert.equal(await paidRow.getByRole('button', { name: /Retry/ }).count(), 0);

        await page.getByLabel('Filter payouts').selectOption('failed');
        await waitFor(async () => (await table.locator('tbody tr').count()) === 1, 'only the failed payout listed');
        await page.getByRole('button', { name: `Retry payout ${failed.id}` }).click();
        await page.getByText(`Payout ${failed.id} to ${failed.email} is sent again shortly.`).waitFor();
        await failedRow.getByText('queued', { exact: true }).waitFor();
        await sender.sendDue();
        await page.getByLabel('Filter payouts').selectOption('');
        await page.getByRole('button', { name: 'Reload payouts' }).click();
        await waitFor(async () => (await table.getByText('paid', { exact: true }).count()) === 2, 'both paid');
        assert.deepEqual((await admin.listStripePayouts(id!)).map((p) => p.status), ['paid', 'paid']);
        await page.getByLabel('Filter payouts').selectOption('failed');
        await table.getByText('No failed payout yet.').waitFor();
      } finally {
        await fake.stop();
      }
    }));

  it("billing: the friend's discount needs the restricted key (said beside the field), is saved; its promotion codes listed (made, refused with the reason, queued) and filtered; a participant's code changed (refusals beside the field); a viewer sees neither control; turned off", () =>
    task(async ({ page }) => {
      const admin = seeded.service.admin;
      const id = (await admin.createCampaign({ campaignName: 'Discount campaign', hostURL: 'https://acme.example/discount', referrerRewardValue: 10, rewardType: 'credit' })).campaignId!;
      const ann = await admin.addParticipant({ id, email: 'ann@discount.example' });
      const ben = await admin.addParticipant({ id, email: 'ben@discount.example' });
      const settingsOf = async () => (await admin.listCampaigns()).find((c) => c.campaignId === id)!;
      const billing = `/admin/#/campaigns/${encodeURIComponent(id)}/billing`;
      const fake = await new FakeStripe().allowKey(PAYOUT_KEY).start();
      try {
        await page.goto(billing);
        const card = page.locator('rk-referee-discount');
        await card.getByText('needs the restricted key').waitFor();
        await page.getByRole('table', { name: 'Promotion codes' }).getByText('No promotion codes yet', { exact: false }).waitFor();
        await card.getByLabel('Discount', { exact: true }).selectOption('percent');
        await card.getByLabel('Percent off').fill('15');
        await card.getByLabel('Applies to').selectOption('repeating');
        await card.getByLabel('For how many months').fill('3');
        await card.getByRole('button', { name: 'Save discount' }).click();
        await card.locator('.field-error').getByText(/stripeRewardKey/).waitFor();
        assert.equal(await card.getByLabel('Discount', { exact: true }).getAttribute('aria-invalid'), 'true');
        assert.equal((await settingsOf()).refereeDiscount, null);
        // The key saved above keeps what is typed in the discount's form.
        await page.locator('rk-stripe-payout-settings').getByLabel('Restricted key').fill(PAYOUT_KEY);
        await page.getByRole('button', { name: 'Save payout settings' }).click();
        await card.getByText('restricted key set').waitFor();
        assert.equal(await card.getByLabel('Percent off').inputValue(), '15');
        await card.getByRole('button', { name: 'Save discount' }).click();
        await card.getByText('Saved: 15% off each payment for 3 months.', { exact: false }).waitFor();
        assert.deepEqual([(await settingsOf()).refereeDiscount, (await settingsOf()).promotionCodePrefix], [{ percentOff: 15, duration: 'repeating', durationInMonths: 3 }, null]);
        await page.reload();
        await card.getByText('Now: 15% off each payment for 3 months').waitFor();
        assert.deepEqual([await card.getByLabel('Percent off').inputValue(), await card.getByLabel('Applies to').inputValue(), await card.getByLabel('For how many months').inputValue()], ['15', 'repeating', '3']);

        // Stripe makes Ann's code; Ben's text is taken in the account already (another campaign made it).
        const stripe = new (await import('stripe')).default(PAYOUT_KEY, { host: '127.0.0.1', port: fake.port, protocol: 'http', telemetry: false });
        const other = await stripe.coupons.create({ percent_off: 5, duration: 'once' });
        await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: other.id }, code: ben.referralCode! });
        const sync = new PromotionCodeSync(seeded.service.ctx, { api: fake.api, retryDelaysMs: [0], waitMs: 0, timeoutMs: 2000, leaseMs: 30_000 });
        for (let i = 0; i < 5 && (await sync.syncNow()) > 0; i++);
        const annPromo = (await admin.getParticipantDetail(id, ann.email!)).promotionCode!;
        await page.getByRole('button', { name: 'Reload codes' }).click();
        const codes = page.getByRole('table', { name: 'Promotion codes' });
        const annRow = codes.locator('tbody tr').filter({ hasText: ann.email! });
        await annRow.getByText('Active', { exact: true }).waitFor();
        await annRow.getByText(annPromo.id).waitFor();
        const benRow = codes.locator('tbody tr').filter({ hasText: ben.email! });
        await benRow.getByText('Failed', { exact: true }).waitFor();
        await benRow.getByText(/promotionCodePrefix/).waitFor();
        await page.getByLabel('Filter codes').selectOption('failed');
        await waitFor(async () => (await codes.locator('tbody tr').count()) === 1, 'only the failed code listed');
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await benRow.getByText(/promotionCodePrefix/).waitFor();
          assert.deepEqual(await seriousViolations(page), [], `billing at ${width} px`);
          assert.equal(await overflowsSideways(page), false, `billing wider than ${width} px`);
          await card.screenshot({ path: `/tmp/discount-card-${width}.png` });
          await page.getByLabel('Filter codes').selectOption('');
          await annRow.waitFor();
          await page.locator('rk-promotion-codes').screenshot({ path: `/tmp/promotion-codes-${width}.png` });
          await page.getByLabel('Filter codes').selectOption('failed');
          await annRow.waitFor({ state: 'detached' });
        }
        await page.setViewportSize({ width: 1280, height: 900 });

        // Ann's page: her promotion code, and her code changed (what the service refuses is said beside the field).
        await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/participants/${encodeURIComponent(ann.email!)}`);
        const codeCard = page.locator('rk-participant-detail section[aria-labelledby=code-h]');
        assert.equal(await codeCard.locator('[data-promotion-code]').innerText(), annPromo.code);
        await codeCard.getByLabel('New referral code').fill('ab');
        await codeCard.getByRole('button', { name: 'Change referral code' }).click();
        await codeCard.locator('.field-error').getByText('A code has 4 to 24 characters').waitFor();
        assert.equal(await codeCard.getByLabel('New referral code').getAttribute('aria-invalid'), 'true');
        await codeCard.getByLabel('New referral code').fill(ben.referralCode!.toLowerCase());
        await codeCard.getByRole('button', { name: 'Change referral code' }).click();
        await codeCard.locator('.field-error').getByText(/Another participant of this campaign has this code/).waitFor();
        await codeCard.getByLabel('New referral code').fill('ann-vip');
        await codeCard.getByRole('button', { name: 'Change referral code' }).click();
        await page.getByText('Referral code changed to ANN-VIP. The old code keeps working for them.').waitFor();
        await codeCard.locator('[data-code]').getByText('ANN-VIP').waitFor();
        assert.equal((await admin.getParticipant(id, ann.email!)).referralCode, 'ANN-VIP');
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await codeCard.screenshot({ path: `/tmp/participant-code-${width}.png` });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/participants/${encodeURIComponent(ben.email!)}`);
        await codeCard.getByText('No promotion code made yet.').waitFor();
        // Her new code's promotion code waits to be made.
        await page.goto(billing);
        await page.getByLabel('Filter codes').selectOption('queued');
        await codes.locator('tbody tr').filter({ hasText: ann.email! }).getByText('Queued', { exact: true }).waitFor();
        await codes.getByText('ANN-VIP', { exact: true }).waitFor();

        // A viewer reads the discount and the codes, with neither control.
        const VIEWER = { email: 'viewer.discount@acme.example', password: 'a viewer passphrase' };
        await createOwner(seeded.service.ctx, VIEWER.email, VIEWER.password, undefined, 'viewer');
        const viewer = await signedIn(browser, seeded.service.url, 1280, VIEWER);
        try {
          await viewer.page.goto(billing);
          await viewer.page.getByText('Now: 15% off each payment for 3 months').waitFor();
          assert.equal(await viewer.page.locator('rk-referee-discount').getByLabel('Discount', { exact: true }).isDisabled(), true);
          assert.equal(await viewer.page.getByRole('button', { name: 'Save discount' }).count(), 0);
          await viewer.page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/participants/${encodeURIComponent(ann.email!)}`);
          await viewer.page.locator('[data-promotion-code]').waitFor();
          assert.equal(await viewer.page.getByRole('button', { name: 'Change referral code' }).count(), 0);
          assert.equal(await viewer.page.getByLabel('New referral code').count(), 0);
          assert.deepEqual(viewer.problems, []);
        } finally {
          await viewer.context.close();
        }

        // An amount off the first payment, with a prefix for the codes: no months to say.
        await card.getByLabel('Discount', { exact: true }).selectOption('amount');
        await card.getByLabel('Amount off (USD)').fill('10');
        await card.getByLabel('Applies to').selectOption('once');
        assert.equal(await card.getByLabel('For how many months').count(), 0);
        await card.getByLabel('Code prefix (optional)').fill('shop2-');
        await card.getByRole('button', { name: 'Save discount' }).click();
        await card.getByText('Saved: $10 off the first payment.', { exact: false }).waitFor();
        assert.deepEqual([(await settingsOf()).refereeDiscount, (await settingsOf()).promotionCodePrefix], [{ amountOff: 10, duration: 'once' }, 'SHOP2-']);
        await card.getByText('Now: $10 off the first payment').waitFor();
        assert.equal(await card.getByLabel('Code prefix (optional)').inputValue(), 'SHOP2-');
        // Turned off, after a confirmation: every code is to be deactivated.
        await card.getByLabel('Discount', { exact: true }).selectOption('off');
        await card.getByRole('button', { name: 'Save discount' }).click();
        await confirm(page, 'Turn off');
        await card.getByText('Saved. Friends get no discount at checkout.').waitFor();
        assert.equal((await settingsOf()).refereeDiscount, null);
      } finally {
        await fake.stop();
      }
    }));

  it('API keys: create one (shown once, it works), then revoke it (it stops working)', () =>
    task(async ({ page }) => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill('warehouse sync');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.locator('.notice code').textContent())!;
      assert.match(key, /^sk_/);
      const client = new RefkitClient({ baseUrl: seeded.service.url, secretKey: key });
      assert.ok((await client.listCampaigns()).length >= 2);
      await page.getByRole('button', { name: 'Revoke warehouse sync' }).click();
      await confirm(page, 'Revoke key');
      await page.getByText('Key “warehouse sync” revoked.').waitFor();
      await rejects(() => client.listCampaigns(), 401, 'unauthorized');
    }));

  // The form's behaviour is checked once; at 390 px the page is reached from the phone's row of links and
  // checked for width, as it is left (the every-page test below runs axe at both widths).
  it('data retention at 1280 and 390 px: the defaults shown; periods saved (a reload shows them); no IPs at all, and back; a period out of bounds is not sent', () =>
    task(async ({ page }) => {
      const api = seeded.service.admin;
      try {
        await page.getByRole('link', { name: 'Data retention' }).click();
        await page.getByRole('heading', { name: 'Data retention', level: 1 }).waitFor();
        const form = page.locator('rk-data-retention form');
        assert.equal(await form.getByLabel('IP addresses', { exact: true }).inputValue(), '90');
        assert.equal(await form.getByLabel('Delivered webhooks').inputValue(), '30');
        assert.equal(await form.getByLabel('Email log').inputValue(), '90');
        await form.getByLabel('Delivered webhooks').fill('14');
        await form.getByLabel('Email log').fill('180');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved. Older data goes at the next pruning').waitFor();
        assert.deepEqual((await api.getAccountSettings()).retention, { ipDays: 90, webhookDays: 14, emailDays: 180 });
        await page.reload();
        assert.equal(await form.getByLabel('Email log').inputValue(), '180');

        await form.getByLabel('Store no IP addresses at all').check();
        assert.equal(await form.getByLabel('IP addresses', { exact: true }).isDisabled(), true);
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved. Older data goes at the next pruning').waitFor();
        assert.equal((await api.getAccountSettings()).retention.ipDays, 0);
        await page.reload();
        assert.equal(await form.getByLabel('Store no IP addresses at all').isChecked(), true);
        await form.getByLabel('Store no IP addresses at all').uncheck();
        assert.equal(await form.getByLabel('IP addresses', { exact: true }).inputValue(), '90');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved. Older data goes at the next pruning').waitFor();
        assert.equal((await api.getAccountSettings()).retention.ipDays, 90);

        // Beyond ten years: the browser holds the form back, and nothing changes.
        await form.getByLabel('Email log').fill('5000');
        await page.getByRole('button', { name: 'Save' }).click();
        assert.equal(await form.getByLabel('Email log').evaluate((el) => (el as HTMLInputElement).validity.rangeOverflow), true);
        assert.equal((await api.getAccountSettings()).retention.emailDays, 180);
        assert.equal(await overflowsSideways(page), false, 'wider than 1280 px');
        await page.setViewportSize({ width: 390, height: 900 });
        assert.equal(await overflowsSideways(page), false, 'wider than 390 px');
        // On a phone: from another page, through the row of links, to the saved periods.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns', exact: true }).click();
        await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
        await page.getByRole('link', { name: 'Data retention' }).click();
        await page.getByRole('heading', { name: 'Data retention', level: 1 }).waitFor();
        assert.deepEqual([await form.getByLabel('Delivered webhooks').inputValue(), await form.getByLabel('Email log').inputValue()], ['14', '180']);
        assert.equal(await overflowsSideways(page), false, 'wider than 390 px');
      } finally {
        // The other tests sign people up on this service with the defaults.
        await api.updateAccountSettings({ retention: { ipDays: 90, webhookDays: 30, emailDays: 90 } });
      }
    }));

  // The account's behaviour is checked once; both of its links (the desktop sidebar's and the phone's
  // row's) are followed, and the page is checked for width at both, with the notice of the change shown.
  it('account at 1280 and 390 px: change the password (other sessions end, this one goes on), then sign out everywhere', async () => {
    // An owner of this test's own: the seeded owner's password stays as the other tests need it.
    const me = { email: 'account@acme.example', password: 'the first passphrase' };
    const next = 'the second passphrase';
    await createOwner(seeded.service.ctx, me.email, me.password);
    const elsewhere = await signedIn(browser, seeded.service.url, 1280, me);
    const d = await signedIn(browser, seeded.service.url, 390, me);
    const { page } = d;
    try {
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns', exact: true }).click();
      await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      const form = page.locator('rk-account form');
      await form.getByLabel('Current password').fill('not my password');
      await form.getByLabel('New password', { exact: true }).fill(next);
      await form.getByLabel('New password, again').fill(`${next}!`);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').getByText('The new passwords do not match.').waitFor();
      await form.getByLabel('New password, again').fill(next);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').getByText('The current password is wrong').waitFor();
      await form.getByLabel('Current password').fill(me.password);
      await form.getByLabel('New password', { exact: true }).fill(next);
      await form.getByLabel('New password, again').fill(next);
      await page.getByRole('button', { name: 'Change password' }).click();
      const changed = page.getByText('Password changed. 1 other session was signed out; this one stays signed in.');
      await changed.waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await changed.waitFor();
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
      }
      // The other browser's session is over: its next call returns it to sign-in.
      await elsewhere.page.reload();
      await elsewhere.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const second = await signedIn(browser, seeded.service.url, 1280, { email: me.email, password: next });

      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await confirm(page, 'Sign out everywhere');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await second.page.reload();
      await second.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await second.context.close();
      assert.deepEqual(d.problems, []);
    } finally {
      await d.context.close();
      await elsewhere.context.close();
    }
  });

  for (const width of [1280, 390]) {
    it(`every page at ${width} px: no serious or critical axe violation, nothing wider than the screen`, () =>
      task(async ({ page, settled }) => {
        const id = encodeURIComponent(seeded.campaignId);
        const pages: [string, string][] = [
          [`#/campaigns`, 'Campaigns'],
          [`#/campaigns/new`, 'New campaign'],
          [`#/campaigns/${id}`, 'Acme Notes launch'],
          [`#/campaigns/${id}/participants`, 'Participants'],
          [`#/campaigns/${id}/participants/ava.0%40example.com`, 'ava.0@example.com'],
          [`#/campaigns/${id}/analytics`, 'Analytics'],
          [`#/campaigns/${id}/billing`, 'Billing'],
          [`#/campaigns/${id}/emails`, 'Emails'],
          [`#/webhooks`, 'Webhooks'],
          [`#/keys`, 'API keys'],
          [`#/settings/retention`, 'Data retention'],
          [`#/account`, 'Account'],
        ];
        for (const [hash, heading] of pages) {
          await page.goto(`/admin/${hash}`);
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
          await settled();
          assert.deepEqual(await seriousViolations(page), [], hash);
          assert.equal(await overflowsSideways(page), false, `${hash} is wider than ${width} px`);
        }
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        assert.deepEqual(await seriousViolations(page), [], 'sign-in');
        assert.equal(await overflowsSideways(page), false, 'sign-in');
      }, width));
  }
});
