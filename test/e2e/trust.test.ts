/**
 * Privacy and attribution as visitors meet them: real service (SQLite), real SMTP server, the built
 * widget bundle on a shop's pages (another origin, two subdomains), real Chromium.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { linkIn, startMailbox, type Mailbox } from '../server/helpers/smtp.js';

/** Every *.shop.test name is this machine, so one page server stands for www. and app. of a shop. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP *.shop.test 127.0.0.1',
];

interface Shop {
  port: number;
  origin: (sub: string) => string;
  server: Server;
  /** Sign-ups the shop's own backend made (its own form), with the code the page handed it. */
  backendSignups: { email: string; referredByCode?: string }[];
}

/**
 * The shop's pages: `/` a landing page with the script and no element; `/join` the widget (query
 * `attrs` adds attributes); `/own-form` the shop's own sign-up form, which asks refkit for the code and
 * posts it to the shop's backend (`/backend/signup`), which signs up with its secret key.
 */
function startShop(service: TestService, campaignId: () => string): Promise<Shop> {
  const script = (extra = '') => `<script type="module" src="${service.url}/widget/referral-widget.js" ${extra}></script>`;
  const page = (body: string, head = script()) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>${head}</head><body>${body}</body></html>`;
  const shop: Shop = { port: 0, origin: () => '', server: undefined as unknown as Server, backendSignups: [] };
  shop.server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (url.pathname === '/') return html(page('<h1>Welcome</h1><a href="/join">Join</a>', script('data-cookie-domain="shop.test"')));
    if (url.pathname === '/join') {
      return html(page(`<h1>Join</h1><referral-widget campaign-id="${campaignId()}" cookie-domain="shop.test" ${url.searchParams.get('attrs') ?? ''}></referral-widget>`));
    }
    if (url.pathname === '/own-form') {
      return html(
        page(`<form id="f"><input name="email" aria-label="Email"><button>Sign up</button></form><p id="done"></p>
        <script type="module">
          document.getElementById('f').addEventListener('submit', async (e) => {
            e.preventDefault();
            const email = new FormData(e.target).get('email');
            const referredByCode = window.refkit.getReferralCode(${JSON.stringify(campaignId())});
            const r = await fetch('/backend/signup', { method: 'POST', body: JSON.stringify({ email, referredByCode }) });
            document.getElementById('done').textContent = r.ok ? 'Thanks!' : 'Failed';
          });
        </script>`),
      );
    }
    if (url.pathname === '/backend/signup') {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw) as { email: string; referredByCode?: string };
        shop.backendSignups.push(body);
        service.admin.addParticipant({ id: campaignId(), ...body }).then(
          () => res.writeHead(200).end('{}'),
          () => res.writeHead(500).end('{}'),
        );
      });
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    shop.server.listen(0, '127.0.0.1', () => {
      shop.port = (shop.server.address() as AddressInfo).port;
      shop.origin = (sub) => `http://${sub}.shop.test:${shop.port}`;
      resolve(shop);
    }),
  );
}

