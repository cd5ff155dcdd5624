/**
 * Writes docs/widget-<state>-<phone|desktop>.png: the widget on the demo page in each state a visitor
 * meets, at 390 px (a phone) and 1280 px (a desktop), for the gallery of docs/widget.md. Real service (SQLite in a
 * temporary directory, the demo campaign), the built bundle (`npm run screenshots` builds it first),
 * Debian's Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApp } from '../src/server/app.js';
import * as campaigns from '../src/server/campaigns/domain/campaigns.js';
import { DEFAULT_ACCOUNT } from '../src/server/kernel/context.js';
import { qualifyParticipant } from '../src/server/rewards/domain/rewards.js';
import { addParticipant } from '../src/server/referrals/domain/signups.js';
import { openRuntime } from '../src/server/runtime.js';
import { DEMO_CAMPAIGN_ID, DEMO_WAITLIST_ID, seedIfEmpty } from '../src/server/seed.js';
import { grantAccess } from '../src/server/engagement/domain/waitlist.js';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
const OUT = 'docs';

const dir = mkdtempSync(join(tmpdir(), 'refkit-shots-'));
const runtime = await openRuntime({ databaseUrl: `sqlite:${join(dir, 'refkit.db')}` });
const app = await buildApp({ ctx: runtime.ctx, config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent', webhookAllowPrivate: false, demo: true }, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
await seedIfEmpty(runtime.ctx, url);
const ctx = runtime.ctx;
const api = { source: 'api', ip: null } as const;
const browser: Browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
mkdirSync(OUT, { recursive: true });

/** The widget in its state, at both sizes; `prepare` drives a fresh page (own storage) into it. */
async function shoot(name: string, prepare: (page: Page) => Promise<void>, storageFrom?: Page): Promise<void> {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    const state = storageFrom ? await storageFrom.context().storageState() : undefined;
    const context = await browser.newContext({ viewport, deviceScaleFactor: 2, ...(state && { storageState: state }) });
    const page = await context.newPage();
    await prepare(page);
    // Wait until the widget's fonts, QR code and layout have settled.
    await page.evaluate(() => document.fonts.ready);
    await page.locator('referral-widget').screenshot({ path: `${OUT}/widget-${name}-${size}.png`, animations: 'disabled' });
    await context.close();
  }
  console.log(`${OUT}/widget-${name}-{phone,desktop}.png`);
}

const widget = (page: Page) => page.locator('referral-widget');
const inState = (page: Page, state: string) => widget(page).locator(`[part=card][data-state="${state}"]`).waitFor();
const withQr = (page: Page) => widget(page).locator('[part=qr] svg').waitFor();

