/**
 * The rules editor's "What would this have cost?" end to end (real service on SQLite, the built dashboard,
 * Chromium): the owner edits the referrer reward without saving, runs the backtest for this month, and sees
 * the current rules, the edited ones and the difference per month and in total, with the limitations; the
 * campaign is unchanged, the panel fits a phone's width, and axe finds nothing serious.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { reward } from '../../src/dashboard/format.js';
import { launch, overflowsSideways, seededService, seriousViolations, signedInTask, type Seeded } from './helpers/dashboard.js';

describe('dashboard: offer backtest', () => {
  let seeded: Seeded;
  let browser: Browser;
  let id: string;

  before(async () => {
    seeded = await seededService(10);
    browser = await launch();
    const { admin } = seeded.service;
    id = (await admin.createCampaign({ campaignName: 'Backtest campaign', hostURL: 'https://acme.example/bt', referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD' })).campaignId!;
    const ann = await admin.addParticipant({ id, email: 'ann@example.com' });
    for (const friend of ['ben', 'cy']) {
      await admin.addParticipant({ id, email: `${friend}@example.com`, referredByCode: ann.referralCode! });
      await admin.qualifyParticipant({ id, email: `${friend}@example.com`, amountPaid: '100.00' });
    }
  });
  after(async () => {
    await browser?.close();
    await seeded?.close();
  });

  // The backtest's behaviour is checked once; the page's width and axe at both widths, resized.
  it('at 1280 and 390 px: the edited, unsaved rules beside the current ones, per month and in total, with what it cannot know', () =>
    signedInTask(browser, seeded.service.url, 1280, async ({ page }) => {
      await page.goto(`/admin/#/campaigns/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Backtest campaign', level: 1 }).waitFor();
      await page.getByLabel('Referrer reward').fill('20');
      await page.getByRole('button', { name: 'What would this have cost?' }).click();
      // The period is the campaign's months by default: from the month it was created.
      const month = new Date().toISOString().slice(0, 7);
      assert.equal(await page.getByLabel('From').inputValue(), (await seeded.service.admin.getCampaign(id)).createdOn!.slice(0, 7));
      assert.equal(await page.getByLabel('To').inputValue(), month);
      await page.getByRole('button', { name: 'Run the backtest' }).click();
      const table = page.getByRole('table', { name: 'Backtest, per month' });
      await table.waitFor();
      // Two referrals: now 2 x (10 + 5) = 30 credited; with 20 for the referrer 50; the difference +20.
      const usd = { rewardType: 'credit', rewardCurrency: 'USD' };
      // The total comes first: the first row of each side is the total's; its first cell is what was credited.
      assert.match((await table.locator('tbody th').first().textContent())!, /^Total/);
      const credited = (side: string) => table.locator(`tr.${side}`).first().locator('td').first().textContent();
      // It fits the editor at 1280 px: no column is behind a sideways scroll.
      const wrap = page.getByRole('region', { name: 'Backtest table (scrolls sideways)' });
      assert.ok(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), 'the table fits at 1280 px');
      assert.equal(await credited('current'), reward(30, usd));
      assert.equal(await credited('proposed'), reward(50, usd));
      assert.equal(await credited('difference'), `+${reward(20, usd)}`);
      await page.getByText('What this cannot know').waitFor();
      await page.getByText(/Behaviour is taken as recorded/).waitFor();
      // Nothing was saved: the campaign's referrer reward is still 10.
      assert.equal((await seeded.service.admin.getCampaign(id)).referrerRewardValue, 10);
      // A period that ends before it begins: the service's refusal, said in the panel.
      await page.getByLabel('From').fill('2030-01');
      await page.getByRole('button', { name: 'Run the backtest' }).click();
      await page.getByRole('alert').getByText(/to must be the same month as from or later/).waitFor();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await overflowsSideways(page), false, `wider than ${width} px`);
        assert.deepEqual(await seriousViolations(page), [], `${width} px`);
      }
    }));
});
