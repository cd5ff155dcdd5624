/** <referral-widget>: every state of the flow, and the events it dispatches. The service is faked. */
import { expect, oneEvent, waitUntil } from '@open-wc/testing';
import { ReferralWidget } from '../../src/widget/index.js';
import { rememberCode, rememberParticipant, CODE_TTL_MS } from '../../src/widget/storage.js';
import { apiError, campaign, deferred, fakeService, json, noAnswer, participant, type FakeService } from './fake-service.js';
import { API, mount, q, setUrl, settled, signUp, stubNavigator, text } from './helpers.js';

let service: FakeService;
const LINK = 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23';
/** The link as a channel hands it out: tagged with the channel (utm_medium), its own query kept. */
const via = (channel: string) => `${LINK}&utm_source=refkit&utm_medium=${channel}`;
const defaultDelays = ReferralWidget.networkRetryDelaysMs;
const calls = (path: string) => service.calls.filter((c) => c.path === `/api/v1/${path}`);
const addBodies = () => calls('addParticipant').map((c) => c.body);

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
  // The back-off itself is tested in parts.test.ts; here it only needs to be bounded and quick.
  ReferralWidget.networkRetryDelaysMs = [5, 5];
});
afterEach(() => {
  service.restore();
  ReferralWidget.networkRetryDelaysMs = defaultDelays;
});

describe('<referral-widget> loading and ready', () => {
  it('shows loading until the campaign arrives, then the sign-up form with the reward texts', async () => {
    const gate = deferred<Response>();
    service.routes['/api/v1/getCampaign'] = () => gate.promise;
    const el = await mount();
    expect(el.state).to.equal('loading');
    expect(q(el, '[part=card]')!.getAttribute('aria-busy')).to.equal('true');
    expect(text(el, '[part=status]')).to.equal('Loading…');
    expect(q(el, 'form')).to.equal(null);
    gate.resolve(json(campaign));
    await settled(el, 'ready');
    expect(q(el, '[part=card]')!.getAttribute('aria-busy')).to.equal('false');
    expect(text(el, '[part=header]')).to.equal('Give $5, get $10');
    expect(text(el, '[part=description]')).to.equal('Friends get $5 when they start a plan.');
    expect(q(el, 'form')).to.exist;
    expect(q(el, '[part=invited]')).to.equal(null);
    const [get] = calls('getCampaign');
    expect(get!.url.origin).to.equal(API);
    expect(get!.url.searchParams.get('id')).to.equal('cmp_1');
  });

  it('calls the origin its script came from when api-base is not given', async () => {
    const el = await mount('', { apiBase: false });
    await settled(el, 'ready');
    // In the test runner the module is served by the page's own server, so the two origins coincide;
    // script-origin's own tests cover a script from another origin.
    expect(calls('getCampaign')[0]!.url.origin).to.equal(new URL(import.meta.url).origin);
  });

  it('renders campaign texts as text, never as HTML', async () => {
    const evil = '<img src=x onerror="window.pwned=1">';
    service.routes['/api/v1/getCampaign'] = () =>
      json({ ...campaign, rewardHeader: `${evil}Hi`, rewardDescription: evil, shareHeader: evil, shareDescription: evil });
    const el = await mount('email="known@example.com"');
    await settled(el, 'signed-up');
    expect(q(el, 'img')).to.equal(null);
    expect(text(el, '[part=header]')).to.equal(evil);
    expect(text(el, '[part=description]')).to.equal(evil);
    expect((window as { pwned?: number }).pwned).to.equal(undefined);
  });

  it('a newer campaign-id wins over a load still in flight', async () => {
    const slow = deferred<Response>();
    service.routes['/api/v1/getCampaign'] = (url) =>
      url.searchParams.get('id') === 'cmp_1' ? slow.promise : json({ ...campaign, campaignId: 'cmp_2', rewardHeader: 'Second' });
    const el = await mount();
    el.campaignId = 'cmp_2';
    await settled(el, 'ready');
    slow.resolve(json({ ...campaign, rewardHeader: 'First' }));
    await new Promise((r) => setTimeout(r, 20));
    expect(text(el, '[part=header]')).to.equal('Second');
  });
});

