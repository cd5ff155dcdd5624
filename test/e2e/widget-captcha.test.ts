/**
 * The widget of a campaign with a CAPTCHA, in Chromium against the real service (SQLite), on a landing page
 * of another origin: the provider's script is the loopback stand-in (CAPTCHA_SCRIPT_URL) and its siteverify
 * too (CAPTCHA_VERIFY_URL), ../server/helpers/fake-captcha.ts. The visitor is told to complete the check
 * before the sign-up goes, solves it, signs up and is a participant, the token verified by the service.
 * A token the provider refuses resets the challenge and says so; solved again, the sign-up goes through.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ApiError } from '../../src/api/client.js';
import { databaseKinds } from '../server/helpers/databases.js';
import { FAKE_SECRET, FAKE_SITE_KEY, startFakeCaptcha, type FakeCaptcha } from '../server/helpers/fake-captcha.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { CHROMIUM_ARGS } from './helpers/dashboard.js';

describe('the widget with a CAPTCHA, in Chromium', () => {
  let fake: FakeCaptcha;
  let service: TestService;
  let browser: Browser;
  let shop: Server;
  let shopUrl = '';
  let campaignId = '';

  before(async () => {
    fake = await startFakeCaptcha();
    const [sqlite] = await databaseKinds();
    service = await startService(sqlite!, { fraud: { captchaVerifyUrl: fake.verifyUrl, captchaScriptUrl: fake.scriptUrl } });
    shop = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
        <script type="module" src="${service.url}/widget/referral-widget.js"></script></head>
        <body><main><referral-widget campaign-id="${campaignId}"></referral-widget></main></body></html>`),
    );
    shopUrl = await new Promise<string>((resolve) => shop.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(shop.address() as AddressInfo).port}`)));
    campaignId = await service.campaign({ hostURL: `${shopUrl}/`, captcha: { provider: 'turnstile', siteKey: FAKE_SITE_KEY, secretKey: FAKE_SECRET } });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    shop?.close();
    await service?.close();
    await fake?.close();
  });

  const participant = (email: string) =>
    service.admin.getParticipant(campaignId, email).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'participant_not_found') return undefined;
      throw err;
    });

  async function open(): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${shopUrl}/`);
    return page;
  }

  it('the challenge is shown; the sign-up waits for it; solved, the visitor signs up and is a participant', async () => {
    const page = await open();
    const widget = page.locator('referral-widget');
    const challenge = widget.getByRole('button', { name: 'I am human' });
    await challenge.waitFor();
    await widget.getByLabel('Email address').fill('ann@example.com');
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.getByText('Complete the security check to sign up.').waitFor();
    assert.equal(await participant('ann@example.com'), undefined, 'nothing sent before the check is solved');

    const asked = fake.verifications.length;
    await challenge.click();
    await widget.getByRole('button', { name: 'Verified' }).waitFor();
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.getByText('You are in! Your link is ready to share.').waitFor();
    const ann = await participant('ann@example.com');
    assert.ok(ann, 'Ann is a participant');
    assert.equal(await widget.getByLabel('Your referral link', { exact: true }).inputValue(), ann.shareLink);
    assert.equal(fake.verifications.length, asked + 1, 'her token was verified once');
    const v = fake.verifications.at(-1)!;
    assert.equal(v.success, true);
    assert.deepEqual(Object.keys(v.fields).sort(), ['remoteip', 'response', 'secret']);
    assert.equal(v.fields.secret, FAKE_SECRET);
    // The challenge is gone with the form.
    assert.equal(await widget.locator('[data-fake-captcha]').count(), 0);
    await page.close();
  });

  it('a token the provider refuses resets the challenge and says so; solved again, the sign-up goes through', async () => {
    const page = await open();
    const widget = page.locator('referral-widget');
    await widget.getByRole('button', { name: 'I am human' }).click();
    await widget.getByRole('button', { name: 'Verified' }).waitFor();
    await widget.getByLabel('Email address').fill('ben@example.com');
    fake.refuseNext();
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.getByText('The security check did not pass. Please try it again.').waitFor();
    assert.equal(await participant('ben@example.com'), undefined, 'refused: no participant');
    assert.deepEqual(fake.verifications.at(-1)!.errorCodes, ['invalid-input-response']);

    // Reset: a new challenge to solve for a new token.
    const challenge = widget.getByRole('button', { name: 'I am human' });
    await challenge.waitFor();
    await challenge.click();
    await widget.getByRole('button', { name: 'Verified' }).waitFor();
    await widget.getByRole('button', { name: 'Get my referral link' }).click();
    await widget.getByText('You are in! Your link is ready to share.').waitFor();
    assert.ok(await participant('ben@example.com'), 'Ben is a participant');
    const tokens = fake.verifications.slice(-2).map((x) => x.fields.response);
    assert.notEqual(tokens[0], tokens[1], 'the second sign-up carried a new token');
    await page.close();
  });
});
