import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/widget/index.js';
import type { ReferralWidget } from '../../src/widget/index.js';
import { rememberCode, rememberParticipant, CODE_TTL_MS } from '../../src/widget/storage.js';
import { apiError, campaign, deferred, fakeService, json, participant, type FakeService } from './fake-service.js';

let service: FakeService;
const API = 'https://refkit.test';

function setUrl(search: string) {
  history.replaceState(null, '', `${location.pathname}${search}`);
}

async function mount(attrs = '') {
  const el = await fixture<ReferralWidget>(
    html`<div .innerHTML=${`<referral-widget campaign-id="cmp_1" api-base="${API}" ${attrs}></referral-widget>`}></div>`,
  ).then((div) => div.querySelector('referral-widget')!);
  return el;
}

const q = (el: ReferralWidget, selector: string) => el.shadowRoot!.querySelector(selector) as HTMLElement | null;
const settled = (el: ReferralWidget, state: string) => waitUntil(() => el.state === state, `state ${state}, got ${el.state}`, { timeout: 4000 });

async function signUp(el: ReferralWidget, email: string) {
  const input = q(el, 'input[name=email]') as HTMLInputElement;
  input.value = email;
  (q(el, 'form') as HTMLFormElement).requestSubmit();
}

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
});
afterEach(() => service.restore());