describe('<referral-widget> referral codes', () => {
  it('validates the code of a share link, remembers it, says "You were invited", emits referral-code and signs up with it', async () => {
    setUrl('?id=cmp_1&referralCode=FRIEND23');
    const codeEvent = oneEvent(document, 'referral-code');
    const el = await mount();
    expect((await codeEvent).detail).to.deep.equal({ code: 'FRIEND23', valid: true });
    await settled(el, 'ready');
    expect(text(el, '[part=invited]')).to.equal('You were invited. Your reward: $5.');
    expect(calls('validateCode')[0]!.url.searchParams.get('code')).to.equal('FRIEND23');
    expect(calls('validateCode')[0]!.url.searchParams.get('campaignId')).to.equal('cmp_1');
    expect(JSON.parse(localStorage.getItem('refkit:cmp_1:code')!).code).to.equal('FRIEND23');
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'ann@example.com', referredByCode: 'FRIEND23' }]);
    // Used up: the next person on this browser is not credited to the same friend.
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
  });

  it('keeps a valid code across navigation, for 90 days only', async () => {
    rememberCode('cmp_1', 'KEPT2345');
    let el = await mount();
    await settled(el, 'ready');
    expect(q(el, '[part=invited]')).to.exist;
    signUp(el, 'b@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'b@example.com', referredByCode: 'KEPT2345' }]);

    localStorage.clear();
    rememberCode('cmp_1', 'OLD23456', Date.now() - CODE_TTL_MS - 1000);
    service.calls.length = 0;
    el = await mount();
    await settled(el, 'ready');
    expect(q(el, '[part=invited]')).to.equal(null);
    signUp(el, 'c@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'c@example.com' }]);
  });

  it('an unknown code says so, emits referral-code with valid false, and sign-up still works without a referral', async () => {
    setUrl('?referralCode=NOPE2345');
    service.routes['/api/v1/validateCode'] = () => json(false);
    const codeEvent = oneEvent(document, 'referral-code');
    const el = await mount();
    expect((await codeEvent).detail).to.deep.equal({ code: 'NOPE2345', valid: false });
    await settled(el, 'ready');
    expect(text(el, '[part~=invalid-code]')).to.contain('not valid');
    expect(q(el, '[part=invited]')).to.equal(null);
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
    signUp(el, 'd@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'd@example.com' }]);
  });

  it('a malformed code is invalid without asking the service', async () => {
    setUrl(`?referralCode=${encodeURIComponent('<b>x</b>')}`);
    const el = await mount();
    await settled(el, 'ready');
    expect(calls('validateCode')).to.have.length(0);
    expect(q(el, '[part~=invalid-code]')).to.exist;
  });

  it('ignores a code meant for another campaign', async () => {
    setUrl('?id=other&referralCode=FRIEND23');
    const el = await mount();
    await settled(el, 'ready');
    expect(calls('validateCode')).to.have.length(0);
    expect(q(el, '[part=invited]')).to.equal(null);
    expect(q(el, '[part~=invalid-code]')).to.equal(null);
  });

  it('when the code cannot be checked, the sign-up still carries it (the service checks it then)', async () => {
    setUrl('?referralCode=FRIEND23');
    service.routes['/api/v1/validateCode'] = noAnswer;
    let codeEvents = 0;
    const count = () => codeEvents++;
    document.addEventListener('referral-code', count);
    try {
      const el = await mount();
      await settled(el, 'ready');
      expect(codeEvents).to.equal(0);
      expect(q(el, '[part~=invalid-code]')).to.equal(null);
      expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
      signUp(el, 'v@example.com');
      await settled(el, 'signed-up');
      expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'v@example.com', referredByCode: 'FRIEND23' }]);
    } finally {
      document.removeEventListener('referral-code', count);
    }
  });

  it('signs up without the code when the referrer is gone by then, and forgets the code', async () => {
    rememberCode('cmp_1', 'GONE2345');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { referredByCode?: string }).referredByCode
        ? apiError(404, 'referrer_not_found', 'No participant of this campaign has this referral code or email', 'referredByCode')
        : json(participant('j@example.com'));
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'j@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([
      { id: 'cmp_1', email: 'j@example.com', referredByCode: 'GONE2345' },
      { id: 'cmp_1', email: 'j@example.com' },
    ]);
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
  });

  it('a self-referral is answered with the visitor\'s own record, signed up without the code', async () => {
    setUrl('?referralCode=MYCODE23');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { referredByCode?: string }).referredByCode ? apiError(409, 'self_referral') : json(participant('me@example.com'));
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'me@example.com');
    await settled(el, 'signed-up');
    expect(addBodies().at(-1)).to.deep.equal({ id: 'cmp_1', email: 'me@example.com' });
  });
});

