/**
 * What the dashboard's browser tests and the docs/dashboard.md screenshots share: a real service (SQLite) with an
 * owner, a campaign with history (imported, so sign-ups spread over past days), referrals, payments, a
 * participant held for review, webhook deliveries to a receiver that fails some of them, Stripe events
 * (applied, unmatched, ignored), rewards paid into Stripe (paid, failed, waiting), a reward code pool running low; and a Chromium page signed in to /admin/.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { createOwner } from '../../../src/server/accounts/domain/owners.js';
import { CHROMIUM } from '../../requirements.js';
import { databaseKinds } from '../../server/helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from '../../server/helpers/receiver.js';
import { startService, type TestService } from '../../server/helpers/service.js';
import { checkoutSession, event, invoice, SECRET, send } from '../../server/helpers/stripe.js';
import { FakeStripe } from '../../server/helpers/fake-stripe.js';
import { StripePayoutSender } from '../../../src/server/payouts/domain/stripe-payouts.js';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const OWNER = { email: 'maya@acme.example', password: 'a long owner passphrase' };
export const DAY = 86_400_000;
/** The restricted Stripe key the seeded campaign pays rewards into Stripe with (a fake Stripe's). */
export const PAYOUT_KEY = 'rk_test_dashboardPayouts0123';

export interface Seeded {
  service: TestService;
  receiver: Receiver;
  campaignId: string;
  close(): Promise<void>;
}

/** A service with an owner and a lived-in campaign of `people` imported participants over 30 days. */
export async function seededService(people = 240): Promise<Seeded> {
  const [sqlite] = await databaseKinds();
  const service = await startService(sqlite!, { dispatcher: { retryDelaysMs: [], pollMs: 100, timeoutMs: 2000 } });
  const receiver = await startReceiver();
  // Every fifth delivery fails, so the log has something to look into.
  receiver.respond = (n) => ({ status: n % 5 === 0 ? 500 : 200 });
  await createOwner(service.ctx, OWNER.email, OWNER.password);
  const campaign = await service.admin.createCampaign({
    campaignName: 'Acme Notes launch',
    hostURL: 'https://acme.example/join',
    referrerRewardValue: 10,
    refereeRewardValue: 5,
    rewardType: 'credit',
    rewardHeader: 'Give $5, get $10',
    rewardDescription: 'Friends you invite get $5 of credit when they start a plan, and you get $10 for each of them.',
    shareHeader: 'Share your link',
    shareDescription: 'Send it to a friend, post it, or let them scan the code.',
  });
  const campaignId = campaign.campaignId!;
  await service.admin.createCampaign({ campaignName: 'Spring referral push', hostURL: 'https://acme.example/spring', referrerRewardValue: 20 });

  const names = ['ava', 'ben', 'chloe', 'dan', 'eli', 'fay', 'gus', 'hana', 'ivan', 'jade', 'kai', 'lena', 'milo', 'nora', 'omar', 'pia'];
  const start = Date.now() - 30 * DAY;
  const lines = ['email,firstName,lastName,referredByEmail,createdOn'];
  for (let i = 0; i < people; i++) {
    const first = names[i % names.length]!;
    const email = `${first}.${i}@example.com`;
    // A growing program: more sign-ups in later days; a third of the later ones referred by an earlier one.
    const t = start + Math.floor(30 * DAY * Math.sqrt(i / people));
    const referrer = i > 20 && i % 3 !== 0 ? `${names[(i * 7) % 5]!}.${(i * 7) % 5}@example.com` : '';
    lines.push(`${email},${first[0]!.toUpperCase()}${first.slice(1)},Sample,${referrer},${new Date(t).toISOString()}`);
  }
  await service.admin.importParticipants(campaignId, `${lines.join('\n')}\n`);

  await service.admin.createWebhookEndpoint({ url: receiver.url, eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] });
  // Live activity: referred sign-ups that qualify and pay, link views, and one sign-up held for review.
  const ava = await service.admin.getParticipant(campaignId, 'ava.0@example.com');
  for (let i = 0; i < 6; i++) {
    await service.admin.addParticipant({ id: campaignId, email: `friend${i}@example.org`, referredByCode: ava.referralCode! });
    if (i < 4) await service.admin.qualifyParticipant({ id: campaignId, email: `friend${i}@example.org`, amountPaid: `${19 + i * 10}.00` });
  }
  for (let i = 0; i < 25; i++) await service.browser.validateCode(campaignId, ava.referralCode!);
  await service.browser.addParticipant({ id: campaignId, email: 'ava.0+again@example.com', referredByCode: ava.referralCode! });
  await service.browser.addParticipant({ id: campaignId, email: 'a.v.a.0+2@example.com', referredByEmail: 'ava.0@example.com' });
  // Stripe's events, signed with the campaign's secret: a referee's first payment, an invoice of a customer
  // nobody knows (left to match by hand), and a payment of a participant nobody referred.
  await service.admin.updateCampaign({ id: campaignId, stripeWebhookSecret: SECRET });
  const friend4 = await service.admin.getParticipant(campaignId, 'friend4@example.org');
  const stripeEvents = [
    event('checkout.session.completed', checkoutSession(friend4.referralCode!, 'friend4@example.org', 4900, { customer: 'cus_friend4' })),
    event('invoice.paid', invoice('cus_unknown', 2900, { customer_email: 'billing@stranger.example' })),
    event('checkout.session.completed', checkoutSession(ava.referralCode!, 'ava.0@example.com', 1900, { customer: 'cus_ava' })),
  ];
  const outcomes = [];
  for (const e of stripeEvents) outcomes.push((await send(service, campaignId, e)).body.outcome);
  assert.deepEqual(outcomes, ['applied', 'unmatched', 'ignored']);
  // Rewards paid into Stripe, against a local fake of Stripe's API: Ava (whose customer the ignored checkout
  // above linked) brings two more friends; Stripe takes one of her credits and refuses the other, and the
  // friends' own credits wait, as no Stripe customer is theirs.
  const fake = await new FakeStripe().allowKey(PAYOUT_KEY).addCustomer('cus_ava').start();
  await service.admin.updateCampaign({ id: campaignId, stripeRewardKey: PAYOUT_KEY, stripeRewardMode: 'balance' });
  for (const email of ['friend6@example.org', 'friend7@example.org']) {
    await service.admin.addParticipant({ id: campaignId, email, referredByCode: ava.referralCode! });
    await service.admin.qualifyParticipant({ id: campaignId, email });
  }
  fake.fail({ kind: '400', message: "This customer's balance is in EUR; the credit is in USD" });
  await new StripePayoutSender(service.ctx, { api: fake.api }).sendDue();
  await fake.stop();
  // A reward code pool filled after the activity above (so no credit of it holds a code), under the
  // default low threshold of 10: the Billing page has a pool and a warning to show.
  await service.admin.addRewardCodes({ id: campaignId, kind: 'referee', codes: ['GIFT-7QX2-KD9P', 'GIFT-3MRT-WZ6L', 'GIFT-9BVN-C4TE', 'GIFT-5HJY-PA8S'] });
  await waitFor(async () => (await service.admin.listWebhookDeliveries({ limit: 100 })).every((d) => d.attemptCount > 0), 'every webhook delivery attempted');
  return {
    service,
    receiver,
    campaignId,
    async close() {
      await receiver.close();
      await service.close();
    },
  };
}

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors and console errors (a CSP violation is one): a page that works has none. */
  problems: string[];
  /** Resolves once none of the page's own API calls has been in flight for a moment (see `apiSettled`). */
  settled: () => Promise<void>;
}

