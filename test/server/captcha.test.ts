/**
 * The CAPTCHA on keyless sign-ups (docs/fraud.md#captcha), against a loopback stand-in of the providers'
 * siteverify (./helpers/fake-captcha.ts, the service's CAPTCHA_VERIFY_URL), on each database: a browser's
 * addParticipant to a campaign with a captcha needs a token (400 captcha_required), one the provider says
 * was solved (403 captcha_failed otherwise, a used one included), and a provider that gives no verdict
 * refuses it (503 captcha_unavailable); none of these writes anything, and none names a rule. A token is
 * verified once, form-encoded with the secret, the token and the visitor's IP, even when the sign-up is
 * decided again. Keyed sign-ups need none. The secret is write-only; the widget reads the provider, the
 * site key and CAPTCHA_SCRIPT_URL. Without CAPTCHA_VERIFY_URL each provider's own siteverify is asked
 * (fetch intercepted for those three addresses only).
 */
import assert from 'node:assert/strict';
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { after, it } from 'node:test';
import type { CaptchaSettingsBody } from '../../src/api/fraud-schemas.js';
import { CAPTCHA_TIMEOUT_MS, SITEVERIFY_URLS } from '../../src/server/fraud/domain/captcha.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import { FAKE_SECRET, FAKE_SITE_KEY, startFakeCaptcha } from './helpers/fake-captcha.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const fake = await startFakeCaptcha();
after(() => fake.close());

const TURNSTILE: CaptchaSettingsBody = { provider: 'turnstile', siteKey: FAKE_SITE_KEY, secretKey: FAKE_SECRET };

/** The messages a refused sign-up may carry: each says what to do, none which rule or what the provider said. */
const MESSAGES = {
  captcha_required: 'Solve the CAPTCHA to sign up',
  captcha_failed: 'The CAPTCHA was not solved. Try it again',
  captcha_unavailable: 'The CAPTCHA cannot be checked right now. Try again in a moment',
};

const rows = (s: TestService) => dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);