try {
  // A participant with friends at every stage, signed up on a browser whose storage the shots reuse.
  const seedContext = await browser.newContext();
  const ann = await seedContext.newPage();
  await ann.goto(`${url}/demo/`);
  await widget(ann).getByLabel('First name').fill('Ann');
  await widget(ann).getByLabel('Email address').fill('ann@example.com');
  await widget(ann).getByRole('button', { name: 'Get my referral link' }).click();
  await inState(ann, 'signed-up');
  const code = (await widget(ann).getByLabel('Your referral link', { exact: true }).inputValue()).split('referralCode=')[1]!;

  await shoot('ready', async (page) => {
    await page.goto(`${url}/demo/`);
    await inState(page, 'ready');
  });
  await shoot('invited', async (page) => {
    await page.goto(`${url}/demo/?id=${DEMO_CAMPAIGN_ID}&referralCode=${code}`);
    await widget(page).getByText('You were invited').waitFor();
  });
  await shoot('signed-up-new', async (page) => {
    await page.goto(`${url}/demo/`);
    await widget(page).getByLabel('Email address').fill('new@example.com');
    await widget(page).getByRole('button', { name: 'Get my referral link' }).click();
    await inState(page, 'signed-up');
    await withQr(page);
  });

  await addParticipant(ctx, { id: DEMO_CAMPAIGN_ID, email: 'ben@example.com', firstName: 'Ben', referredByCode: code }, api);
  await addParticipant(ctx, { id: DEMO_CAMPAIGN_ID, email: 'carla.m@example.org', referredByCode: code }, api);
  await qualifyParticipant(ctx, DEFAULT_ACCOUNT, { id: DEMO_CAMPAIGN_ID, email: 'ben@example.com' });

  const returning = async (page: Page, lang?: string) => {
    // A page written in that language: <html lang> as the server sends it.
    if (lang) {
      await page.route(`${url}/demo/`, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, body: (await response.text()).replace('<html lang="en">', `<html lang="${lang}">`) });
      });
    }
    await page.goto(`${url}/demo/`);
    await inState(page, 'signed-up');
    await widget(page).locator('[part=referrals] li').first().waitFor();
  };
  await shoot('signed-up-referrals', async (page) => {
    await returning(page);
    await withQr(page);
  }, ann);
  await shoot('copied', async (page) => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await returning(page);
    await widget(page).getByRole('button', { name: 'Copy' }).click();
    await widget(page).getByRole('button', { name: 'Copied!' }).waitFor();
  }, ann);
  await shoot('german', async (page) => {
    await returning(page, 'de');
    await widget(page).getByText('Von Ihnen eingeladene Freunde').waitFor();
  }, ann);
  await shoot('arabic', async (page) => {
    await returning(page, 'ar');
    await widget(page).locator('[part=card][dir=rtl]').waitFor();
    await widget(page).getByText('الأصدقاء الذين دعوتهم').waitFor();
  }, ann);

  // The demo page's leaderboard with a few more referrers on it: Ann is third.
  for (const [referrer, friends] of [['Maya', 3], ['Jonas', 2], ['Priya', 1]] as const) {
    const p = await addParticipant(ctx, { id: DEMO_CAMPAIGN_ID, email: `${referrer.toLowerCase()}@example.com`, firstName: referrer }, api);
    for (let i = 0; i < friends; i++) {
      const email = `${referrer.toLowerCase()}-friend${i}@example.com`;
      await addParticipant(ctx, { id: DEMO_CAMPAIGN_ID, email, referredByCode: p.participant!.code }, api);
      await qualifyParticipant(ctx, DEFAULT_ACCOUNT, { id: DEMO_CAMPAIGN_ID, email });
    }
  }
  await shoot('leaderboard', async (page) => {
    await returning(page);
    await widget(page).locator('[part=leaderboard-list]').waitFor();
    await widget(page).locator('[part=leaderboard]').scrollIntoViewIfNeeded();
  }, ann);

  // The waitlist demo page: a line of 4,500 people ahead of Wes, who then brings two friends (5 places each),
  // and later Vi, who is let in.
  const line = Array.from({ length: 4_500 }, (_, i) => ({ id: DEMO_WAITLIST_ID, email: `early${i}@example.com` }));
  for (const p of line) await addParticipant(ctx, p, api);
  const joinWaitlist = async (page: Page, name: string) => {
    await page.goto(`${url}/demo/waitlist.html`);
    await widget(page).getByLabel('First name').fill(name);
    await widget(page).getByLabel('Email address').fill(`${name.toLowerCase()}@example.com`);
    await widget(page).getByRole('button', { name: 'Get my referral link' }).click();
    await inState(page, 'signed-up');
    await widget(page).locator('[part=waitlist-position]').waitFor();
  };
  const wesContext = await browser.newContext();
  const wes = await wesContext.newPage();
  await joinWaitlist(wes, 'Wes');
  const wesCode = (await widget(wes).getByLabel('Your referral link', { exact: true }).inputValue()).split('referralCode=')[1]!;
  for (const friend of ['wes-friend1@example.com', 'wes-friend2@example.com']) await addParticipant(ctx, { id: DEMO_WAITLIST_ID, email: friend, referredByCode: wesCode }, api);
  await shoot('waitlist', async (page) => {
    await page.goto(`${url}/demo/waitlist.html`);
    await inState(page, 'signed-up');
    await widget(page).locator('[part=waitlist-position]').waitFor();
  }, wes);
  const viContext = await browser.newContext();
  const vi = await viContext.newPage();
  await joinWaitlist(vi, 'Vi');
  await grantAccess(ctx, DEFAULT_ACCOUNT, { id: DEMO_WAITLIST_ID, emails: ['vi@example.com'] });
  await shoot('waitlist-granted', async (page) => {
    await page.goto(`${url}/demo/waitlist.html`);
    await inState(page, 'signed-up');
    await widget(page).getByText("You're in").first().waitFor();
  }, vi);
  await wesContext.close();
  await viContext.close();

  await campaigns.setCampaignStatus(ctx, DEFAULT_ACCOUNT, DEMO_CAMPAIGN_ID, 'Pause');
  await shoot('paused-participant', (page) => returning(page), ann);
  await shoot('paused-visitor', async (page) => {
    await page.goto(`${url}/demo/`);
    await inState(page, 'paused');
  });
  await campaigns.setCampaignStatus(ctx, DEFAULT_ACCOUNT, DEMO_CAMPAIGN_ID, 'End');
  await shoot('ended-participant', (page) => returning(page), ann);
  await shoot('not-found', async (page) => {
    await page.goto(`${url}/demo/`);
    await page.evaluate(() => document.querySelector('referral-widget')!.setAttribute('campaign-id', 'cmp_typo'));
    await inState(page, 'not-found');
  });
  await seedContext.close();
} finally {
  await browser.close();
  await app.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