describe('<referral-widget> signing up', () => {
  it('shows submitting while the sign-up is in flight, with the button disabled', async () => {
    const gate = deferred<Response>();
    service.routes['/api/v1/addParticipant'] = () => gate.promise;
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'e@example.com');
    await settled(el, 'submitting');
    expect(q<HTMLButtonElement>(el, 'button[type=submit]')!.disabled).to.equal(true);
    expect(text(el, 'button[type=submit]')).to.equal('Signing up…');
    expect(q(el, '[part=card]')!.getAttribute('aria-busy')).to.equal('true');
    expect(text(el, '[part=status]')).to.equal('Signing you up…');
    gate.resolve(json(participant('e@example.com')));
    await settled(el, 'signed-up');
  });

  it('signed up: share link, copy, QR code, share links, referrals and both balances; emits referral-signup', async () => {
    const el = await mount();
    await settled(el, 'ready');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'f@example.com');
    expect((await signup).detail.participant).to.deep.equal(participant('f@example.com'));
    await settled(el, 'signed-up');
    expect(el.returning).to.equal(false);
    expect(text(el, '[part=status]')).to.contain('Your link is ready');
    expect(text(el, '[part=header]')).to.equal('Share your link');
    expect(text(el, '[part=description]')).to.equal('Send it to a friend.');
    // The offer stays in view, in the campaign's currency.
    expect(text(el, '[part=offer]')).to.equal('Give $5, get $10 You get $10 for each friend who qualifies. Your friends get $5 when they qualify (for example, with a purchase).');
    expect(q<HTMLTextAreaElement>(el, '[part~=link]')!.value).to.equal(LINK);
    expect(q(el, '[part=returning]')).to.equal(null);
    await waitUntil(() => q(el, '[part=qr] svg'), 'QR code drawn');
    expect(q(el, '[part=qr]')!.getAttribute('aria-label')).to.contain('QR code');

    const targets = [...el.shadowRoot!.querySelectorAll<HTMLAnchorElement>('[part=share-links] a')];
    expect(targets.map((a) => a.dataset.target)).to.deep.equal(['email', 'whatsapp', 'x', 'facebook', 'linkedin']);
    for (const a of targets) {
      expect(a.target).to.equal('_blank');
      expect(a.rel).to.contain('noopener');
      // A recognisable icon beside the name.
      expect(a.querySelector('svg'), a.dataset.target).to.not.equal(null);
    }
    // The friend gets an invitation with the link, not the referrer's instructions.
    expect(new URL(targets[2]!.href).searchParams.get('text')).to.equal(`I think you would like this. Sign up with my link and you get $5: ${via('x')}`);
    expect(new URL(targets[3]!.href).searchParams.get('u')).to.equal(via('facebook'));

    expect(text(el, '[data-stat=referrals]')).to.equal('2');
    expect(text(el, '[data-stat=referral-earned]')).to.equal('$20');
    expect(text(el, '[data-stat=referee-earned]')).to.equal('$5');
    // A new participant has referred no one yet: the list says so, and the next step is sharing the link.
    expect(text(el, '[part=referrals-empty]')).to.contain('No one yet');
    expect(text(el, '[part=progress] [data-step=current]')).to.equal('1 Share your link (next step)');
    expect(localStorage.getItem('refkit:cmp_1:email')).to.equal('f@example.com');
  });

  it('copies the link to the clipboard, or selects it where the clipboard is refused', async () => {
    let copied = '';
    let undo = stubNavigator('clipboard', { writeText: async (t: string) => void (copied = t) });
    try {
      const el = await mount('email="f@example.com"');
      await settled(el, 'signed-up');
      q<HTMLButtonElement>(el, '[part~=copy]')!.click();
      await waitUntil(() => text(el, '[part=status]') === 'Link copied.');
      // The copied link says it was copied (the field shows the plain link).
      expect(copied).to.equal(via('copy'));
      expect(q<HTMLTextAreaElement>(el, '[part~=link]')!.value).to.equal(LINK);
      // The feedback is at the button too.
      expect(text(el, '[part~=copy]')).to.equal('Copied!');
      expect(q(el, '[part~=copy]')!.hasAttribute('data-copied')).to.equal(true);
      undo();
      undo = stubNavigator('clipboard', { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) });
      q<HTMLButtonElement>(el, '[part~=copy]')!.click();
      await waitUntil(() => text(el, '[part=status]').includes('Ctrl+C'));
      // Selected for a copy by hand: the link as the button would have copied it.
      const input = q<HTMLTextAreaElement>(el, '[part~=link]')!;
      expect(input.value).to.equal(via('copy'));
      expect([input.selectionStart, input.selectionEnd]).to.deep.equal([0, via('copy').length]);
    } finally {
      undo();
    }
  });

  it('offers native share where the browser has it, and not where it does not', async () => {
    // Debian's Chromium has no Web Share on Linux: the button must not be there.
    expect('share' in navigator, 'this browser has navigator.share').to.equal(false);
    let el = await mount('email="g@example.com"');
    await settled(el, 'signed-up');
    expect(q(el, '[part~=native-share]')).to.equal(null);

    let shared: ShareData | undefined;
    const undo = stubNavigator('share', async (d: ShareData) => void (shared = d));
    try {
      el = await mount('email="g@example.com"');
      await settled(el, 'signed-up');
      q<HTMLButtonElement>(el, '[part~=native-share]')!.click();
      await waitUntil(() => shared);
      expect(shared).to.deep.equal({ title: 'Give $5, get $10', text: `I think you would like this. Sign up with my link and you get $5: ${via('share')}` });
    } finally {
      undo();
    }
  });

  it('checks the email in the browser first, and shows a server field error next to its field', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(400, 'invalid_request', 'email must be an email address', 'email');
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'not-an-email');
    await el.updateComplete;
    expect(text(el, '#email-error')).to.contain('Enter an email address');
    expect(q(el, 'input[name=email]')!.getAttribute('aria-invalid')).to.equal('true');
    expect(calls('addParticipant')).to.have.length(0);

    const error = oneEvent(el, 'referral-error');
    signUp(el, 'x@bad.example');
    expect((await error).detail).to.deep.equal({ code: 'invalid_request', message: 'email must be an email address', status: 400 });
    await settled(el, 'ready');
    expect(text(el, '#email-error')).to.equal('email must be an email address');
    expect(q<HTMLInputElement>(el, 'input[name=email]')!.value).to.equal('x@bad.example');
  });

  it('a server error about a field the form does not show is shown under the form', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(400, 'invalid_request', 'id is too long', 'id');
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'y@example.com');
    await waitUntil(() => text(el, 'form > [part=field-error]') === 'id is too long');
  });
});

