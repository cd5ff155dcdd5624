/**
 * The Team and Audit log pages end to end: real service (SQLite) with a real SMTP server, the built
 * dashboard, Debian's Chromium. An owner invites a viewer from the Team page; the invitee follows the
 * emailed link, sets a password and is signed in; a viewer sees no controls of a change on any page (an
 * owner does), and a change made after their role was lowered under an open page is refused; the owner
 * changes a role; the Audit log page lists those changes, filters them and downloads them as CSV. Both
 * pages pass axe and fit 390 px.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, Locator, Page } from 'playwright-core';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { startMailbox, type Mailbox } from '../server/helpers/smtp.js';
import { confirm, type DashboardPage, launch, OWNER, overflowsSideways, seriousViolations, signedIn } from './helpers/dashboard.js';

describe('dashboard: team and audit log', () => {
  let browser: Browser;
  let mailbox: Mailbox;
  let s: TestService;
  let tmp: string;

  before(async () => {
    const [sqlite] = await databaseKinds();
    mailbox = await startMailbox();
    s = await startService(sqlite!, { smtpUrl: mailbox.url });
    await createOwner(s.ctx, OWNER.email, OWNER.password);
    await s.campaign({ campaignName: 'Spring' });
    browser = await launch();
    tmp = mkdtempSync(join(tmpdir(), 'refkit-e2e-team-'));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await mailbox?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('an owner invites a viewer; the viewer joins through the emailed link, sees no owner controls and is refused a change; the owner makes them an admin', async () => {
    const owner = await signedIn(browser, s.url, 1280);
    try {
      const { page } = owner;
      await page.getByRole('link', { name: 'Team' }).click();
      await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
      await page.getByLabel('Email').fill('vera@acme.example');
      await page.getByLabel('Role', { exact: true }).selectOption('viewer');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText('Invitation sent to vera@acme.example.').waitFor();
      await page.getByRole('button', { name: 'Revoke the invitation to vera@acme.example' }).waitFor();

      const [mail] = await mailbox.to('vera@acme.example', 1);
      const link = /https?:\/\/\S+#\/join\?token=\S+/.exec(mail!.text ?? '')![0];
      assert.ok(link.startsWith(`${s.url}/admin/#/join?token=`), link);

      const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
      const vera = await context.newPage();
      try {
        await vera.goto(link);
        await vera.getByRole('heading', { name: 'Join the team' }).waitFor();
        assert.deepEqual(await seriousViolations(vera), []);
        await vera.getByLabel('Password (at least 10 characters)').fill('vera passphrase');
        await vera.getByLabel('The same password again').fill('vera passphrase');
        await vera.getByRole('button', { name: 'Join' }).click();
        await vera.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
        await vera.getByText('vera@acme.example').first().waitFor();
        // A viewer reads the team, with no controls of an owner.
        await vera.goto(`${s.url}/admin/#/team`);
        await vera.getByRole('cell', { name: OWNER.email }).waitFor();
        assert.equal(await vera.getByRole('button', { name: 'Send invitation' }).count(), 0);
        assert.equal(await vera.getByRole('button', { name: /^Remove/ }).count(), 0);
        // Nor of keys (the next test goes through every page, and a refusal).
        await vera.goto(`${s.url}/admin/#/keys`);
        await vera.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
        assert.equal(await vera.getByRole('button', { name: 'Create key' }).count(), 0);
        // The link is used: a second visit is refused.
        const again = await browser.newContext();
        const replay = await again.newPage();
        await replay.goto(link);
        await replay.getByLabel('Password (at least 10 characters)').fill('another passphrase');
        await replay.getByLabel('The same password again').fill('another passphrase');
        await replay.getByRole('button', { name: 'Join' }).click();
        await replay.getByRole('alert').getByText(/already used/).waitFor();
        await again.close();
      } finally {
        await context.close();
      }

      await page.reload();
      await page.getByRole('cell', { name: 'vera@acme.example', exact: true }).waitFor();
      await page.getByLabel('Role of vera@acme.example').selectOption('admin');
      await page.getByText('vera@acme.example is now an admin.').waitFor();
      assert.equal((await s.admin.listMembers()).find((m) => m.email === 'vera@acme.example')?.role, 'admin');
      // The last owner cannot step down: the service's reason is shown.
      await page.getByLabel(`Role of ${OWNER.email}`).selectOption('viewer');
      await page.getByRole('alert').getByText(/at least one owner/).waitFor();
      await page.getByRole('button', { name: 'Remove vera@acme.example' }).click();
      await confirm(page, 'Remove member');
      await page.getByText('vera@acme.example removed.').waitFor();
      assert.deepEqual(owner.problems, []);
    } finally {
      await owner.context.close();
    }
  });

  it('a viewer reads every page without the controls of a change (an owner sees them there); a role lowered under an open page is refused with its reason', async () => {
    const id = (await s.admin.listCampaigns())[0]!.campaignId!;
    const referrer = await s.admin.addParticipant({ id, email: 'rita@example.com' });
    await s.admin.addParticipant({ id, email: 'ron@example.com', referredByCode: referrer.referralCode! });
    await s.admin.createWebhookEndpoint({ url: 'https://hooks.example.com/refkit', eventTypes: ['referrer_added'] });
    const VIEWER = { email: 'vic@acme.example', password: 'vic passphrase' };
    await createOwner(s.ctx, VIEWER.email, VIEWER.password, undefined, 'viewer');
    const campaign = `/admin/#/campaigns/${encodeURIComponent(id)}`;
    // Each page, what shows once its data is there, and the controls of a change an owner finds on it
    // (buttons, or links and labels that act as buttons).
    const PAGES: [string, (p: Page) => Locator, (string | RegExp)[]][] = [
      ['/admin/#/campaigns', (p) => p.getByRole('cell', { name: 'Spring' }), ['New campaign']],
      [campaign, (p) => p.getByRole('heading', { name: 'Status' }), ['Save changes', 'Pause', 'End campaign', 'Add milestone']],
      [`${campaign}/participants`, (p) => p.getByRole('link', { name: 'rita@example.com' }), ['Import CSV']],
      [`${campaign}/participants/${encodeURIComponent('rita@example.com')}`, (p) => p.getByRole('button', { name: 'Export data' }), ['Redeem', 'Erase']],
      [`${campaign}/emails`, (p) => p.getByRole('heading', { name: 'Texts' }), ['Save settings', 'Save text']],
      [`${campaign}/billing`, (p) => p.getByText('not set').first(), ['Save secret', 'Save payout settings', 'Add codes', 'Save threshold']],
      ['/admin/#/webhooks', (p) => p.getByText('https://hooks.example.com/refkit').first(), ['Add endpoint', /^Remove https/]],
      ['/admin/#/keys', (p) => p.getByRole('heading', { name: 'API keys', level: 1 }), ['Create key']],
      ['/admin/#/team', (p) => p.getByRole('cell', { name: /^vic@acme\.example/ }), ['Send invitation', `Remove ${VIEWER.email}`]],
      ['/admin/#/settings/retention', (p) => p.getByRole('heading', { name: 'Keep data for' }), ['Save']],
    ];
    /** The visible, enabled controls of the page by their accessible names, once `ready` shows. */
    const controls = async ({ page, settled }: DashboardPage, ready: (p: Page) => Locator) => {
      await ready(page).waitFor();
      await settled();
      const names: string[] = [];
      for (const role of ['button', 'link'] as const) {
        for (const el of await page.getByRole(role).all()) {
          if ((await el.isVisible()) && (await el.isEnabled())) names.push((await el.getAttribute('aria-label')) ?? (await el.innerText()).trim());
        }
      }
      for (const label of await page.locator('label.button').all()) if (await label.isVisible()) names.push((await label.innerText()).trim());
      return names;
    };
    const has = (names: string[], want: string | RegExp) => names.some((n) => (typeof want === 'string' ? n === want : want.test(n)));

    const owner = await signedIn(browser, s.url, 1280);
    const viewer = await signedIn(browser, s.url, 390, VIEWER);
    try {
      for (const [path, ready, changes] of PAGES) {
        await owner.page.goto(`${s.url}${path}`);
        await viewer.page.goto(`${s.url}${path}`);
        const [mine, theirs] = [await controls(owner, ready), await controls(viewer, ready)];
        for (const c of changes) assert.ok(has(mine, c), `an owner has ${String(c)} on ${path}: ${mine.join(', ')}`);
        for (const c of changes) assert.ok(!has(theirs, c), `a viewer has no ${String(c)} on ${path}: ${theirs.join(', ')}`);
        assert.equal(await overflowsSideways(viewer.page), false, path);
      }
      // What a viewer may do stays: reading settings (disabled, not hidden), exporting a person's data.
      await viewer.page.goto(`${s.url}${campaign}`);
      assert.equal(await viewer.page.getByLabel('Campaign name').isDisabled(), true);
      assert.notEqual(await viewer.page.getByLabel('Campaign name').inputValue(), '');
      await viewer.page.goto(`${s.url}${campaign}/participants/${encodeURIComponent('rita@example.com')}`);
      await viewer.page.getByRole('button', { name: 'Export data' }).waitFor();
      await viewer.page.locator('.role').getByText('viewer', { exact: true }).waitFor();
      assert.deepEqual(await seriousViolations(viewer.page), []);

      // A role lowered while a page is open: its controls are still on screen, and the service refuses them.
      await s.admin.changeMemberRole(VIEWER.email, 'admin');
      await viewer.page.goto(`${s.url}${campaign}`);
      await viewer.page.reload();
      await viewer.page.getByRole('button', { name: 'Save changes' }).waitFor();
      await s.admin.changeMemberRole(VIEWER.email, 'viewer');
      await viewer.page.getByRole('button', { name: 'Save changes' }).click();
      await viewer.page.getByRole('alert').getByText(/Your role \(viewer\) may not/).waitFor();
      assert.deepEqual([owner.problems, viewer.problems], [[], []]);
    } finally {
      await owner.context.close();
      await viewer.context.close();
    }
  });

  it('the Audit log page lists the changes with who and what changed, filters by action and campaign, and downloads the CSV', async () => {
    const id = (await s.admin.listCampaigns())[0]!.campaignId!;
    await s.admin.updateCampaign({ id, shareHeader: 'Tell a friend' });
    const d = await signedIn(browser, s.url, 1280);
    try {
      const { page } = d;
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      await page.getByRole('cell', { name: 'updateCampaign' }).waitFor();
      // A change reads as words, before → after, not as JSON.
      await page.getByText('shareHeader: none → Tell a friend', { exact: true }).waitFor();
      await page.getByLabel('Action').fill('inviteMember');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('cell', { name: 'inviteMember' }).waitFor();
      assert.equal(await page.getByRole('cell', { name: 'updateCampaign' }).count(), 0);
      await page.getByLabel('Action').fill('');
      await page.getByLabel('Campaign').selectOption(id);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('cell', { name: 'createCampaign' }).waitFor();
      assert.equal(await page.getByRole('cell', { name: 'changeMemberRole' }).count(), 0);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      const file = join(tmp, 'audit.csv');
      await download.saveAs(file);
      const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
      assert.deepEqual(rows.map((r) => r.action), ['createCampaign', 'updateCampaign']);
      assert.deepEqual(d.problems, []);
    } finally {
      await d.context.close();
    }
  });

  for (const width of [1280, 390]) {
    it(`Team and Audit log at ${width} px: no serious or critical axe violation, nothing wider than the screen`, async () => {
      const d = await signedIn(browser, s.url, width);
      try {
        for (const [hash, heading] of [['#/team', 'Team'], ['#/audit', 'Audit log']] as const) {
          await d.page.goto(`/admin/${hash}`);
          await d.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
          await d.settled();
          assert.deepEqual(await seriousViolations(d.page), [], hash);
          assert.equal(await overflowsSideways(d.page), false, `${hash} at ${width} px`);
        }
        assert.deepEqual(d.problems, []);
      } finally {
        await d.context.close();
      }
    });
  }
});
