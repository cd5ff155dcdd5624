/**
 * A marketer's first hour with the dashboard, from an empty service: the widget's look kept on the
 * campaign and worn wherever it is embedded; reward texts that follow the reward fields; test friends held
 * for review and counted in the navigation; nothing stale after a change; day-one analytics; and the
 * pages at 390 and 1280 px (tables readable, money with its unit, redeem confirmed). Real service
 * (SQLite) with its dispatcher, the built dashboard and widget, Debian's Chromium.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from '../server/helpers/receiver.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { confirm, launch, OWNER, overflowsSideways, seriousViolations, signedInTask, type DashboardPage } from './helpers/dashboard.js';

/** A shop's page that embeds the widget with nothing but its campaign id (and, when given, its own style). */
function shop(serviceUrl: string): Promise<{ url: string; server: Server; embed: (campaignId: string, style?: string) => string }> {
  const server = createServer((req, res) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    const style = q.get('style');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
      <script type="module" src="${serviceUrl}/widget/referral-widget.js"></script></head>
      <body><main><referral-widget campaign-id="${q.get('c')}"${style ? ` style="${style}"` : ''}></referral-widget></main></body></html>`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url, server, embed: (c, style) => `${url}/?c=${encodeURIComponent(c)}${style ? `&style=${encodeURIComponent(style)}` : ''}` });
    }),
  );
}

describe('dashboard, day one', () => {
  let service: TestService;
  let receiver: Receiver;
  let browser: Browser;
  let landing: Awaited<ReturnType<typeof shop>>;

  before(async () => {
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!, { dispatcher: { retryDelaysMs: [], pollMs: 100, timeoutMs: 2000 } });
    receiver = await startReceiver();
    await createOwner(service.ctx, OWNER.email, OWNER.password);
    await service.admin.createWebhookEndpoint({ url: receiver.url, eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] });
    browser = await launch();
    landing = await shop(service.url);
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => landing?.server.close(r));
    await receiver?.close();
    await service?.close();
  });

  const task = (width: number, fn: (d: DashboardPage) => Promise<void>) => signedInTask(browser, service.url, width, fn);

  /** A campaign created through the API, with a referrer and `friends` referred friends. */
  async function campaignWithFriends(name: string, friends: number, extra: Record<string, unknown> = {}) {
    const c = await service.admin.createCampaign({ campaignName: name, hostURL: `${landing.url}/join`, rewardCurrency: 'EUR', referrerRewardValue: 20, refereeRewardValue: 10, ...extra });
    const id = c.campaignId!;
    const ann = await service.admin.addParticipant({ id, email: 'ann@example.com' });
    for (let i = 0; i < friends; i++) await service.admin.addParticipant({ id, email: `friend${i}@example.org`, referredByCode: ann.referralCode! });
    return id;
  }

  const widgetLook = (page: Page, element = 'referral-widget') =>
    page.locator(element).evaluate((el) => {
      const card = getComputedStyle(el.shadowRoot!.querySelector('[part=card]')!);
      const button = getComputedStyle(el.shadowRoot!.querySelector('button[type=submit]')!);
      return { radius: card.borderTopLeftRadius, font: card.fontFamily, accent: button.backgroundColor };
    });

  // Behaviour checked once; what the width can change (the look the preview and an embed wear, the
  // preview's texts) is read at both widths, on the same pages resized.
  it('1280 and 390 px: the look chosen is saved on the campaign and every embed wears it; page styles still win; the snippet carries none', () =>
    task(1280, async ({ page, context }) => {
      await page.goto('/admin/#/campaigns/new');
      await page.getByLabel('Campaign name').fill('Look');
      await page.getByLabel('Landing page URL').fill(`${landing.url}/join`);
      await page.getByLabel('Accent colour').fill('#0e9384');
      await page.getByLabel(/Corner radius/).fill('20');
      await page.getByLabel('Font').selectOption({ label: 'Serif' });
      // The preview wears the look being edited, the way an embed will.
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const preview = await widgetLook(page, 'rk-widget-preview');
        assert.deepEqual([preview.radius, preview.accent], ['20px', 'rgb(14, 147, 132)'], `${width} px`);
        assert.match(preview.font, /^Georgia/);
      }
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Embed on your site' }).waitFor();
      const id = decodeURIComponent(/#\/campaigns\/([^/]+)$/.exec(page.url())![1]!);
      const saved = (await service.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual(saved.widgetStyle, { accent: '#0e9384', radius: 20, font: 'serif' });
      const snippet = (await page.getByLabel('Embed code', { exact: true }).textContent())!;
      assert.match(snippet, new RegExp(`<referral-widget campaign-id="${id}"></referral-widget>`));

      // Another browser (no localStorage of this one), an embed of nothing but the campaign id.
      const visitor = await context.browser()!.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const shopPage = await visitor.newPage();
        await shopPage.goto(landing.embed(id));
        await shopPage.locator('referral-widget').getByRole('button', { name: /referral link/i }).waitFor();
        for (const width of [1280, 390]) {
          await shopPage.setViewportSize({ width, height: 900 });
          const look = await widgetLook(shopPage);
          assert.deepEqual([look.radius, look.accent], ['20px', 'rgb(14, 147, 132)'], `${width} px`);
          assert.match(look.font, /^Georgia/);
        }
        // An earlier embed that sets its own radius keeps it, and takes the rest from the campaign.
        await shopPage.goto(landing.embed(id, '--referral-widget-radius: 2px'));
        await shopPage.locator('referral-widget').getByRole('button', { name: /referral link/i }).waitFor();
        const own = await widgetLook(shopPage);
        assert.deepEqual([own.radius, own.accent], ['2px', 'rgb(14, 147, 132)']);

        // A change in the dashboard reaches the embed on its next load.
        await page.getByLabel('Font').selectOption({ label: 'Monospace' });
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByText('Changes saved.').waitFor();
        await shopPage.goto(landing.embed(id));
        await shopPage.locator('referral-widget').getByRole('button', { name: /referral link/i }).waitFor();
        assert.match((await widgetLook(shopPage)).font, /^ui-monospace/);
      } finally {
        await visitor.close();
      }
      // Reopened in a fresh page, the editor shows the stored look.
      await page.reload();
      await page.getByRole('heading', { name: 'Look', level: 1 }).waitFor();
      assert.equal(await page.getByLabel('Accent colour').inputValue(), '#0e9384');
      assert.equal(await page.getByLabel('Font').inputValue(), 'monospace');
    }));

  it('a look an earlier dashboard kept in this browser is taken into the campaign when it is saved', () =>
    task(1280, async ({ page }) => {
      const c = await service.admin.createCampaign({ campaignName: 'Earlier', hostURL: `${landing.url}/join` });
      const id = c.campaignId!;
      // As the earlier editor stored it: fonts as CSS stacks.
      await page.evaluate((key) => localStorage.setItem(key, JSON.stringify({ accent: '#b42318', radius: 4, font: 'Georgia, serif' })), `refkit-dashboard:theme:${id}`);
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Earlier', level: 1 }).waitFor();
      assert.equal(await page.getByLabel('Accent colour').inputValue(), '#b42318');
      assert.equal(await page.getByLabel('Font').inputValue(), 'serif');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Changes saved.').waitFor();
      assert.deepEqual((await service.admin.listCampaigns()).find((x) => x.campaignId === id)!.widgetStyle, { accent: '#b42318', radius: 4, font: 'serif' });
    }));

  it("1280 and 390 px: a new campaign's reward texts follow the reward fields and currency until the owner writes their own", () =>
    task(1280, async ({ page }) => {
      await page.goto('/admin/#/campaigns/new');
      const headline = page.getByLabel('Reward headline');
      assert.equal(await headline.inputValue(), 'Give $5, get $10');
      await page.getByLabel('Referrer reward').fill('20');
      await page.getByLabel('Referee reward').fill('10');
      await page.getByLabel('Currency').fill('EUR');
      assert.equal(await headline.inputValue(), 'Give €10, get €20');
      assert.equal(await page.getByLabel('Reward description').inputValue(), 'Invite friends: they get €10 when they start, you get €20 for each of them.');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('rk-widget-preview').getByText('Give €10, get €20').waitFor();
      }
      await page.getByLabel('Reward type').fill('points');
      assert.equal(await headline.inputValue(), 'Give 10 points, get 20 points');
      // Written by the owner: it stays as written.
      await headline.fill('Bring a friend');
      await page.getByLabel('Referrer reward').fill('30');
      assert.equal(await headline.inputValue(), 'Bring a friend');
      assert.equal(await page.getByLabel('Reward description').inputValue(), 'Invite friends: they get 10 points when they start, you get 30 points for each of them.');
    }));

  // Behaviour checked once. The navigation's link to Participants names the held count in each state at
  // both widths, and is followed in the phone's row of links and in the sidebar.
  it("1280 and 390 px: friends signed up from the owner's own machine are held, counted beside Participants and in the review tab, and the count goes with approval", () =>
    task(390, async ({ page }) => {
      const c = await service.admin.createCampaign({ campaignName: 'Held', hostURL: `${landing.url}/join` });
      const id = c.campaignId!;
      // The owner tries the widget with friends' addresses, from one machine.
      const ann = await service.browser.addParticipant({ id, email: 'ann@example.com' });
      await service.browser.addParticipant({ id, email: 'bob@example.org', referredByCode: ann.referralCode! });
      await service.browser.addParticipant({ id, email: 'cy@example.org', referredByCode: ann.referralCode! });
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      /** The link at both widths, the page left at 1280 px. */
      const linkAtBothWidths = async (name: string, exact = false) => {
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await nav.getByRole('link', { name, exact }).waitFor();
        }
      };
      await nav.getByRole('link', { name: 'Participants (2 sign-ups held for review)' }).click();
      await page.getByRole('button', { name: 'Review queue 2' }).click();
      await page.getByRole('link', { name: 'bob@example.org' }).waitFor();
      await linkAtBothWidths('Participants (2 sign-ups held for review)');
      await page.getByRole('row', { name: /bob@example\.org/ }).getByRole('button', { name: 'Approve' }).click();
      await confirm(page, 'Approve');
      await page.getByText('bob@example.org approved.').waitFor();
      await linkAtBothWidths('Participants (1 sign-up held for review)');
      await page.getByRole('button', { name: 'Review queue 1' }).waitFor();
      // Away and back through the sidebar's link.
      await nav.getByRole('link', { name: 'Analytics' }).click();
      await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
      await nav.getByRole('link', { name: 'Participants (1 sign-up held for review)' }).click();
      await page.getByRole('button', { name: 'Review queue 1' }).click();
      await page.getByRole('row', { name: /cy@example\.org/ }).getByRole('button', { name: 'Reject' }).click();
      await confirm(page, 'Reject');
      await page.getByText('Nobody is waiting for review.').waitFor();
      await linkAtBothWidths('Participants', true);
    }));

  it('nothing stale: the tab is named after sign-in, counts are current when a page opens, a notice stays with its participant', () =>
    task(1280, async ({ page }) => {
      assert.equal(await page.title(), 'Campaigns · Refkit');
      const c = await service.admin.createCampaign({ campaignName: 'Fresh', hostURL: `${landing.url}/join` });
      const id = c.campaignId!;
      await page.reload();
      await page.getByRole('link', { name: 'Fresh' }).waitFor();
      // Sign-ups arrive while the dashboard is open.
      const ann = await service.browser.addParticipant({ id, email: 'ann@example.com' });
      await service.browser.addParticipant({ id, email: 'bob@example.org', referredByCode: ann.referralCode! });
      await page.getByRole('link', { name: 'Fresh' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Participants/ }).click();
      await page.getByText('Fresh · 2 participants in all').waitFor();
      assert.equal(await page.title(), 'Participants · Refkit');

      await page.getByRole('link', { name: 'bob@example.org' }).click();
      await page.getByRole('heading', { name: 'bob@example.org', level: 1 }).waitFor();
      await page.locator('rk-participant-detail').getByRole('button', { name: 'Approve' }).click();
      await confirm(page, 'Approve');
      await page.getByText('Approved.').waitFor();
      await page.getByRole('link', { name: 'ann@example.com' }).click();
      await page.getByRole('heading', { name: 'ann@example.com', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Referred by' }).waitFor();
      assert.equal(await page.getByText('Approved.').count(), 0, "bob's notice is not carried to ann's page");
    }));

  // The chart's axis is drawn for its width: both widths, each on a page of its own.
  for (const width of [1280, 390]) {
    it(`${width} px: day-one analytics: a week-long axis with whole-number ticks, steps named for what they count, counts in the singular`, () =>
      task(width, async ({ page }) => {
        const id = await campaignWithFriends(`Day one ${width}`, 3);
        const ann = await service.admin.getParticipant(id, 'ann@example.com');
        await service.browser.validateCode(id, ann.referralCode!);
        await service.ctx.store.flushImpressions();
        await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}/analytics`);
        await page.locator('rk-analytics canvas').first().waitFor();
        const chart = await page.locator('rk-analytics').evaluate((el) => {
          const u = (el as unknown as { chart: { scales: { x: { min: number; max: number } }; axes: { _values: string[] | null }[] } }).chart;
          // The tick labels uPlot drew (kept on the axis as it draws).
          return { min: u.scales.x.min, max: u.scales.x.max, x: u.axes[0]!._values, y: u.axes[1]!._values };
        });
        const today = Math.floor(Date.now() / 86_400_000) * 86_400;
        assert.deepEqual([chart.min, chart.max], [today - 6 * 86_400, today]);
        assert.ok(chart.y!.every((v) => /^\d+$/.test(v)), `whole-number ticks: ${chart.y!.join(' ')}`);
        assert.ok(chart.x!.every((v) => /^[A-Z][a-z]{2} \d{1,2}$/.test(v)), `day ticks: ${chart.x!.join(' ')}`);
        const analytics = page.locator('rk-analytics');
        await analytics.getByText('1 share-link view', { exact: true }).waitFor();
        const steps = await analytics.locator('.step > span:first-child').allTextContents();
        assert.deepEqual(steps, ['Share-link views', 'Referred sign-ups', 'Qualified referrals']);
        await analytics.getByText('Visitors who opened a share link (once a visitor a day)').waitFor();
        assert.equal(await analytics.getByText('Impressions').count(), 0);
      }));

  }

  // Behaviour checked once; the tables' readability, the Remove button, axe and the page's width at both widths.
  it('1280 and 390 px: participants and webhooks read in full; money has its unit; redeem asks first and answers at the form; deliveries name the participant; the campaign picker only on campaign pages', () =>
    task(1280, async ({ page }) => {
      const id = await campaignWithFriends('Tables', 2);
      // A second campaign, so that the campaign pages have a campaign to pick.
      await service.admin.createCampaign({ campaignName: 'Other', hostURL: `${landing.url}/other` });
      await service.admin.qualifyParticipant({ id, email: 'friend0@example.org', amountPaid: '59.00' });
      const hook = `${receiver.url}/hooks/a/rather/long/path/for/refkit/events`;
      await service.admin.createWebhookEndpoint({ url: hook, eventTypes: ['referee_added'] });
      await waitFor(async () => (await service.admin.listWebhookDeliveries({ limit: 100 })).every((d) => d.attemptCount > 0 || d.status !== 'pending'), 'deliveries attempted');

      const enc = encodeURIComponent(id);
      await page.goto(`/admin/#/campaigns/${enc}/participants`);
      const annRow = page.getByRole('row', { name: /ann@example\.com/ });
      await annRow.getByText('€20', { exact: true }).waitFor();
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await assertReadable(page, 'rk-participants table', width);
      }

      await page.getByRole('link', { name: 'ann@example.com' }).click();
      await page.getByRole('heading', { name: 'Rewards' }).waitFor();
      await page.locator('rk-participant-detail .balances').getByText('€20', { exact: true }).first().waitFor();
      await page.getByLabel('Amount').fill('5');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await page.getByRole('dialog').getByText('Redeem €5?').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await service.admin.getParticipant(id, 'ann@example.com')).referralRewardRedeemed, 0, 'cancelled: nothing redeemed');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await confirm(page, 'Redeem');
      await page.getByText('Redeemed €5 from the referral balance.').waitFor();
      assert.equal((await service.admin.getParticipant(id, 'ann@example.com')).referralRewardRedeemed, 5);
      await page.getByLabel('Amount').fill('1000');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await confirm(page, 'Redeem');
      await page.locator('form.redeem').getByRole('alert').getByText(/balance is less than 1000/).waitFor();
      assert.equal((await service.admin.getParticipant(id, 'ann@example.com')).referralRewardRedeemed, 5);
      const picker = page.getByRole('combobox', { name: 'Campaign' });
      await picker.waitFor();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      await page.locator('rk-webhooks tbody').getByRole('link', { name: 'friend1@example.org' }).first().waitFor();
      assert.equal(await picker.count(), 0, 'no campaign picker on an account-wide page');
      const remove = page.getByRole('button', { name: `Remove ${hook}` });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await assertReadable(page, 'rk-webhooks table', width);
        const box = (await remove.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= width, `Remove is on screen at ${width} px: ${JSON.stringify(box)}`);
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
      }
    }));

});