describe('<referral-widget> returning visitors', () => {
  it('a known visitor (email attribute) goes straight to the share view, with no referral-signup event', async () => {
    let signups = 0;
    const count = () => signups++;
    document.addEventListener('referral-signup', count);
    try {
      const el = await mount('email="known@example.com"');
      await settled(el, 'signed-up');
      expect(el.returning).to.equal(true);
      expect(q(el, '[part=card]')!.hasAttribute('data-returning')).to.equal(true);
      expect(q(el, 'form')).to.equal(null);
      expect(text(el, '[part=status]')).to.equal('Welcome back.');
      expect(q<HTMLInputElement>(el, '[part~=link]')!.value).to.equal(LINK);
      expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'known@example.com' }]);
      // The page knows who this is: no "Not you?".
      expect(q(el, '[part=not-me]')).to.equal(null);
      expect(signups).to.equal(0);
    } finally {
      document.removeEventListener('referral-signup', count);
    }
  });

  it('a visitor who signed up on this browser sees their share view, and "Not you?" brings the form back', async () => {
    rememberParticipant('cmp_1', 'back@example.com');
    const el = await mount();
    await settled(el, 'signed-up');
    expect(el.returning).to.equal(true);
    expect(text(el, '[part=returning]')).to.contain('Signed up as back@example.com');
    q<HTMLButtonElement>(el, '[part=not-me]')!.click();
    await settled(el, 'ready');
    expect(localStorage.getItem('refkit:cmp_1:email')).to.equal(null);
    expect(q(el, 'form')).to.exist;
  });

  it('a known email the service refuses shows the form with the error, emits referral-error, and a good one clears it', async () => {
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { email: string }).email === 'broken'
        ? apiError(400, 'invalid_request', 'email must be an email address', 'email')
        : json(participant((body as { email: string }).email));
    const error = oneEvent(document, 'referral-error');
    const el = await mount('email="broken"');
    expect((await error).detail).to.deep.equal({ code: 'invalid_request', message: 'email must be an email address', status: 400 });
    await settled(el, 'ready');
    expect(text(el, '#email-error')).to.equal('email must be an email address');
    el.email = 'fixed@example.com';
    await waitUntil(() => el.participant?.email === 'fixed@example.com');
    expect(el.fieldError).to.equal(undefined);
  });

  it('a known visitor the service cannot reach is an error with retry, not an empty form', async () => {
    let down = true;
    service.routes['/api/v1/addParticipant'] = (_u, body) => (down ? noAnswer() : json(participant((body as { email: string }).email)));
    const el = await mount('email="known@example.com"');
    await settled(el, 'error');
    expect(calls('addParticipant')).to.have.length(3);
    down = false;
    q<HTMLButtonElement>(el, '[part~=retry]')!.click();
    await settled(el, 'signed-up');
  });

  it('a new email attribute loads that visitor', async () => {
    const el = await mount('email="one@example.com"');
    await settled(el, 'signed-up');
    el.email = 'two@example.com';
    await waitUntil(() => el.participant?.email === 'two@example.com');
    await settled(el, 'signed-up');
  });
});

