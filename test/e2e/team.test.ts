/**
 * The Team and Audit log pages end to end: real service (SQLite) with a real SMTP server, the built
 * dashboard, Debian's Chromium. An owner invites a viewer from the Team page; the invitee follows the
 * emailed link, sets a password and is signed in; a viewer sees no owner's controls and is refused a
 * change; the owner changes a role; the Audit log page lists those changes, filters them and downloads
 * them as CSV. Both pages pass axe and fit 390 px.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { createOwner } from '../../src/server/domain/owners.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { startMailbox, type Mailbox } from '../server/helpers/smtp.js';
import { confirm, launch, OWNER, overflowsSideways, seriousViolations, signedIn } from './helpers/dashboard.js';

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
        // And a change is refused, with the service's reason in the alert line.
        await vera.goto(`${s.url}/admin/#/keys`);
        await vera.getByLabel('Name').fill('sneaky');
        await vera.getByRole('button', { name: 'Create key' }).click();
        await vera.getByRole('alert').getByText('Your role (viewer) may not manage members or secret keys (owners only)').waitFor();
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

  it('the Audit log page lists the changes with who and what changed, filters by action and campaign, and downloads the CSV', async () => {
    const id = (await s.admin.listCampaigns())[0]!.campaignId!;
    await s.admin.updateCampaign({ id, shareHeader: 'Tell a friend' });
    const d = await signedIn(browser, s.url, 1280);
    try {
      const { page } = d;
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      await page.getByRole('cell', { name: 'updateCampaign' }).waitFor();
      await page.getByText('shareHeader: "" → "Tell a friend"').waitFor();
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
          await d.page.waitForLoadState('networkidle');
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
