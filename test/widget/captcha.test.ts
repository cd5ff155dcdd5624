/**
 * The CAPTCHA in the sign-up form of a campaign that has one (getWidgetSettings' `captcha`): the provider's
 * script loaded explicitly (from `scriptUrl` here: the stand-in ../server/helpers/fake-captcha-script.js,
 * or each provider's own address), its challenge rendered with the site key in the widget's `captcha`
 * slot, the submit explained until it is solved, its token sent as captchaToken, and after a refused one
 * (captcha_failed, captcha_required, captcha_unavailable) the challenge reset with a message; a script
 * that does not load says so; a campaign without one loads nothing. Axe-clean. The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { AddParticipantBody } from '../../src/api/schemas.js';
import type { WidgetCaptcha } from '../../src/api/widget-schemas.js';
import type { ReferralWidget } from '../../src/widget/index.js';
import { apiError, fakeServicePerTest, json, participant, settings } from './fake-service.js';
import { mount, q, settled, signUp, text } from './helpers.js';

const service = fakeServicePerTest();

/** The stand-in script, as the test runner serves the repository's files. */
const STAND_IN = '/test/server/helpers/fake-captcha-script.js';

interface StandInLog {
  loads: string[];
  renders: { provider: string; sitekey: string }[];
  resets: { provider: string }[];
  removes: { provider: string }[];
}
const log = () => (window as unknown as { fakeCaptcha?: StandInLog }).fakeCaptcha!;
const scripts = () => [...document.querySelectorAll<HTMLScriptElement>('head script[src]')].map((s) => s.src);

/** The widget of a campaign with this CAPTCHA (the stand-in's script unless `scriptUrl` says otherwise). */
async function mounted(captcha: Partial<WidgetCaptcha> = {}, attrs = ''): Promise<ReferralWidget> {
  const withCaptcha = { provider: 'turnstile' as const, siteKey: 'site-key-1', scriptUrl: STAND_IN, ...captcha };
  service().routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, captcha: withCaptcha });
  const el = await mount(attrs);
  await settled(el, 'ready');
  return el;
}

/** The stand-in's challenge, in the page's DOM under the widget (its `captcha` slot). */
const challenge = (el: ReferralWidget) => el.querySelector<HTMLButtonElement>('[data-fake-captcha]');
const shown = (el: ReferralWidget) => waitUntil(() => challenge(el) && el.captchaState === 'shown', 'the challenge shown', { timeout: 4000 });
async function solve(el: ReferralWidget): Promise<void> {
  challenge(el)!.click();
  await waitUntil(() => el.captchaState === 'solved', 'the challenge solved');
}
const sent = () => service().calls.filter((c) => c.path === '/api/v1/addParticipant').map((c) => c.body as AddParticipantBody);