describe('<referral-widget> campaign states', () => {
  for (const [state, header, status, answer] of [
    ['paused', 'Give $5, get $10', 'This referral program is paused.', () => json({ ...campaign, status: 'Pause', paused: true })],
    ['ended', 'Give $5, get $10', 'This referral program has ended.', () => json({ ...campaign, status: 'End', ended: true })],
    ['not-found', 'Referral program', 'This referral program could not be found.', () => apiError(404, 'campaign_not_found')],
  ] as const) {
    it(`campaign ${state}: says so, with no form and no retry`, async () => {
      service.routes['/api/v1/getCampaign'] = answer;
      const el = await mount();
      await settled(el, state);
      expect(q(el, 'form')).to.equal(null);
      expect(q(el, '[part~=retry]')).to.equal(null);
      expect(text(el, '[part=header]')).to.equal(header);
      expect(text(el, '[part=status]')).to.equal(status);
      // The campaign's internal name is never shown to visitors.
      expect(el.shadowRoot!.textContent).to.not.contain('Acme launch');
      expect(calls('addParticipant')).to.have.length(0);
    });
  }

  it('a returning visitor of a paused campaign sees the paused state', async () => {
    rememberParticipant('cmp_1', 'back@example.com');
    service.routes['/api/v1/getCampaign'] = () => json({ ...campaign, status: 'Pause', paused: true });
    const el = await mount();
    await settled(el, 'paused');
    expect(calls('addParticipant')).to.have.length(0);
  });

  for (const [code, state] of [
    ['campaign_paused', 'paused'],
    ['campaign_ended', 'ended'],
  ] as const) {
    it(`a campaign that turns ${state} before the sign-up shows ${state}, and emits referral-error`, async () => {
      service.routes['/api/v1/addParticipant'] = () => apiError(409, code);
      const el = await mount();
      await settled(el, 'ready');
      const error = oneEvent(el, 'referral-error');
      signUp(el, 'h@example.com');
      expect((await error).detail).to.deep.include({ code, status: 409 });
      await settled(el, state);
      expect(q(el, 'form')).to.equal(null);
    });
  }
});