/**
 * Every cell of the tables shows all of its text (nothing cut off by the table's box, no column squeezed
 * to a few characters a line) and every button in them is within the screen.
 */
async function assertReadable(page: Page, tables: string, width: number): Promise<void> {
  const problems = await page.locator(tables).evaluateAll((els, w) => {
    const out: string[] = [];
    for (const table of els) {
      const box = table.closest('.table-wrap') ?? table;
      const edge = box.getBoundingClientRect();
      for (const cell of table.querySelectorAll('td')) {
        const r = cell.getBoundingClientRect();
        const text = cell.textContent!.trim();
        if (!text) continue;
        if (r.right > Math.min(edge.right, w) + 1) out.push(`cut off: ${text.slice(0, 40)}`);
        // A long unbroken text (a URL, an email) is not wrapped to a sliver: at least 12 characters a line.
        // Lines of text: the distinct baselines of its text nodes' boxes (elements' own boxes left out).
        const bottoms = new Set<number>();
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.textContent!.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          for (const b of range.getClientRects()) if (b.width > 0) bottoms.add(Math.round(b.bottom));
        }
        const lines = bottoms.size;
        if (lines > 1 && text.length / lines < 12) out.push(`squeezed to ${lines} lines: ${text.slice(0, 40)}`);
      }
    }
    return out;
  }, width);
  assert.deepEqual(problems, []);
}