describe('privacy and attribution in the browser', () => {
  let service: TestService;
  let mailbox: Mailbox;
  let browser: Browser;
  let shop: Shop;
  let campaignId = '';
  let ann: { referralCode?: string; shareLink?: string };

  before(async () => {
    const [sqlite] = await databaseKinds();
    mailbox = await startMailbox();
    service = await startService(sqlite!, { smtpUrl: mailbox.url });
    shop = await startShop(service, () => campaignId);
    campaignId = await service.campaign({
      hostURL: `${shop.origin('www')}/join`,
      allowedOrigins: [shop.origin('www'), shop.origin('app')],
      rewardHeader: 'Give $5, get $10',
    });
    ann = await service.admin.addParticipant({ id: campaignId, email: 'ann@example.com', firstName: 'Ann' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await service?.close();
    await mailbox?.close();
  });

  const visitor = (): Promise<BrowserContext> => browser.newContext();
  const widget = (ctx: BrowserContext) => ctx.pages()[0]!.locator('referral-widget');

  it('a share link landing on a page without the widget, on www, while the campaign is paused, is credited on app', async () => {
    await service.admin.setCampaignStatus(campaignId, 'Pause');
    const ctx = await visitor();
    const page = await ctx.newPage();
    const validated = page.waitForResponse((r) => r.url().includes('/api/v1/validateCode'));
    await page.goto(`${shop.origin('www')}/?id=${campaignId}&referralCode=${ann.referralCode}`);
    assert.equal(await (await validated).json(), true);
    const cookies = await ctx.cookies(shop.origin('app'));
    assert.equal(cookies.find((c) => c.name === `refkit_code_${campaignId.replace(/[^A-Za-z0-9_-]/g, '_')}`)?.value, ann.referralCode);
    await service.admin.setCampaignStatus(campaignId, 'Active');

    // Days later, on another subdomain (another origin: its localStorage is empty), the visitor joins.
    await page.goto(`${shop.origin('app')}/join`);
    await widget(ctx).getByText('You were invited').waitFor();
    await widget(ctx).getByLabel('Email address').fill('ben@example.com');
    await widget(ctx).getByRole('button', { name: 'Claim my reward' }).click();
    await widget(ctx).getByText('You are in!').waitFor();
    assert.equal((await service.admin.getParticipant(campaignId, 'ben@example.com')).referredByCode, ann.referralCode);
    await ctx.close();
  });

  it("the shop's own form gets the code from getReferralCode and signs up through its backend", async () => {
    const ctx = await visitor();
    const page = await ctx.newPage();
    await page.goto(`${shop.origin('www')}/?id=${campaignId}&referralCode=${ann.referralCode}`);
    await page.waitForFunction((id) => window.refkit?.getReferralCode(id) !== undefined, campaignId);
    await page.goto(`${shop.origin('www')}/own-form`);
    await page.getByLabel('Email').fill('cy@example.com');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Thanks!').waitFor();
    assert.deepEqual(shop.backendSignups.at(-1), { email: 'cy@example.com', referredByCode: ann.referralCode });
    assert.equal((await service.admin.getParticipant(campaignId, 'cy@example.com')).referredByCode, ann.referralCode);
    await ctx.close();
  });

  it("typing someone else's email shows no balances and tells the truth; the owner's magic link shows them", async () => {
    await service.admin.addParticipant({ id: campaignId, email: 'eve@example.com', firstName: 'Eve' });
    const ctx = await visitor();
    const page = await ctx.newPage();
    await page.goto(`${shop.origin('www')}/join?id=${campaignId}&referralCode=${ann.referralCode}`);
    const w = widget(ctx);
    await w.getByText('You were invited').waitFor();
    await w.getByLabel('Email address').fill('eve@example.com');
    await w.getByRole('button', { name: 'Claim my reward' }).click();
    const notice = w.locator('[part=notice]');
    await notice.waitFor();
    assert.equal(
      await notice.textContent(),
      'You had already joined with this email, so this invitation could not be added to it. We emailed you a link to see your rewards. Check your inbox.',
    );
    assert.equal(await w.locator('[part=stats]').count(), 0, 'no balances for a stranger');
    assert.equal(await w.getByText('Eve', { exact: true }).count(), 0, 'nor their name');
    assert.equal((await service.admin.getParticipant(campaignId, 'eve@example.com')).referredByCode, undefined);

    const [mail] = await mailbox.to('eve@example.com');
    const link = linkIn(mail!);
    // The owner opens the link on this browser: their balances, and later visits need nothing more.
    await page.goto(link.url.href);
    await w.getByText('Welcome back').waitFor();
    await w.locator('[part=stats]').waitFor();
    assert.ok(!page.url().includes('refkit_verify'), 'the code leaves the address bar');
    await page.goto(`${shop.origin('www')}/join`);
    await w.locator('[part=stats]').waitFor();
    await ctx.close();
  });

  it("a host's email signature shows a signed-in visitor their balances", async () => {
    const { secret } = await service.admin.getSigningSecret(campaignId);
    const signature = createHmac('sha256', secret).update('ann@example.com').digest('hex');
    const ctx = await visitor();
    const page = await ctx.newPage();
    await page.goto(`${shop.origin('www')}/join?attrs=${encodeURIComponent(`email="ann@example.com" email-signature="${signature}"`)}`);
    await widget(ctx).locator('[data-stat=referrals]').waitFor();
    assert.equal(await widget(ctx).locator('[data-stat=referrals]').textContent(), '2');
    await ctx.close();
  });

  it('double opt-in: the widget says "check your inbox"; the emailed link makes the participant', async () => {
    await service.admin.updateCampaign({ id: campaignId, requireEmailConfirmation: true });
    try {
      const ctx = await visitor();
      const page = await ctx.newPage();
      await page.goto(`${shop.origin('www')}/join?id=${campaignId}&referralCode=${ann.referralCode}`);
      const w = widget(ctx);
      await w.getByLabel('Email address').fill('dee@example.com');
      await w.getByRole('button', { name: 'Claim my reward' }).click();
      await w.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      await assert.rejects(service.admin.getParticipant(campaignId, 'dee@example.com'));
      const link = linkIn((await mailbox.to('dee@example.com'))[0]!);
      await page.goto(link.url.href);
      await w.getByText('Your email is confirmed').waitFor();
      const dee = await service.admin.getParticipant(campaignId, 'dee@example.com');
      assert.equal(dee.referredByCode, ann.referralCode);
      assert.equal(await w.getByLabel('Your referral link', { exact: true }).inputValue(), dee.shareLink);
      await ctx.close();
    } finally {
      await service.admin.updateCampaign({ id: campaignId, requireEmailConfirmation: false });
    }
  });
});