/**
 * Follows the page's calls to the service's API, and answers a function that resolves once none has been
 * in flight for `quietMs`. Playwright's network-idle also waits on everything else a page holds open (the
 * Emails page's preview frame kept it from ever coming, now and then, on a loaded machine); what a test
 * means by "the page has its data" is its API calls. On timeout it names the calls still in flight.
 */
export function apiSettled(page: Page, quietMs = 300, timeoutMs = 30_000): () => Promise<void> {
  // Playwright hands the same Request object to 'request' and to its 'requestfinished' or 'requestfailed'.
  const inFlight = new Set<Request>();
  let lastChange = Date.now();
  page.on('request', (r) => {
    if (!new URL(r.url()).pathname.startsWith('/api/')) return;
    inFlight.add(r);
    lastChange = Date.now();
  });
  const done = (r: Request) => {
    if (inFlight.delete(r)) lastChange = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return async () => {
    const start = Date.now();
    while (inFlight.size > 0 || Date.now() - lastChange < quietMs) {
      if (Date.now() - start > timeoutMs) throw new Error(`API calls still in flight after ${timeoutMs} ms: ${[...inFlight].map((r) => `${r.method()} ${r.url()}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
}

/** A new browser context at `width`, signed in to the dashboard. */
export async function signedIn(browser: Browser, baseUrl: string, width = 1280, who = OWNER): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, baseURL: baseUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const settled = apiSettled(page);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    // Chromium logs every 4xx answer as a console error: the 401 of the session check before sign-in, and
    // the refusals tests provoke on purpose (the page shows those in its alert line, which tests check).
    if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) problems.push(msg.text());
  });
  await page.goto('/admin/');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
  return { context, page, problems, settled };
}

/** Runs a task in a fresh signed-in context at `width`; the page must log no error on the way. */
export async function signedInTask(browser: Browser, baseUrl: string, width: number, fn: (d: DashboardPage) => Promise<void>): Promise<void> {
  const d = await signedIn(browser, baseUrl, width);
  try {
    await fn(d);
    assert.deepEqual(d.problems, []);
  } finally {
    await d.context.close();
  }
}

/** Answers the confirmation dialog with its `button`, and waits for it to close. */
export async function confirm(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button }).click();
  await dialog.waitFor({ state: 'hidden' });
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated, not injected as a script tag: the dashboard's CSP rightly refuses inline scripts.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** True when the page scrolls sideways: at 390 px every page must fit the width (tables scroll in their own box). */
export const overflowsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