eachDatabase(
  'a CAPTCHA on keyless sign-ups',
  (service) => {
    it('no token: 400 captcha_required naming captchaToken, nothing written and the provider not asked; a campaign without one takes sign-ups as before', async () => {
      const s = service();
      const id = await s.campaign({ captcha: TURNSTILE });
      const plain = await s.campaign();
      const asked = fake.verifications.length;
      const before = await rows(s);
      const err = await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com' }), 400, 'captcha_required', 'captchaToken');
      assert.equal(err.message, MESSAGES.captcha_required);
      assert.equal(await rows(s), before, 'nothing was written');
      assert.equal(fake.verifications.length, asked, 'the provider was not asked');

      // No captcha: no token needed, and one sent anyway is not checked.
      await s.browser.addParticipant({ id: plain, email: 'ann@example.com' });
      await s.browser.addParticipant({ id: plain, email: 'ben@example.com', captchaToken: 'whatever' });
      assert.equal(fake.verifications.length, asked, 'a campaign without a captcha asks no provider');
      assert.equal((await s.admin.getAllParticipants(plain)).length, 2);

      // The CAPTCHA comes before the blocklists: without one solved, a blocked address reads as any other.
      await s.admin.updateCampaign({ id, blocklist: { emails: ['mallory@example.com'] } });
      await rejects(() => s.browser.addParticipant({ id, email: 'mallory@example.com' }), 400, 'captcha_required');
      await rejects(() => s.browser.addParticipant({ id, email: 'mallory@example.com', captchaToken: fake.issue() }), 403, 'blocked');
    });

    it('a token the provider refuses (unknown, already used, or refused outright): 403 captcha_failed, nothing written; a solved one is good once', async () => {
      const s = service();
      const id = await s.campaign({ captcha: TURNSTILE });
      const before = await rows(s);
      const unknown = await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: 'made-up' }), 403, 'captcha_failed', 'captchaToken');
      assert.equal(unknown.message, MESSAGES.captcha_failed);
      assert.deepEqual(fake.verifications.at(-1)!.errorCodes, ['invalid-input-response']);
      fake.refuseNext();
      await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() }), 403, 'captcha_failed', 'captchaToken');
      assert.equal(await rows(s), before, 'nothing was written');

      const token = fake.issue();
      await s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: token });
      const afterAnn = await rows(s);
      const reused = await rejects(() => s.browser.addParticipant({ id, email: 'ben@example.com', captchaToken: token }), 403, 'captcha_failed');
      assert.deepEqual(fake.verifications.at(-1)!.errorCodes, ['timeout-or-duplicate']);
      assert.equal(reused.message, MESSAGES.captcha_failed);
      assert.equal(await rows(s), afterAnn, 'the reused token wrote nothing');
      assert.deepEqual((await s.admin.getAllParticipants(id)).map((p) => p.email), ['ann@example.com']);
    });

    it('a solved token signs up; siteverify is asked once, a form of secret, response and remoteip; a sign-up decided again does not spend it twice', async () => {
      const s = service();
      const id = await s.campaign({ captcha: TURNSTILE });
      const token = fake.issue();
      const asked = fake.verifications.length;
      const ann = await s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: token });
      assert.equal(ann.email, 'ann@example.com');
      assert.equal(fake.verifications.length, asked + 1);
      const v = fake.verifications.at(-1)!;
      assert.equal(v.path, '/siteverify');
      assert.equal(v.contentType, 'application/x-www-form-urlencoded');
      assert.deepEqual(v.fields, { secret: FAKE_SECRET, response: token, remoteip: '127.0.0.1' });
      assert.equal(v.success, true);

      // Through a referrer's earlier code (she chose a vanity code since): the sign-up is decided again with
      // her current code, and the token, already verified, is not sent again (it would be a duplicate).
      const dee = await s.admin.addParticipant({ id, email: 'dee@example.com' });
      await s.admin.setReferralCode(id, 'dee@example.com', 'DEEVANITY');
      const second = fake.issue();
      await s.browser.addParticipant({ id, email: 'eve@example.com', referredByCode: dee.referralCode!, captchaToken: second });
      assert.equal(fake.verifications.filter((x) => x.fields.response === second).length, 1, 'verified once');
      const eve = await s.admin.getParticipant(id, 'eve@example.com');
      assert.equal(eve.referredByCode, 'DEEVANITY');

      // An existing participant's address from a browser needs a solved CAPTCHA too.
      await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com' }), 400, 'captcha_required');
      const again = await s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() });
      assert.equal(again.referralCode, ann.referralCode);
    });

    it('keyed sign-ups need none, and a token they carry is ignored (not sent to the provider)', async () => {
      const s = service();
      const id = await s.campaign({ captcha: TURNSTILE });
      const asked = fake.verifications.length;
      await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', captchaToken: 'not-checked' });
      assert.equal(fake.verifications.length, asked, 'the provider was not asked');
      assert.deepEqual((await s.admin.getAllParticipants(id)).map((p) => p.email).sort(), ['ann@example.com', 'ben@example.com']);
    });

    it('a provider that fails (500), gives no verdict, or answers too late: 503 captcha_unavailable, nothing written (fail closed)', async () => {
      const s = service();
      const id = await s.campaign({ captcha: TURNSTILE });
      const before = await rows(s);
      try {
        fake.failWith(500);
        const err = await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() }), 503, 'captcha_unavailable');
        assert.equal(err.message, MESSAGES.captcha_unavailable);
        assert.equal(err.field, undefined);
        fake.failWith(undefined);

        fake.hang(true);
        const started = Date.now();
        await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() }), 503, 'captcha_unavailable');
        const waited = Date.now() - started;
        assert.ok(waited >= CAPTCHA_TIMEOUT_MS - 100 && waited < CAPTCHA_TIMEOUT_MS + 5000, `gave up after the timeout (${waited} ms)`);
      } finally {
        fake.failWith(undefined);
        fake.hang(false);
      }
      assert.equal(await rows(s), before, 'nothing was written');
      // Back: the next sign-up goes through.
      await s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() });
    });

    it('the secret is write-only: the owner reads provider and siteKey; the widget reads them with CAPTCHA_SCRIPT_URL; null removes the captcha', async () => {
      const s = service();
      const created = await s.admin.createCampaign({ campaignName: 'Guarded', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5, captcha: TURNSTILE });
      const id = created.campaignId!;
      assert.deepEqual(created.captcha, { provider: 'turnstile', siteKey: FAKE_SITE_KEY });
      const listed = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual(listed.captcha, { provider: 'turnstile', siteKey: FAKE_SITE_KEY });
      const widget = await s.browser.getWidgetSettings(id);
      assert.deepEqual(widget.captcha, { provider: 'turnstile', siteKey: FAKE_SITE_KEY, scriptUrl: fake.scriptUrl });
      const updated = await s.admin.updateCampaign({ id, rewardHeader: 'Still guarded' });
      for (const answer of [created, listed, widget, updated, await s.browser.getCampaign(id)]) {
        assert.ok(!JSON.stringify(answer).includes(FAKE_SECRET), 'the secret is never shown');
      }

      // A new site key without the secret keeps the stored secret (tokens are still checked with it);
      // a first CAPTCHA without its secret is refused, naming the field.
      await s.admin.updateCampaign({ id, captcha: { provider: 'turnstile', siteKey: `${FAKE_SITE_KEY}-2` } });
      assert.equal((await s.ctx.store.findCampaign(id))!.captcha_secret, FAKE_SECRET);
      // A campaign without one: the widget reads no captcha.
      const plain = await s.campaign();
      await rejects(() => s.admin.updateCampaign({ id: plain, captcha: { provider: 'turnstile', siteKey: FAKE_SITE_KEY } }), 400, 'invalid_request', 'captcha.secretKey');
      assert.equal((await s.browser.getWidgetSettings(plain)).captcha, undefined);

      const removed = await s.admin.updateCampaign({ id, captcha: null });
      assert.equal(removed.captcha, null);
      assert.equal((await s.browser.getWidgetSettings(id)).captcha, undefined);
      await s.browser.addParticipant({ id, email: 'ann@example.com' });
    });

    it('hCaptcha is also given the site key (it then refuses a token solved for another site)', async () => {
      const s = service();
      const id = await s.campaign({ captcha: { provider: 'hcaptcha', siteKey: FAKE_SITE_KEY, secretKey: FAKE_SECRET } });
      const token = fake.issue();
      await s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: token });
      assert.deepEqual(fake.verifications.at(-1)!.fields, { secret: FAKE_SECRET, response: token, remoteip: '127.0.0.1', sitekey: FAKE_SITE_KEY });
      await rejects(() => s.browser.addParticipant({ id, email: 'ben@example.com', captchaToken: fake.issue('another-site') }), 403, 'captcha_failed');
      assert.deepEqual(fake.verifications.at(-1)!.errorCodes, ['sitekey-secret-mismatch']);
    });

    it('a wrong secret key refuses every sign-up with the same 403, saying nothing of the secret', async () => {
      const s = service();
      const id = await s.campaign({ captcha: { ...TURNSTILE, secretKey: 'not-the-secret' } });
      const err = await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: fake.issue() }), 403, 'captcha_failed');
      assert.deepEqual(fake.verifications.at(-1)!.errorCodes, ['invalid-input-secret']);
      assert.equal(err.message, MESSAGES.captcha_failed);
    });
  },
  { fraud: { captchaVerifyUrl: fake.verifyUrl, captchaScriptUrl: fake.scriptUrl } },
);