describe('<referral-widget> with a CAPTCHA', () => {
  it('a campaign without one loads no script and sends no captchaToken', async () => {
    const before = scripts().length;
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(scripts().length).to.equal(before);
    expect(q(el, '[part=captcha]')).to.equal(null);
    expect(sent()[0]!.captchaToken).to.equal(undefined);
  });

  it('shows the challenge, explains the submit until it is solved, then sends the token once and takes the challenge away; axe-clean', async () => {
    const el = await mounted();
    await shown(el);
    expect(log().loads.at(-1)).to.match(/^\?onload=refkitCaptchaLoaded\d+&render=explicit$/);
    const { provider, sitekey } = log().renders.at(-1)!;
    expect({ provider, sitekey }).to.deep.equal({ provider: 'turnstile', sitekey: 'site-key-1' });
    expect(q<HTMLSlotElement>(el, '[part=captcha] slot[name=captcha]')!.assignedElements()[0]!.contains(challenge(el))).to.equal(true);
    await expect(el).shadowDom.to.be.accessible();

    signUp(el, 'ann@example.com');
    await el.updateComplete;
    expect(text(el, '[part~=captcha-error]')).to.equal('Complete the security check to sign up.');
    expect(sent()).to.have.length(0);

    await solve(el);
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(sent()).to.have.length(1);
    expect(sent()[0]!.captchaToken).to.match(/^local-token-\d+$/);
    expect(challenge(el)).to.equal(null, 'the challenge is taken off the page');
  });

  it('a refused token (captcha_failed) resets the challenge and says so; solved again, the sign-up goes through with the new token', async () => {
    let refuse = true;
    service().routes['/api/v1/addParticipant'] = (_url, body) =>
      refuse ? apiError(403, 'captcha_failed', 'The CAPTCHA was not solved. Try it again', 'captchaToken') : json(participant((body as { email: string }).email));
    const el = await mounted();
    await shown(el);
    await solve(el);
    const resets = log().resets.length;
    const errors: string[] = [];
    el.addEventListener('referral-error', (e) => errors.push(e.detail.code));
    signUp(el, 'ann@example.com');
    await waitUntil(() => log().resets.length === resets + 1, 'the challenge reset');
    await settled(el, 'ready');
    expect(text(el, '[part~=captcha-error]')).to.equal('The security check did not pass. Please try it again.');
    expect(el.captchaState).to.equal('shown');
    expect(errors).to.deep.equal(['captcha_failed']);
    await expect(el).shadowDom.to.be.accessible();

    // The spent token is not sent again: the submit is explained until the new challenge is solved.
    signUp(el, 'ann@example.com');
    await el.updateComplete;
    expect(sent()).to.have.length(1);
    expect(text(el, '[part~=captcha-error]')).to.equal('Complete the security check to sign up.');

    refuse = false;
    await solve(el);
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(sent()).to.have.length(2);
    expect(sent()[1]!.captchaToken).to.not.equal(sent()[0]!.captchaToken);
  });

  it('captcha_unavailable and captcha_required reset the challenge too, each with its message', async () => {
    const answers = [apiError(503, 'captcha_unavailable', 'x'), apiError(400, 'captcha_required', 'x', 'captchaToken')];
    service().routes['/api/v1/addParticipant'] = () => answers.shift() ?? apiError(500, 'internal');
    const el = await mounted();
    await shown(el);
    await solve(el);
    signUp(el, 'ann@example.com');
    await waitUntil(() => text(el, '[part~=captcha-error]') === 'The security check could not be verified just now. Please try it again.', 'unavailable said');
    expect(el.state).to.equal('ready');
    await solve(el);
    signUp(el, 'ann@example.com');
    await waitUntil(() => text(el, '[part~=captcha-error]') === 'Complete the security check to sign up.' && el.captchaState === 'shown', 'required said');
  });

  it('a visitor the page names (email) is asked to solve it first: the form with the challenge, the address filled in', async () => {
    service().routes['/api/v1/addParticipant'] = (_url, body) =>
      (body as { captchaToken?: string }).captchaToken ? json(participant((body as { email: string }).email)) : apiError(400, 'captcha_required', 'x', 'captchaToken');
    const el = await mounted({}, 'email="ann@example.com"');
    await shown(el);
    expect(q<HTMLInputElement>(el, 'input[name=email]')!.value).to.equal('ann@example.com');
    await solve(el);
    q<HTMLFormElement>(el, 'form')!.requestSubmit();
    await settled(el, 'signed-up');
    expect(sent().at(-1)!.captchaToken).to.match(/^local-token-\d+$/);
  });

  it("each provider's API renders its own challenge: hcaptcha.render, grecaptcha.render", async () => {
    for (const provider of ['hcaptcha', 'recaptcha'] as const) {
      const el = await mounted({ provider, siteKey: `site-${provider}` });
      await shown(el);
      expect(challenge(el)!.dataset.fakeCaptcha).to.equal(provider);
      expect(log().renders.at(-1)!.sitekey).to.equal(`site-${provider}`);
      el.remove();
    }
  });

  it('a script that does not load says so, and the submit explains it', async () => {
    const el = await mounted({ scriptUrl: '/test/widget/no-such-captcha-script.js' });
    await waitUntil(() => el.captchaState === 'error', 'the load failed');
    await el.updateComplete;
    const message = 'The security check could not load. Check your connection, then reload the page.';
    expect(text(el, '[part~=captcha-error]')).to.equal(message);
    signUp(el, 'ann@example.com');
    await el.updateComplete;
    expect(text(el, '[part~=captcha-error]')).to.equal(message);
    expect(sent()).to.have.length(0);
    await expect(el).shadowDom.to.be.accessible();
  });

  it("without scriptUrl, the provider's own script is asked for, explicitly rendered", async () => {
    const w = window as unknown as Record<string, unknown>;
    const expected = {
      turnstile: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit&onload=',
      hcaptcha: 'https://js.hcaptcha.com/1/api.js?render=explicit&onload=',
      recaptcha: 'https://www.google.com/recaptcha/api.js?render=explicit&onload=',
    };
    // Every script added to the page (one that fails to load is taken away again at once).
    const added: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n instanceof HTMLScriptElement) added.push(n.src);
    });
    observer.observe(document.head, { childList: true });
    try {
      for (const provider of ['turnstile', 'hcaptcha', 'recaptcha'] as const) {
        // The stand-in defined every provider's global, which the widget would use as the page's own.
        const saved = [w.turnstile, w.hcaptcha, w.grecaptcha];
        delete w.turnstile;
        delete w.hcaptcha;
        delete w.grecaptcha;
        try {
          const el = await mounted({ provider, scriptUrl: undefined });
          await waitUntil(() => added.some((s) => s.startsWith(expected[provider])), `${provider}'s script asked for`);
          el.remove();
        } finally {
          [w.turnstile, w.hcaptcha, w.grecaptcha] = saved;
        }
      }
    } finally {
      observer.disconnect();
    }
  });
});
