/**
 * <referral-widget> and the page-level script with the service's privacy and attribution rules: proof
 * sent back (token, email signature), what a visitor is told for each sign-up outcome, emailed links,
 * codes checked once per page and day, and capture on pages without an element. The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { capturePage, getReferralCode } from '../../src/widget/attribution.js';
import { validateOnce } from '../../src/widget/code-capture.js';
import * as storage from '../../src/widget/storage.js';
import { apiError, fakeService, json, participant, type FakeService } from './fake-service.js';
import { API, mount, q, setUrl, settled, signUp, text } from './helpers.js';

let service: FakeService;
const calls = (path: string) => service.calls.filter((c) => c.path === `/api/v1/${path}`);
/** The shared fields only: what the service tells a browser that proves nothing. */
const shared = (email: string) => ({ email, referralCode: 'THEIRS23', campaignId: 'cmp_1', shareLink: 'https://acme.example/join?id=cmp_1&referralCode=THEIRS23' });
const answer = (body: unknown, headers: Record<string, string>) => json(body, 200, headers);

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
});
afterEach(() => service.restore());

describe('<referral-widget> proof of the participant', () => {
  it('keeps the token the service issues at sign-up and sends it back on the next visit', async () => {
    // A service without getMyReferrals (older): the token goes back with addParticipant. (A service that
    // refuses the token is share-screen.test.ts's: the widget then forgets it.)
    service.routes['/api/v1/getMyReferrals'] = () => apiError(404, 'not_found');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      answer(participant((body as { email: string }).email), { 'refkit-signup': 'created', 'refkit-participant-token': 'pt_secret' });
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(storage.storedToken('cmp_1')).to.equal('pt_secret');
    expect(calls('addParticipant')[0]!.headers.get('refkit-email-link')).to.equal('send', 'typed: the service may email a link');

    const again = await mount();
    await settled(again, 'signed-up');
    const visit = calls('addParticipant')[1]!;
    expect(visit.headers.get('refkit-participant-token')).to.equal('pt_secret');
    expect(visit.headers.get('refkit-email-link')).to.equal(null, 'a page view never asks for an email');
    expect(text(again, '[part=status]')).to.equal('Welcome back.');
    expect(q(again, '[part=stats]')).to.exist;
  });

  it("sends its language with a sign-up, so the participant's emails are written in it", async () => {
    service.routes['/api/v1/addParticipant'] = (_u, body) => answer(participant((body as { email: string }).email), { 'refkit-signup': 'created' });
    const el = await mount('lang="de"');
    await settled(el, 'ready');
    signUp(el, 'dora@example.com');
    await settled(el, 'signed-up');
    expect(calls('addParticipant')[0]!.headers.get('refkit-locale')).to.equal('de');
    el.remove();
    await import('../../src/widget/i18n.js').then((i18n) => i18n.setLocale('en'));
  });

  it('sends the email-signature attribute with its email, and only with it', async () => {
    const el = await mount('email="gus@example.com" email-signature="abc123"');
    await settled(el, 'signed-up');
    expect(calls('addParticipant')[0]!.headers.get('refkit-email-signature')).to.equal('abc123');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=not-me]')?.click();
    // The signed email is the page's: a visitor typing another address is not vouched for by it.
    const other = await mount('email-signature="abc123"');
    await settled(other, 'ready');
    signUp(other, 'someone@example.com');
    await settled(other, 'signed-up');
    expect(calls('addParticipant').at(-1)!.headers.get('refkit-email-signature')).to.equal(null);
  });

  it('a known email without proof: the link only, no balances, and the truth about the invitation and the email sent', async () => {
    setUrl('?id=cmp_1&referralCode=FRIEND23');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      answer(shared((body as { email: string }).email), { 'refkit-signup': 'existing', 'refkit-email-link': 'sent' });
    const el = await mount();
    await settled(el, 'ready');
    expect(text(el, '[part=invited]')).to.contain('You were invited');
    signUp(el, 'ann@example.com');
    await settled(el, 'signed-up');
    expect(q(el, '[part=stats]')).to.equal(null);
    expect(q<HTMLInputElement>(el, '[part~=link]')!.value).to.contain('THEIRS23');
    const notice = text(el, '[part=notice]');
    expect(notice).to.contain('You had already joined with this email, so this invitation could not be added to it.');
    expect(notice).to.contain('We emailed you a link to see your rewards. Check your inbox.');
    expect(text(el, '[part=status]')).to.not.contain('You are in');
    expect(storage.storedToken('cmp_1')).to.equal(undefined);
  });

  it('a double opt-in sign-up waits in "check your inbox"; "Use another email" goes back to the form', async () => {
    const events: CustomEvent[] = [];
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      answer({ email: (body as { email: string }).email, campaignId: 'cmp_1' }, { 'refkit-signup': 'pending', 'refkit-email-link': 'sent' });
    const el = await mount();
    el.addEventListener('referral-signup', (e) => events.push(e));
    await settled(el, 'ready');
    signUp(el, 'new@example.com');
    await settled(el, 'check-email');
    expect(text(el, '[part=header]')).to.equal('Check your inbox');
    expect(text(el, '[part=description]')).to.contain('new@example.com');
    expect(text(el, '[part=status]')).to.equal('Check your inbox: we sent a confirmation link to new@example.com.');
    expect(events[0]!.detail.outcome).to.equal('pending');
    expect(storage.storedParticipant('cmp_1')).to.equal(undefined, 'nothing to come back to until confirmed');
    q<HTMLButtonElement>(el, '[part~=other-email]')!.click();
    await settled(el, 'ready');
  });

  it('an emailed link is exchanged for the participant and a token, and leaves the address bar', async () => {
    setUrl('?id=cmp_1&refkit_verify=ev_code&utm=mail');
    service.routes['/api/v1/verifyEmail'] = () =>
      answer(participant('ann@example.com'), { 'refkit-signup': 'created', 'refkit-participant-token': 'pt_from_link' });
    const el = await mount();
    await settled(el, 'signed-up');
    expect(calls('verifyEmail')[0]!.body).to.deep.equal({ id: 'cmp_1', token: 'ev_code' });
    expect(location.search).to.equal('?id=cmp_1&utm=mail');
    expect(text(el, '[part=status]')).to.equal('Your email is confirmed. You are in!');
    expect(storage.storedToken('cmp_1')).to.equal('pt_from_link');
    expect(storage.storedParticipant('cmp_1')).to.equal('ann@example.com');
    expect(calls('addParticipant')).to.have.length(0);
  });

  it('a used or expired link says so and offers the form', async () => {
    setUrl('?id=cmp_1&refkit_verify=ev_old');
    service.routes['/api/v1/verifyEmail'] = () => apiError(404, 'link_not_found', 'gone', 'token');
    const el = await mount();
    await settled(el, 'ready');
    expect(text(el, '[part=notice]')).to.equal('That email link has expired or was already used. Enter your email to get a new one.');
  });

  it('"Not you?" gives the token up (signOut) and forgets the visitor', async () => {
    storage.rememberParticipant('cmp_1', 'back@example.com', 'pt_mine');
    service.routes['/api/v1/signOut'] = () => json({ ok: true });
    service.routes['/api/v1/getMyReferrals'] = () => apiError(404, 'not_found');
    const el = await mount();
    await settled(el, 'signed-up');
    q<HTMLButtonElement>(el, '[part=not-me]')!.click();
    await settled(el, 'ready');
    await waitUntil(() => calls('signOut').length === 1);
    expect(calls('signOut')[0]!.headers.get('refkit-participant-token')).to.equal('pt_mine');
    expect(storage.storedToken('cmp_1')).to.equal(undefined);
    expect(storage.storedParticipant('cmp_1')).to.equal(undefined);
  });
});