eachDatabase("a CAPTCHA without CAPTCHA_VERIFY_URL: each provider's own siteverify", (service) => {
  it('Turnstile, hCaptcha and reCAPTCHA are each asked at their address; one that cannot be reached is 503 captcha_unavailable', async () => {
    const s = service();
    // The providers cannot be reached from here: undici's own MockAgent answers for their addresses
    // alone (the service's client is undici's), and every other request goes out as usual.
    const original = getGlobalDispatcher();
    const agent = new MockAgent();
    agent.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    setGlobalDispatcher(agent);
    const asked: { url: string; contentType: string | null; fields: Record<string, string> }[] = [];
    const intercept = (url: string) => {
      const { origin, pathname } = new URL(url);
      return agent.get(origin).intercept({ path: pathname, method: 'POST' });
    };
    for (const url of Object.values(SITEVERIFY_URLS)) {
      intercept(url).reply(({ headers, body }) => {
        asked.push({ url, contentType: new Headers(headers as Record<string, string>).get('content-type'), fields: Object.fromEntries(new URLSearchParams(String(body))) });
        return { statusCode: 200, data: JSON.stringify({ success: true, 'error-codes': [] }), responseOptions: { headers: { 'content-type': 'application/json' } } };
      });
    }
    try {
      for (const provider of ['turnstile', 'hcaptcha', 'recaptcha'] as const) {
        const id = await s.campaign({ captcha: { provider, siteKey: `site-${provider}`, secretKey: `secret-${provider}` } });
        await s.browser.addParticipant({ id, email: `${provider}@example.com`, captchaToken: `token-${provider}` });
      }
      assert.deepEqual(
        asked.map((a) => a.url),
        ['https://challenges.cloudflare.com/turnstile/v0/siteverify', 'https://api.hcaptcha.com/siteverify', 'https://www.google.com/recaptcha/api/siteverify'],
      );
      assert.deepEqual(
        asked.map((a) => a.contentType),
        ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      );
      assert.deepEqual(asked.map((a) => a.fields), [
        { secret: 'secret-turnstile', response: 'token-turnstile', remoteip: '127.0.0.1' },
        { secret: 'secret-hcaptcha', response: 'token-hcaptcha', remoteip: '127.0.0.1', sitekey: 'site-hcaptcha' },
        { secret: 'secret-recaptcha', response: 'token-recaptcha', remoteip: '127.0.0.1' },
      ]);
      // The widget loads the provider's own script: no scriptUrl.
      const id = await s.campaign({ captcha: TURNSTILE });
      assert.deepEqual((await s.browser.getWidgetSettings(id)).captcha, { provider: 'turnstile', siteKey: FAKE_SITE_KEY });

      intercept(SITEVERIFY_URLS.turnstile).replyWithError(new TypeError('fetch failed'));
      const before = await rows(s);
      await rejects(() => s.browser.addParticipant({ id, email: 'ann@example.com', captchaToken: 'token' }), 503, 'captcha_unavailable');
      assert.equal(await rows(s), before, 'nothing was written');
    } finally {
      setGlobalDispatcher(original);
      await agent.close();
    }
  });
});
