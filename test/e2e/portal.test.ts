/**
 * The referrer's portal end to end: a real service (SQLite) with the built page (dist/portal, `npm run
 * build:portal`), a real SMTP server on loopback, Debian's Chromium. A participant asks for a sign-in link,
 * opens it from the email, sees their promotion code for friends at checkout, chooses their referral code
 * (refusals said beside the field), sets a PayPal address, and sees their ledger and a payout; axe finds
 * nothing at a phone's width and a desktop's, and nothing is wider than the phone. Screenshots at both widths are kept
 * in /tmp/portal-390.png and /tmp/portal-1280.png to look at.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { waitFor } from '../server/helpers/receiver.js';
import { startMailbox, type Mailbox } from '../server/helpers/smtp.js';
import { FakeStripe } from '../server/helpers/fake-stripe.js';
import { PromotionCodeSync } from '../../src/server/promotions/domain/promotion-code-sync.js';
import { launch, overflowsSideways, PAYOUT_KEY } from './helpers/dashboard.js';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** axe-core's violations on the page as it is now (open shadow roots included), whatever their impact. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated, not injected as a script tag: the page's CSP rightly refuses inline scripts.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

describe("the referrer's portal", () => {
  let service: TestService;
  let mailbox: Mailbox;
  let browser: Browser;
  let id: string;
  const ann = `ann-${randomBytes(3).toString('hex')}@example.com`;
  const bea = `bea-${randomBytes(3).toString('hex')}@example.com`;

  before(async () => {
    const [sqlite] = await databaseKinds();
    mailbox = await startMailbox();
    service = await startService(sqlite!, { smtpUrl: mailbox.url });
    service.ctx.payouts = { publicUrl: service.url };
    id = await service.campaign({
      campaignName: 'Acme Notes',
      referrerRewardValue: 10,
      refereeRewardValue: 5,
      rewardType: 'credit',
      rewardHeader: 'Give $5, get $10',
      cashPayouts: { methods: ['paypal', 'stripe_connect'], minimum: 10, schedule: 'manual', approval: false },
    });
    const annP = await service.admin.addParticipant({ id, email: ann, firstName: 'Ann' });
    await service.admin.addParticipant({ id, email: bea, firstName: 'Bea' }, 'de');
    // Ann's friends: one qualified (available), one qualified under a week's hold (pending), one joined.
    const friends = ['Cleo', 'Dev', 'Eli'].map((name) => ({ name, email: `${name.toLowerCase()}-${randomBytes(3).toString('hex')}@example.org` }));
    for (const f of friends) await service.admin.addParticipant({ id, email: f.email, firstName: f.name, referredByCode: annP.referralCode! });
    await service.admin.qualifyParticipant({ id, email: friends[0]!.email, amountPaid: '29.00' });
    await service.admin.updateCampaign({ id, holdDays: 7 });
    await service.admin.qualifyParticipant({ id, email: friends[1]!.email, amountPaid: '29.00' });
    // A friend's discount at checkout: Stripe (a loopback stand-in) makes each participant's promotion code.
    const fake = await new FakeStripe().allowKey(PAYOUT_KEY).start();
    try {
      await service.admin.updateCampaign({ id, stripeRewardKey: PAYOUT_KEY, refereeDiscount: { percentOff: 10, duration: 'once' } });
      const sync = new PromotionCodeSync(service.ctx, { api: fake.api, retryDelaysMs: [0], waitMs: 0, timeoutMs: 2000 });
      for (let i = 0; i < 5 && (await sync.syncNow()) > 0; i++);
    } finally {
      await fake.stop();
    }
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await mailbox?.close();
  });

  /** A page at `width` that records uncaught errors and console errors but the 4xx a test provokes. */
  async function open(width: number, locale = 'en-US'): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, baseURL: service.url, locale });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
    return { context, page, problems };
  }

  /** Asks for a link on the page, and answers the emailed link's address. */
  async function askForLink(page: Page, email: string, button: string, sent: string): Promise<string> {
    await page.goto(`/portal/${id}`);
    await page.locator('#email').fill(email);
    const before = (await mailbox.to(email, 0)).length;
    await page.getByRole('button', { name: button }).click();
    await page.getByRole('heading', { name: sent }).waitFor();
    const mails = await mailbox.to(email, before + 1);
    const m = /https?:\/\/\S+\/portal\/\S+\?token=\S+/.exec(mails.at(-1)!.text ?? '');
    assert.ok(m, 'the email holds the portal link');
    return m[0];
  }

  it('a participant signs in by the emailed link, sets a PayPal address, sees their ledger and a payout; axe finds nothing at 390 and 1280 px', async () => {
    const { context, page, problems } = await open(1280);
    try {
      // A spent link says so, and offers the form.
      await page.goto(`/portal/${id}?token=pl_not_a_real_one`);
      await page.getByRole('alert').getByText('This sign-in link has expired or was already used.').waitFor();
      assert.ok(!page.url().includes('token='), 'the token leaves the address at once');
      assert.deepEqual(await axeViolations(page), [], 'axe on the sign-in form');

      const link = await askForLink(page, ann, 'Email me a sign-in link', 'Check your inbox');
      assert.equal(new URL(link).pathname, `/portal/${id}`);
      await page.goto(link);
      await page.getByRole('heading', { name: 'Your referral rewards', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).search, '', 'the token leaves the address at once');
      await page.getByText(`Signed in as ${ann}`).waitFor();
      const cookie = (await context.cookies()).find((c) => c.name === 'refkit_portal')!;
      assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path], [true, 'Lax', '/api/v1/portal']);

      // The widget's share view: Ann's link, and the friends who joined through it.
      const share = page.locator('portal-share');
      const annLink = (await service.admin.getParticipant(id, ann)).shareLink!;
      assert.equal(await share.locator('#share-link').inputValue(), annLink);
      await share.getByText('Cleo').waitFor();
      await share.locator('[part=qr] svg').waitFor();
      // Ann's promotion code, for friends to type at checkout.
      const annCode = (await service.admin.getParticipant(id, ann)).referralCode!;
      const promotion = (await service.admin.getParticipantDetail(id, ann)).promotionCode!;
      assert.equal(promotion.code, annCode);
      await share.getByText('Your code for friends at checkout:').waitFor();
      assert.equal(await share.locator('[part=promotion-code]').innerText(), annCode);

      // Ann chooses her code: what the service refuses is said beside the field, in her words.
      const codeForm = page.locator('portal-code-form');
      await codeForm.getByText(`Your code is ${annCode}.`, { exact: false }).waitFor();
      const choose = async (code: string, said: string, role: 'alert' | 'status') => {
        await codeForm.getByLabel('Your new code').fill(code);
        await codeForm.getByRole('button', { name: 'Save code' }).click();
        await codeForm.getByRole(role).getByText(said).waitFor();
      };
      await choose('ab', 'Use 4 to 24 letters A–Z, digits or dashes, not starting or ending with a dash.', 'alert');
      assert.equal(await codeForm.getByLabel('Your new code').getAttribute('aria-invalid'), 'true');
      await choose('support', 'This code cannot be used. Please choose another.', 'alert');
      await choose((await service.admin.getParticipant(id, bea)).referralCode!, 'Someone else has this code. Please choose another.', 'alert');
      await choose('ann-friends', 'Saved. Your code is now ANN-FRIENDS; the old one keeps working.', 'status');
      const renamed = (await service.admin.getParticipant(id, ann)).shareLink!;
      assert.ok(renamed.includes('ANN-FRIENDS'), renamed);
      await waitFor(async () => (await share.locator('#share-link').inputValue()) === renamed, 'the share card shows the new link');
      await codeForm.getByText('Your code is ANN-FRIENDS.', { exact: false }).waitFor();
      await page.locator('portal-code-form').screenshot({ path: '/tmp/portal-code-form-1280.png' });
      // Three changes a day: two more by the owner, and the fourth is refused.
      await service.admin.setReferralCode(id, ann, 'ANN-FRIENDS2');
      await service.admin.setReferralCode(id, ann, 'ANN-FRIENDS3');
      await choose('ann-friends4', 'You can change your code three times a day. Please try again tomorrow.', 'alert');
      await page.locator('portal-code-form').screenshot({ path: '/tmp/portal-code-form-error-1280.png' });

      // The ledger: one credit available, one pending with its date.
      const ledger = page.getByRole('table').first();
      await ledger.getByText('Pending').waitFor();
      assert.equal(await page.locator('tr[data-entry-state=available]').count(), 1);
      assert.equal(await page.locator('tr[data-entry-state=pending]').count(), 1);
      assert.equal(await page.locator('[data-stat=available]').innerText(), '$10');
      assert.equal(await page.locator('[data-stat=pending]').innerText(), '$10');

      // Where the money goes: PayPal, with its address.
      await page.getByRole('radio', { name: 'PayPal' }).check();
      await page.getByLabel('PayPal email').fill('Ann.PayPal@example.com');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Saved. Your payouts go to this PayPal account.').waitFor();
      const method = await service.ctx.store.payoutProfiles.method((await service.ctx.store.findParticipantByEmail(id, ann))!.id);
      assert.deepEqual([method?.method, method?.paypal_email], ['paypal', 'ann.paypal@example.com']);

      // The owner's payout run (approval off: sent at once, by the sender, which this test does not run):
      // Ann's available $10 is held by a payout to her PayPal address.
      const run = await service.admin.createPayouts(id);
      assert.deepEqual(run.payouts.map((p) => [p.email, p.amount, p.destination]), [[ann, 10, 'ann.paypal@example.com']]);
      await page.reload();
      const payout = page.locator('tr[data-payout-status=sending]');
      await payout.waitFor();
      assert.match(await payout.innerText(), /\$10[\s\S]*PayPal: ann\.paypal@example\.com[\s\S]*Sending/);
      assert.equal(await page.locator('[data-stat=available]').innerText(), '$0');
      assert.equal(await page.locator('[data-stat=in-payouts]').innerText(), '$10');

      assert.deepEqual(await axeViolations(page), [], 'axe at 1280 px');
      await page.screenshot({ path: '/tmp/portal-1280.png', fullPage: true });
      await page.locator('portal-share').screenshot({ path: '/tmp/portal-share-1280.png' });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('portal-share').waitFor();
      assert.equal(await overflowsSideways(page), false, 'nothing wider than a phone');
      assert.deepEqual(await axeViolations(page), [], 'axe at 390 px');
      await page.screenshot({ path: '/tmp/portal-390.png', fullPage: true });
      await page.locator('portal-share').screenshot({ path: '/tmp/portal-share-390.png' });
      await page.locator('portal-code-form').screenshot({ path: '/tmp/portal-code-form-390.png' });

      // Signing out ends the session: the page asks for a link again, and so does a reload.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Email me a sign-in link' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Email me a sign-in link' }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("in the browser's language: the portal's own texts and the widget's share view, from their two catalogues", async () => {
    const { context, page, problems } = await open(1280, 'de-DE');
    try {
      const link = await askForLink(page, bea, 'Anmeldelink senden', 'Sehen Sie in Ihrem Posteingang nach');
      assert.equal((await mailbox.to(bea)).at(-1)!.subject, 'Ihr Anmeldelink für Acme Notes');
      await page.goto(link);
      await page.getByRole('heading', { name: 'Ihre Empfehlungsprämien', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Prämienverlauf' }).waitFor();
      await page.locator('portal-share').getByRole('heading', { name: 'Teilen Sie Ihren Link' }).waitFor();
      await page.locator('portal-share').getByText('Ihr Code für Freunde an der Kasse:').waitFor();
      await page.getByRole('heading', { name: 'Wählen Sie Ihren Code' }).waitFor();
      await page.getByRole('button', { name: 'Code speichern' }).waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