describe('<referral-widget> states', () => {
  it('shows loading until the campaign arrives, then the ready sign-up form with campaign texts', async () => {
    const gate = deferred<Response>();
    service.routes['/api/v1/getCampaign'] = () => gate.promise;
    const el = await mount();
    expect(el.state).to.equal('loading');
    expect(q(el, '[part=card]')!.getAttribute('aria-busy')).to.equal('true');
    expect(q(el, '[part=status]')!.textContent).to.contain('Loading');
    gate.resolve(json(campaign));
    await settled(el, 'ready');
    expect(q(el, '[part=header]')!.textContent).to.contain('Give $5, get $10');
    expect(q(el, '[part=description]')!.textContent).to.contain('Friends get $5');
    expect(q(el, 'form')).to.exist;
    expect(service.calls[0]!.url.origin).to.equal(API);
    expect(service.calls[0]!.url.searchParams.get('id')).to.equal('cmp_1');
  });

  it('renders campaign text as text, never HTML', async () => {
    service.routes['/api/v1/getCampaign'] = () => json({ ...campaign, rewardHeader: '<img src=x onerror="window.pwned=1">Hi' });
    const el = await mount();
    await settled(el, 'ready');
    expect(q(el, '[part=header] img')).to.equal(null);
    expect(q(el, '[part=header]')!.textContent).to.contain('<img src=x');
  });

  it('validates a referral code from the share link, remembers it, shows the invitation and signs up with it', async () => {
    setUrl('?id=cmp_1&referralCode=FRIEND23');
    const el = document.createElement('referral-widget');
    el.setAttribute('api-base', API);
    const codeEvent = oneEvent(document, 'referral-code');
    el.setAttribute('campaign-id', 'cmp_1');
    document.body.append(el);
    const { detail } = await codeEvent;
    expect(detail).to.deep.equal({ code: 'FRIEND23', valid: true });
    await settled(el, 'ready');
    expect(q(el, '[part=invited]')!.textContent).to.contain('You were invited');
    expect(JSON.parse(localStorage.getItem('refkit:cmp_1:code')!).code).to.equal('FRIEND23');
    const validate = service.calls.find((c) => c.path === '/api/v1/validateCode')!;
    expect(validate.url.searchParams.get('code')).to.equal('FRIEND23');
    await signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    const add = service.calls.find((c) => c.path === '/api/v1/addParticipant')!;
    expect(add.body).to.deep.equal({ id: 'cmp_1', email: 'ann@example.com', referredByCode: 'FRIEND23' });
    el.remove();
  });

  it('keeps a valid code across navigation, for 90 days only', async () => {
    rememberCode('cmp_1', 'KEPT2345');
    let el = await mount();
    await settled(el, 'ready');
    expect(q(el, '[part=invited]')).to.exist;
    await signUp(el, 'b@example.com');
    await settled(el, 'signed-up');
    expect((service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body as { referredByCode?: string }).referredByCode).to.equal('KEPT2345');

    localStorage.clear();
    rememberCode('cmp_1', 'OLD23456', Date.now() - CODE_TTL_MS - 1000);
    service.calls.length = 0;
    el = await mount();
    await settled(el, 'ready');
    expect(q(el, '[part=invited]')).to.equal(null);
    await signUp(el, 'c@example.com');
    await settled(el, 'signed-up');
    expect(service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body).to.not.have.property('referredByCode');
  });

  it('an invalid or unknown code says so, and sign-up still works without a referral', async () => {
    setUrl('?referralCode=NOPE');
    service.routes['/api/v1/validateCode'] = () => json(false);
    const codeEvent = oneEvent(document, 'referral-code');
    const el = await mount();
    expect((await codeEvent).detail).to.deep.equal({ code: 'NOPE', valid: false });
    await settled(el, 'ready');
    expect(q(el, '[part~=invalid-code]')!.textContent).to.contain('not valid');
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
    await signUp(el, 'd@example.com');
    await settled(el, 'signed-up');
    expect(service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body).to.deep.equal({ id: 'cmp_1', email: 'd@example.com' });
  });

  it('ignores a code meant for another campaign', async () => {
    setUrl('?id=other&referralCode=FRIEND23');
    const el = await mount();
    await settled(el, 'ready');
    expect(service.calls.some((c) => c.path === '/api/v1/validateCode')).to.equal(false);
    expect(q(el, '[part=invited]')).to.equal(null);
  });

  it('shows submitting while the sign-up is in flight, with the button disabled', async () => {
    const gate = deferred<Response>();
    service.routes['/api/v1/addParticipant'] = () => gate.promise;
    const el = await mount();
    await settled(el, 'ready');
    await signUp(el, 'e@example.com');
    await settled(el, 'submitting');
    await el.updateComplete;
    expect((q(el, 'button[type=submit]') as HTMLButtonElement).disabled).to.equal(true);
    expect(q(el, '[part=status]')!.textContent).to.contain('Signing you up');
    gate.resolve(json(participant('e@example.com')));
    await settled(el, 'signed-up');
  });

  it('after sign-up shows the share link, copy, QR code, share links and balances, and emits referral-signup', async () => {
    const el = await mount();
    await settled(el, 'ready');
    const signup = oneEvent(el, 'referral-signup');
    await signUp(el, 'f@example.com');
    const { detail } = await signup;
    expect(detail.participant.email).to.equal('f@example.com');
    await settled(el, 'signed-up');
    await el.updateComplete;
    const link = 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23';
    expect((q(el, '[part~=link]') as HTMLInputElement).value).to.equal(link);
    expect(q(el, '[part=header]')!.textContent).to.contain('Share your link');
    await waitUntil(() => q(el, '[part=qr] svg'), 'QR code rendered');
    const targets = [...el.shadowRoot!.querySelectorAll<HTMLAnchorElement>('[part=share-links] a')];
    expect(targets.map((a) => a.dataset.target)).to.deep.equal(['email', 'x', 'facebook', 'linkedin', 'whatsapp']);
    expect(new URL(targets[2]!.href).searchParams.get('u')).to.equal(link);
    expect(new URL(targets[1]!.href).searchParams.get('url')).to.equal(link);
    expect(targets[0]!.href).to.contain(encodeURIComponent(link));
    expect(q(el, '[data-stat=referrals]')!.textContent).to.equal('2');
    expect(q(el, '[data-stat=referral-balance]')!.textContent).to.equal('20');
    expect(q(el, '[data-stat=referee-balance]')!.textContent).to.equal('5');
    expect(localStorage.getItem('refkit:cmp_1:email')).to.equal('f@example.com');

    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t: string) => void (copied = t) }, configurable: true });
    (q(el, '[part~=copy]') as HTMLButtonElement).click();
    await waitUntil(() => copied === link, 'copied to the clipboard');
    await waitUntil(() => q(el, '[part=status]')!.textContent!.includes('copied'));
  });

  it('offers native share where the browser has it', async () => {
    let shared: ShareData | undefined;
    Object.defineProperty(navigator, 'share', { value: async (d: ShareData) => void (shared = d), configurable: true });
    try {
      const el = await mount('email="g@example.com"');
      await settled(el, 'signed-up');
      await el.updateComplete;
      (q(el, '[part~=native-share]') as HTMLButtonElement).click();
      await waitUntil(() => shared?.url === participant('g@example.com').shareLink);
    } finally {
      delete (navigator as { share?: unknown }).share;
    }
  });

  it('a known visitor (email attribute) goes straight to the share view', async () => {
    const el = await mount('email="known@example.com"');
    await settled(el, 'signed-up');
    expect(el.returning).to.equal(true);
    expect(q(el, 'form')).to.equal(null);
    expect(q(el, '[part=status]')!.textContent).to.contain('Welcome back');
    expect(service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body).to.deep.equal({ id: 'cmp_1', email: 'known@example.com' });
  });

  it('a returning visitor who signed up on this browser sees their share view', async () => {
    rememberParticipant('cmp_1', 'back@example.com');
    const el = await mount();
    await settled(el, 'signed-up');
    expect((q(el, '[part~=link]') as HTMLInputElement).value).to.contain('referralCode=MYCODE23');
  });

  for (const [status, text, answer] of [
    ['paused', 'paused', json({ ...campaign, status: 'Pause', paused: true })],
    ['ended', 'ended', json({ ...campaign, status: 'End', ended: true })],
    ['not-found', 'could not be found', apiError(404, 'campaign_not_found')],
  ] as const) {
    it(`shows the ${status} state with no form`, async () => {
      service.routes['/api/v1/getCampaign'] = () => answer.clone();
      const el = await mount();
      await settled(el, status);
      expect(q(el, 'form')).to.equal(null);
      expect(q(el, '[part=status]')!.textContent).to.contain(text);
    });
  }

  it('a campaign paused between load and sign-up shows paused', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(409, 'campaign_paused');
    const el = await mount();
    await settled(el, 'ready');
    await signUp(el, 'h@example.com');
    await settled(el, 'paused');
  });

  it('a server error shows a retry button that works, and emits referral-error', async () => {
    let fail = true;
    service.routes['/api/v1/getCampaign'] = () => (fail ? apiError(500, 'internal', 'boom') : json(campaign));
    const error = oneEvent(document, 'referral-error');
    const el = await mount();
    expect((await error).detail).to.deep.equal({ code: 'internal', message: 'boom', status: 500 });
    await settled(el, 'error');
    expect(q(el, '[part=status]')!.textContent).to.contain('Something went wrong');
    fail = false;
    (q(el, '[part~=retry]') as HTMLButtonElement).click();
    await settled(el, 'ready');
  });

  it('offline: retries the sign-up, then waits for the connection and resumes on "online"', async () => {
    let down = true;
    let attempts = 0;
    service.routes['/api/v1/addParticipant'] = (_u, body) => {
      attempts++;
      if (down) throw new TypeError('Failed to fetch');
      return json(participant((body as { email: string }).email));
    };
    const el = await mount();
    await settled(el, 'ready');
    Object.defineProperty(navigator, 'onLine', { value: false, configurable: true });
    try {
      await signUp(el, 'i@example.com');
      await settled(el, 'offline');
    } finally {
      delete (navigator as { onLine?: boolean }).onLine;
    }
    expect(attempts).to.equal(3);
    expect(q(el, '[part=status]')!.textContent).to.contain('offline');
    expect(q(el, '[part~=retry]')).to.exist;
    down = false;
    window.dispatchEvent(new Event('online'));
    await settled(el, 'signed-up');
  });

  it('an unreachable service while online is an error with retry, not "offline"', async () => {
    service.routes['/api/v1/getCampaign'] = () => {
      throw new TypeError('Failed to fetch');
    };
    const el = await mount();
    await settled(el, 'error');
    expect(q(el, '[part=status]')!.textContent).to.contain('could not be reached');
  });

  it('checks the email in the browser first, and shows server field errors next to the field', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(400, 'invalid_request', 'email must be an email address', 'email');
    const el = await mount();
    await settled(el, 'ready');
    await signUp(el, 'not-an-email');
    await el.updateComplete;
    expect(q(el, '#email-error')!.textContent).to.contain('Enter an email address');
    expect(q(el, 'input[name=email]')!.getAttribute('aria-invalid')).to.equal('true');
    expect(service.calls.some((c) => c.path === '/api/v1/addParticipant')).to.equal(false);

    await signUp(el, 'x@bad.example');
    await waitUntil(() => q(el, '#email-error')!.textContent!.includes('must be an email address'));
    expect(el.state).to.equal('ready');
  });

  it('falls back to a plain sign-up when the referrer disappeared', async () => {
    rememberCode('cmp_1', 'GONE2345');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { referredByCode?: string }).referredByCode ? apiError(404, 'referrer_not_found') : json(participant('j@example.com'));
    const el = await mount();
    await settled(el, 'ready');
    await signUp(el, 'j@example.com');
    await settled(el, 'signed-up');
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
  });
});