describe('attribution', () => {
  it('a code is checked once however many elements render it, and not again on a reload that day', async () => {
    setUrl('?id=cmp_1&referralCode=FRIEND23');
    const [a, b] = await Promise.all([mount(), mount()]);
    await Promise.all([settled(a, 'ready'), settled(b, 'ready')]);
    expect(calls('validateCode')).to.have.length(1);
    const reload = await mount();
    await settled(reload, 'ready');
    expect(calls('validateCode')).to.have.length(1);
    expect(text(reload, '[part=invited]')).to.contain('You were invited');
  });

  it('validateOnce asks again on another day, and after a failed check', async () => {
    let asked = 0;
    const validate = async () => (asked++, true);
    const day = Date.UTC(2026, 0, 1);
    expect(await validateOnce('c9', 'CODE2345', validate, day)).to.equal(true);
    expect(await validateOnce('c9', 'CODE2345', validate, day + 1000)).to.equal(true);
    expect(asked).to.equal(1);
    await validateOnce('c9', 'CODE2345', validate, day + 24 * 60 * 60 * 1000);
    expect(asked).to.equal(2);
    let failed = false;
    await validateOnce('c9', 'OTHER234', () => Promise.reject(new Error('offline')), day).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(await validateOnce('c9', 'OTHER234', validate, day)).to.equal(true);
  });

  it('the script captures a share link on a page without an element; getReferralCode hands it to the host', async () => {
    await capturePage('?id=cmp_7&referralCode=LAND2345', API, undefined);
    expect(calls('validateCode')[0]!.url.searchParams.get('campaignId')).to.equal('cmp_7');
    expect(getReferralCode('cmp_7')).to.equal('LAND2345');
    expect(window.refkit?.getReferralCode('cmp_7')).to.equal('LAND2345');
    expect(getReferralCode('cmp_other')).to.equal(undefined);
    // A later page with the element signs up with it.
    const el = await mount();
    el.campaignId = 'cmp_7';
    await waitUntil(() => calls('getCampaign').some((c) => c.url.searchParams.get('id') === 'cmp_7'));
    await settled(el, 'ready');
    signUp(el, 'late@example.com');
    await settled(el, 'signed-up');
    expect((calls('addParticipant')[0]!.body as { referredByCode?: string }).referredByCode).to.equal('LAND2345');
  });

  it('keeps the code when the service cannot be asked, drops one it refuses, keeps a link without a campaign for any', async () => {
    service.routes['/api/v1/validateCode'] = () => {
      throw new TypeError('Failed to fetch');
    };
    await capturePage('?id=cmp_8&referralCode=OFFL2345', API, undefined);
    expect(getReferralCode('cmp_8')).to.equal('OFFL2345');
    service.routes['/api/v1/validateCode'] = () => json(false);
    await capturePage('?id=cmp_9&referralCode=BADC2345', API, undefined);
    expect(getReferralCode('cmp_9')).to.equal(undefined);
    await capturePage('?referralCode=ANYC2345', API, undefined);
    expect(getReferralCode('cmp_anything')).to.equal('ANYC2345');
  });

  it('with a cookie domain the code is also kept in a first-party cookie, read when localStorage has none', async () => {
    // The test page is served from localhost, which is its own cookie domain.
    await capturePage('?id=cmp_c&referralCode=COOK2345', API, location.hostname);
    expect(document.cookie).to.contain('refkit_code_cmp_c=COOK2345');
    localStorage.clear();
    expect(getReferralCode('cmp_c')).to.equal('COOK2345');
    storage.forgetCode('cmp_c', location.hostname);
    expect(getReferralCode('cmp_c')).to.equal(undefined);
  });
});