describe('<referral-widget> errors, retry and offline', () => {
  it('a server error shows the error state with a Retry that works, and emits referral-error', async () => {
    let fail = true;
    service.routes['/api/v1/getCampaign'] = () => (fail ? apiError(500, 'internal', 'boom') : json(campaign));
    const error = oneEvent(document, 'referral-error');
    const el = await mount();
    expect((await error).detail).to.deep.equal({ code: 'internal', message: 'boom', status: 500 });
    await settled(el, 'error');
    expect(text(el, '[part=status]')).to.equal('Something went wrong. Please try again.');
    expect(q(el, 'form')).to.equal(null);
    fail = false;
    q<HTMLButtonElement>(el, '[part~=retry]')!.click();
    await settled(el, 'ready');
  });

  it('a failed sign-up is retried with the same details', async () => {
    let fail = true;
    service.routes['/api/v1/addParticipant'] = (_u, body) => (fail ? apiError(500, 'internal') : json(participant((body as { email: string }).email)));
    const el = await mount('first-name');
    await settled(el, 'ready');
    q<HTMLInputElement>(el, 'input[name=firstName]')!.value = 'Ann';
    signUp(el, 'r@example.com');
    await settled(el, 'error');
    fail = false;
    q<HTMLButtonElement>(el, '[part~=retry]')!.click();
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([
      { id: 'cmp_1', email: 'r@example.com', firstName: 'Ann' },
      { id: 'cmp_1', email: 'r@example.com', firstName: 'Ann' },
    ]);
  });

  it('rate limited: asks to wait as long as the service says', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(429, 'rate_limited', 'Too many requests', undefined, { 'retry-after': '30' });
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 's@example.com');
    await settled(el, 'error');
    expect(text(el, '[part=status]')).to.equal('Too many attempts. Please wait 30 s and try again.');
    expect(calls('addParticipant')).to.have.length(1);
  });

  it('an unreachable service while online: bounded retries of the sign-up, then an error with retry (not "offline")', async () => {
    service.routes['/api/v1/addParticipant'] = noAnswer;
    const el = await mount();
    await settled(el, 'ready');
    const error = oneEvent(el, 'referral-error');
    signUp(el, 'u@example.com');
    expect((await error).detail).to.deep.include({ code: 'network_error', status: 0 });
    await settled(el, 'error');
    expect(calls('addParticipant')).to.have.length(3);
    expect(text(el, '[part=status]')).to.equal('The referral service could not be reached. Please try again.');
    expect(q(el, '[part~=retry]')).to.exist;
  });

  it('offline: says so while the form is open, waits, and resumes the sign-up on "online"', async () => {
    let down = true;
    service.routes['/api/v1/addParticipant'] = (_u, body) => (down ? noAnswer() : json(participant((body as { email: string }).email)));
    const el = await mount();
    await settled(el, 'ready');
    const undo = stubNavigator('onLine', false);
    try {
      window.dispatchEvent(new Event('offline'));
      await el.updateComplete;
      expect(text(el, '[part=status]')).to.contain('You are offline');
      expect(q(el, 'form')).to.exist;
      signUp(el, 'i@example.com');
      await settled(el, 'offline');
    } finally {
      undo();
    }
    expect(calls('addParticipant')).to.have.length(3);
    expect(text(el, '[part=status]')).to.contain('offline');
    expect(q(el, '[part~=retry]')).to.exist;
    down = false;
    window.dispatchEvent(new Event('online'));
    await settled(el, 'signed-up');
    expect(addBodies().at(-1)).to.deep.equal({ id: 'cmp_1', email: 'i@example.com' });
  });

  it('offline before the campaign loads: the offline state, and loading again on "online"', async () => {
    let down = true;
    service.routes['/api/v1/getCampaign'] = () => (down ? noAnswer() : json(campaign));
    const undo = stubNavigator('onLine', false);
    let el: ReferralWidget;
    try {
      el = await mount();
      await settled(el, 'offline');
    } finally {
      undo();
    }
    down = false;
    window.dispatchEvent(new Event('online'));
    await settled(el, 'ready');
  });
});