describe('<referral-widget> options, theming and accessibility', () => {
  it('texts are overridable by attributes and slots; name fields are optional', async () => {
    const el = await fixture<ReferralWidget>(html`<referral-widget
      campaign-id="cmp_1"
      api-base=${API}
      submit-label="Join now"
      email-label="Work email"
      first-name
      last-name
      ><span slot="header">Custom header</span></referral-widget
    >`);
    await settled(el, 'ready');
    expect(q(el, 'button[type=submit]')!.textContent!.trim()).to.equal('Join now');
    expect(q(el, '[part=email-label]')!.textContent).to.contain('Work email');
    expect(q(el, 'input[name=firstName]')).to.exist;
    expect(q(el, 'input[name=lastName]')).to.exist;
    const slot = q(el, 'slot[name=header]') as HTMLSlotElement;
    expect(slot.assignedElements()[0]!.textContent).to.equal('Custom header');
    (q(el, 'input[name=firstName]') as HTMLInputElement).value = 'Ann';
    await signUp(el, 'k@example.com');
    await settled(el, 'signed-up');
    expect(service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body).to.deep.equal({ id: 'cmp_1', email: 'k@example.com', firstName: 'Ann' });
  });

  it('without first-name/last-name there are no name fields', async () => {
    const el = await mount();
    await settled(el, 'ready');
    expect(q(el, 'input[name=firstName]')).to.equal(null);
    expect(q(el, 'input[name=lastName]')).to.equal(null);
  });

  it('is themed by CSS custom properties and exposes parts', async () => {
    const el = await fixture<ReferralWidget>(
      html`<referral-widget style="--referral-widget-accent: rgb(255, 0, 0); --referral-widget-radius: 3px" campaign-id="cmp_1" api-base=${API}></referral-widget>`,
    );
    await settled(el, 'ready');
    const button = q(el, 'button[type=submit]')!;
    expect(getComputedStyle(button).backgroundColor).to.equal('rgb(255, 0, 0)');
    expect(getComputedStyle(q(el, '[part=card]')!).borderTopLeftRadius).to.equal('3px');
    expect(button.getAttribute('part')).to.contain('button');
  });

  it('has labelled controls, a live status region, and is usable by keyboard', async () => {
    const el = await mount();
    await settled(el, 'ready');
    const status = q(el, '[part=status]')!;
    expect(status.getAttribute('aria-live')).to.equal('polite');
    expect(status.getAttribute('role')).to.equal('status');
    const input = q(el, 'input[name=email]') as HTMLInputElement;
    expect(input.labels?.[0]?.textContent).to.contain('Email address');
    await expect(el).shadowDom.to.be.accessible();
    // Enter in the field submits the form, as a keyboard user expects.
    input.focus();
    input.value = 'kb@example.com';
    input.form!.requestSubmit();
    await settled(el, 'signed-up');
    await el.updateComplete;
    await expect(el).shadowDom.to.be.accessible();
    const linkInput = q(el, '[part~=link]') as HTMLInputElement;
    expect(linkInput.labels?.[0]?.textContent).to.contain('Your referral link');
  });

  it('events bubble out of the shadow root (composed)', async () => {
    const seen: string[] = [];
    const listener = (e: Event) => seen.push(e.type);
    document.addEventListener('referral-signup', listener);
    try {
      const el = await mount();
      await settled(el, 'ready');
      await signUp(el, 'l@example.com');
      await settled(el, 'signed-up');
      expect(seen).to.deep.equal(['referral-signup']);
    } finally {
      document.removeEventListener('referral-signup', listener);
    }
  });
});
