/**
 * The dashboard's fraud controls end to end (a real service on SQLite, the built dashboard, Chromium): the
 * Fraud page lists a campaign's open case (the referrer, each signal's rule, what matched and the
 * participant), approving it behind the confirmation takes it off the open list and approves its
 * participants (credited), rejecting another at a phone's width does the opposite; the campaign editor's
 * blocklist, CAPTCHA and limits cards save and a reload shows what was saved (the CAPTCHA's secret only as
 * "set"); Settings → Blocklist saves the account's. No serious axe violation, nothing wider than the screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { holdForReview } from '../../src/server/fraud/domain/fraud-holds.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { confirm, launch, OWNER, overflowsSideways, seriousViolations, signedInTask, type DashboardPage } from './helpers/dashboard.js';

/** Rita refers Ann and Ben, whom a blocklist held (the real hold) and who then paid: one open case. */
async function heldCase(s: TestService, name: string): Promise<string> {
  const { campaignId } = await s.admin.createCampaign({ campaignName: name, hostURL: 'https://acme.example/join', referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit' });
  const id = campaignId!;
  const rita = await s.admin.addParticipant({ id, email: 'rita@example.com' });
  for (const email of ['ann@mailinator.example', 'ben@example.org']) {
    await s.admin.addParticipant({ id, email, referredByCode: rita.referralCode! });
    const p = (await s.ctx.store.findParticipantByEmail(id, email))!;
    const detail = email.endsWith('mailinator.example') ? `${email}: the domain mailinator.example is on the blocklist` : `${email}: paid with the card rita@example.com paid with`;
    await holdForReview(s.ctx, p, { kind: email.endsWith('mailinator.example') ? 'blocklist' : 'self_referral_payment', detail });
    await s.admin.qualifyParticipant({ id, email, amountPaid: '20.00' });
  }
  return id;
}

async function fitsAndPasses(page: Page, what: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  assert.equal(await overflowsSideways(page), false, `${what} is wider than the screen`);
}

describe('dashboard: fraud cases and controls', () => {
  let s: TestService;
  let browser: Browser;

  before(async () => {
    const [sqlite] = await databaseKinds();
    s = await startService(sqlite!);
    await createOwner(s.ctx, OWNER.email, OWNER.password);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const task = (width: number, fn: (d: DashboardPage) => Promise<void>) => signedInTask(browser, s.url, width, fn);

  it('the Fraud page lists the open case; approving it takes it off the list and approves and credits its participants', () =>
    task(1280, async ({ page, settled }) => {
      const id = await heldCase(s, 'Spring referrals');
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      await page.getByRole('link', { name: 'Fraud', exact: true }).click();
      await page.getByRole('heading', { name: 'Fraud cases', level: 1 }).waitFor();
      const theCase = page.getByRole('region', { name: /rita@example\.com/ });
      await theCase.waitFor();
      await theCase.getByRole('cell', { name: 'Blocklist', exact: true }).waitFor();
      await theCase.getByRole('cell', { name: "Paid with the referrer's card", exact: true }).waitFor();
      await theCase.getByText('ann@mailinator.example: the domain mailinator.example is on the blocklist').waitFor();
      await theCase.getByRole('link', { name: 'ben@example.org' }).waitFor();
      await theCase.getByText('2 participants held').waitFor();
      await settled();
      await fitsAndPasses(page, 'the Fraud page');

      // Cancelled, nothing happens; confirmed, the case is decided.
      await theCase.getByRole('button', { name: 'Approve the case of rita@example.com' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await s.admin.listFraudCases(id)).cases.length, 1);
      await theCase.getByRole('button', { name: 'Approve the case of rita@example.com' }).click();
      await confirm(page, 'Approve case');
      await page.getByText('The case of rita@example.com is approved.').waitFor();
      await page.getByText('No open cases.').waitFor();
      assert.deepEqual((await s.admin.listFraudCases(id)).cases, []);
      for (const email of ['ann@mailinator.example', 'ben@example.org']) {
        const { participant } = await s.admin.getParticipantDetail(id, email);
        assert.equal(participant.approval, true, `${email} approved`);
        assert.equal(participant.refereeReward, 5, `${email} credited`);
      }
      assert.equal((await s.admin.getParticipant(id, 'rita@example.com')).referralReward, 20);

      // The decided case under its filter, with who decided.
      await page.getByRole('button', { name: 'Approved', exact: true }).click();
      const decided = page.getByRole('region', { name: /rita@example\.com/ });
      await decided.getByText(`Approved by ${OWNER.email}`).waitFor();
      assert.equal(await decided.getByRole('button', { name: /Approve|Reject/ }).count(), 0, 'a decided case has no buttons');
    }));

  it('at 390 px a case is rejected: it leaves the open list and its participants stay unapproved', () =>
    task(390, async ({ page, settled }) => {
      const id = await heldCase(s, 'Phone campaign');
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/fraud`);
      const theCase = page.getByRole('region', { name: /rita@example\.com/ });
      await theCase.getByText('ann@mailinator.example: the domain mailinator.example is on the blocklist').waitFor();
      await settled();
      await fitsAndPasses(page, 'the Fraud page at 390 px');
      await theCase.getByRole('button', { name: 'Reject the case of rita@example.com' }).click();
      await confirm(page, 'Reject case');
      await page.getByText('The case of rita@example.com is rejected.').waitFor();
      await page.getByText('No open cases.').waitFor();
      for (const email of ['ann@mailinator.example', 'ben@example.org']) {
        const { participant } = await s.admin.getParticipantDetail(id, email);
        assert.equal(participant.approval, false);
        assert.equal(participant.rejected, true);
        assert.equal(participant.refereeReward, 0);
      }
      await page.getByRole('button', { name: 'Rejected', exact: true }).click();
      await page.getByRole('region', { name: /rita@example\.com/ }).getByText('rejected', { exact: true }).waitFor();
    }));

  it("the campaign editor's blocklist, CAPTCHA and limits save, and a reload shows what was saved", () =>
    task(1280, async ({ page, settled }) => {
      const { campaignId } = await s.admin.createCampaign({ campaignName: 'Guarded', hostURL: 'https://acme.example/guarded', referrerRewardValue: 10 });
      const id = campaignId!;
      const stored = async () => (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Guarded', level: 1 }).waitFor();

      // Blocklist: a refused entry is said beside its list; corrected, the lists are saved.
      const blocklist = page.getByRole('region', { name: 'Blocklist' });
      await blocklist.getByLabel('Email addresses').fill('spam@example.com\n\n  Other@Example.com ');
      await blocklist.getByLabel('Email domains').fill('mailinator.example');
      await blocklist.getByLabel('IP addresses and ranges').fill('203.0.113.0/24\nnot an ip');
      await blocklist.getByLabel('Countries').fill('xx');
      await blocklist.getByRole('button', { name: 'Save blocklist' }).click();
      await blocklist.getByRole('alert').waitFor();
      assert.equal(await blocklist.getByLabel('IP addresses and ranges').getAttribute('aria-invalid'), 'true');
      assert.equal((await stored()).blocklist, null);
      await blocklist.getByLabel('IP addresses and ranges').fill('203.0.113.0/24\n2001:db8::/32');
      await blocklist.getByRole('button', { name: 'Save blocklist' }).click();
      await blocklist.getByText('Blocklist saved.').waitFor();
      const saved = (await stored()).blocklist!;
      assert.deepEqual(saved.domains, ['mailinator.example']);
      assert.equal(saved.emails?.length, 2);
      assert.deepEqual(saved.ips, ['203.0.113.0/24', '2001:db8::/32']);
      assert.equal(saved.countries?.length, 1);

      // CAPTCHA: turned on with all three keys; the secret is never shown, only "set".
      const captcha = page.getByRole('region', { name: 'CAPTCHA' });
      await captcha.getByText('not set', { exact: true }).waitFor();
      await captcha.getByLabel('Provider').selectOption('hcaptcha');
      await captcha.getByLabel('Site key').fill('10000000-ffff-ffff-ffff-000000000001');
      await captcha.getByLabel('Secret key').fill('0x0000000000000000000000000000000000000000');
      await captcha.getByRole('button', { name: 'Save CAPTCHA' }).click();
      await captcha.getByText('CAPTCHA saved.').waitFor();
      await captcha.getByText('set', { exact: true }).waitFor();
      assert.equal(await captcha.getByLabel('Secret key').inputValue(), '', 'the secret is not kept in the page');
      assert.deepEqual((await stored()).captcha, { provider: 'hcaptcha', siteKey: '10000000-ffff-ffff-ffff-000000000001' });

      // Limits: one given, one left empty (no limit).
      const limits = page.getByRole('region', { name: 'Limits that hold' });
      await limits.getByLabel('Credited referrals per referrer per day').fill('3');
      await limits.getByRole('button', { name: 'Save limits' }).click();
      await limits.getByText('Limits saved.').waitFor();
      assert.deepEqual((await stored()).autoApprove, { maxRewardsPerDay: 3 });

      // A reload shows each as saved.
      await page.reload();
      await page.getByRole('heading', { name: 'Guarded', level: 1 }).waitFor();
      assert.equal(await blocklist.getByLabel('Email domains').inputValue(), 'mailinator.example');
      assert.equal(await blocklist.getByLabel('IP addresses and ranges').inputValue(), '203.0.113.0/24\n2001:db8::/32');
      assert.equal(await captcha.getByLabel('Provider').inputValue(), 'hcaptcha');
      assert.equal(await captcha.getByLabel('Site key').inputValue(), '10000000-ffff-ffff-ffff-000000000001');
      await captcha.getByText('set', { exact: true }).waitFor();
      assert.equal(await limits.getByLabel('Credited referrals per referrer per day').inputValue(), '3');
      assert.equal(await limits.getByLabel('Credited referrals per referrer in all').inputValue(), '');
      await settled();
      await fitsAndPasses(page, 'the campaign editor with the fraud controls');

      // A new site key saved with the secret left empty keeps the stored secret (the service is sent none).
      await captcha.getByLabel('Site key').fill('another-site-key');
      assert.equal(await captcha.getByLabel('Secret key').getAttribute('required'), null);
      await captcha.getByRole('button', { name: 'Save CAPTCHA' }).click();
      await captcha.getByText('CAPTCHA saved.').waitFor();
      assert.deepEqual((await stored()).captcha, { provider: 'hcaptcha', siteKey: 'another-site-key' });
      await captcha.getByText('set', { exact: true }).waitFor();
      // Removed behind the confirmation; the limits emptied remove them too.
      await captcha.getByRole('button', { name: 'Remove' }).click();
      await confirm(page, 'Remove CAPTCHA');
      await captcha.getByText('CAPTCHA removed.').waitFor();
      await captcha.getByText('not set', { exact: true }).waitFor();
      assert.equal((await stored()).captcha, null);
      await limits.getByLabel('Credited referrals per referrer per day').fill('');
      await limits.getByRole('button', { name: 'Save limits' }).click();
      await limits.getByText('No limits: every credit is approved at once.').waitFor();
      assert.equal((await stored()).autoApprove, null);
      // The settings form's own save leaves the controls as they are.
      await page.getByLabel('Share headline').fill('Pass it on');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      assert.deepEqual((await stored()).blocklist, saved);
    }));

  it("Settings → Blocklist saves the account's blocklist, and a reload shows it", () =>
    task(1280, async ({ page, settled }) => {
      await page.getByRole('link', { name: 'Blocklist', exact: true }).click();
      await page.getByRole('heading', { name: 'Blocklist', level: 1 }).waitFor();
      const form = page.getByRole('region', { name: 'Blocklist for every campaign' });
      await form.getByLabel('Email domains').fill('spam.example\nmailinator.example');
      await form.getByLabel('Countries').fill('XX');
      await form.getByRole('button', { name: 'Save account blocklist' }).click();
      await form.getByText('Account blocklist saved.').waitFor();
      const saved = (await s.admin.getAccountSettings()).blocklist;
      assert.deepEqual(saved?.domains, ['spam.example', 'mailinator.example']);
      await page.reload();
      await page.getByRole('heading', { name: 'Blocklist', level: 1 }).waitFor();
      await form.getByText('on', { exact: true }).waitFor();
      assert.equal(await form.getByLabel('Email domains').inputValue(), 'spam.example\nmailinator.example');
      await settled();
      await fitsAndPasses(page, 'Settings → Blocklist');
    }));
});
