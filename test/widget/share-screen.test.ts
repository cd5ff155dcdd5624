/**
 * The signed-up screen and what surrounds it: the participant's own standing (getMyReferrals) in every
 * campaign state, per-channel share messages and currencies (getWidgetSettings), languages and
 * direction, and the setup mistakes a developer is told about. The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { MyReferrals } from '../../src/api/client.js';
import { setLocale } from '../../src/widget/i18n.js';
import { rememberParticipant, storedParticipant, storedToken } from '../../src/widget/storage.js';
import { apiError, campaign, fakeService, json, participant, settings, type FakeService } from './fake-service.js';
import { mount, q, settled, stubNavigator, text } from './helpers.js';

let service: FakeService;
const LINK = 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23';
/** The link as a channel hands it out: tagged with the channel (utm_medium), its own query kept. */
const via = (channel: string) => `${LINK}&utm_source=refkit&utm_medium=${channel}`;
const calls = (path: string) => service.calls.filter((c) => c.path === `/api/v1/${path}`);

const mine = (extra: Partial<MyReferrals> = {}): MyReferrals => {
  const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann', totalReferrals: 3 });
  return {
    participant: self,
    referrals: [
      { name: 'Ben', status: 'qualified', joinedOn: '2026-03-02T10:00:00.000Z' },
      { name: 'c***@example.org', status: 'joined', joinedOn: '2026-03-05T10:00:00.000Z' },
      { name: 'Dee', status: 'in_review', joinedOn: '2026-03-06T10:00:00.000Z' },
    ],
    more: false,
    ...extra,
  };
};

/** A participant who signed up on this browser earlier: remembered, with their token. */
function returning() {
  rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
  service.routes['/api/v1/getMyReferrals'] = () => json(mine());
}

let warnings: string[] = [];
const originalWarn = console.warn;

beforeEach(() => {
  localStorage.clear();
  service = fakeService();
  warnings = [];
  console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
});
afterEach(async () => {
  service.restore();
  console.warn = originalWarn;
  document.documentElement.lang = 'en';
  await setLocale('en');
});

describe('<referral-widget> the participant\'s own standing', () => {
  it('a returning participant with a token sees who they referred, by first name or masked email, with a status', async () => {
    returning();
    const el = await mount();
    await settled(el, 'signed-up');
    const call = calls('getMyReferrals')[0]!;
    expect(call.headers.get('refkit-participant-token')).to.equal('pt_token');
    expect(call.body).to.deep.equal({ id: 'cmp_1' });
    expect(calls('addParticipant')).to.have.length(0);
    const rows = [...el.shadowRoot!.querySelectorAll('[part=referrals] li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(rows).to.deep.equal(['Ben Reward earned Mar 2, 2026', 'c***@example.org Waiting for their first payment Mar 5, 2026', 'Dee Being reviewed Mar 6, 2026']);
    expect(text(el, '[data-stat=referrals]')).to.equal('3');
    expect(text(el, '[data-stat=referral-earned]')).to.equal('$20');
    // A friend joined and has not qualified: the next step is their qualifying.
    expect(text(el, '[part=progress] [data-step=current]')).to.equal('3 They qualify: you get $10 (next step)');
    expect(text(el, '[part=status]')).to.equal('Welcome back.');
  });

  it('says when there are more referrals than listed', async () => {
    returning();
    service.routes['/api/v1/getMyReferrals'] = () => json(mine({ more: true }));
    const el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[part=referrals-more]')).to.equal('…and more.');
  });

  it('the page\'s email signature is the proof for its email', async () => {
    service.routes['/api/v1/getMyReferrals'] = () => json(mine());
    const el = await mount('email="ann@example.com" email-signature="abc123"');
    await settled(el, 'signed-up');
    const call = calls('getMyReferrals')[0]!;
    expect(call.headers.get('refkit-email-signature')).to.equal('abc123');
    expect(call.body).to.deep.equal({ id: 'cmp_1', email: 'ann@example.com' });
  });

  it('a token of another remembered participant is not sent for the email attribute', async () => {
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
    const el = await mount('email="zed@example.com"');
    await settled(el, 'signed-up');
    expect(calls('getMyReferrals')).to.have.length(0);
    expect((calls('addParticipant')[0]!.body as { email: string }).email).to.equal('zed@example.com');
  });

  it('a token the service no longer takes: the browser is signed out, forgets it, and shows the form', async () => {
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_revoked');
    const el = await mount();
    await settled(el, 'ready');
    expect(calls('getMyReferrals')).to.have.length(1);
    expect(calls('addParticipant'), 'the refused token is not sent again').to.have.length(0);
    expect(storedParticipant('cmp_1')).to.equal(undefined);
    expect(storedToken('cmp_1')).to.equal(undefined);
    expect(q(el, 'input[type=email]'), 'the sign-up form').to.not.equal(null);
  });

  it('a refused token with an email the page gives: that email is signed in as a visitor without proof', async () => {
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_revoked');
    service.routes['/api/v1/addParticipant'] = () => json(participant('ann@example.com'), 200, { 'refkit-signup': 'existing' });
    const el = await mount('email="ann@example.com"');
    await settled(el, 'signed-up');
    expect(calls('addParticipant')).to.have.length(1);
    expect(calls('addParticipant')[0]!.headers.get('refkit-participant-token')).to.equal(null);
    // Of an existing participant signed in that way, the list is not known: no empty list is claimed.
    expect(q(el, '[part=referrals]') === null, 'no referrals list').to.equal(true);
  });

  it('paused: the participant keeps their link, referrals and balances, and the state is explained', async () => {
    returning();
    service.routes['/api/v1/getCampaign'] = () => json({ ...campaign, status: 'Pause', paused: true });
    const el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[part=campaign-state]')).to.contain('paused');
    expect(q<HTMLTextAreaElement>(el, '[part~=link]')!.value).to.equal(LINK);
    expect(el.shadowRoot!.querySelectorAll('[part=referrals] li')).to.have.length(3);
    expect(text(el, '[data-stat=referral-earned]')).to.equal('$20');
    expect(text(el, '[part=status]')).to.equal('This referral program is paused.');
    expect(el.shadowRoot!.textContent).to.not.contain('Acme launch');
  });

  it('ended: link, referrals and balances stay; sharing and progress go', async () => {
    returning();
    service.routes['/api/v1/getCampaign'] = () => json({ ...campaign, status: 'End', ended: true });
    const el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[part=campaign-state]')).to.contain('has ended');
    expect(text(el, '[part=header]')).to.equal('Your rewards');
    expect(q(el, '[part=offer]') === null, 'no offer to share for').to.equal(true);
    expect(q<HTMLTextAreaElement>(el, '[part~=link]')!.value).to.equal(LINK);
    expect(el.shadowRoot!.querySelectorAll('[part=referrals] li')).to.have.length(3);
    expect(q(el, '[part=share-links]') === null, 'no share links').to.equal(true);
    expect(q(el, '[part=progress]') === null, 'no progress').to.equal(true);
  });

  it('the whole link is readable: the field grows to the link instead of cutting it', async () => {
    returning();
    const long = `https://www.a-rather-long-shop-domain.example/landing/spring-campaign?id=cmp_1&referralCode=MYCODE23`;
    service.routes['/api/v1/getMyReferrals'] = () => json(mine({ participant: { ...mine().participant, shareLink: long } }));
    const el = await mount();
    el.style.width = '340px';
    await settled(el, 'signed-up');
    const field = q<HTMLTextAreaElement>(el, '[part~=link]')!;
    expect(field.value).to.equal(long);
    expect(field.scrollHeight).to.be.at.most(field.clientHeight + 1);
  });
});

describe('<referral-widget> share messages and currencies', () => {
  it("each channel carries the campaign's own message, with the link in it", async () => {
    returning();
    service.routes['/api/v1/getWidgetSettings'] = () =>
      json({ ...settings, shareMessages: { x: 'Notes that sort themselves {link} #acme', whatsapp: 'Hey! Try Acme:', emailSubject: 'Try Acme', email: 'Hi,\n{link}\nAnn' } });
    const el = await mount();
    await settled(el, 'signed-up');
    const href = (target: string) => new URL(q<HTMLAnchorElement>(el, `[data-target=${target}]`)!.href);
    expect(href('x').searchParams.get('text')).to.equal(`Notes that sort themselves ${via('x')} #acme`);
    expect(href('whatsapp').searchParams.get('text')).to.equal(`Hey! Try Acme: ${via('whatsapp')}`);
    const mail = new URLSearchParams(href('email').search.replaceAll('%20', '+'));
    expect([mail.get('subject'), mail.get('body')]).to.deep.equal(['Try Acme', `Hi,\n${via('email')}\nAnn`]);
  });

  it('amounts are in the campaign currency as the locale writes it, or counted in the reward unit', async () => {
    returning();
    service.routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, rewardCurrency: 'EUR' });
    let el = await mount('lang="de"');
    await settled(el, 'signed-up');
    await waitUntil(() => text(el, '[data-stat=referral-earned]') === '20 €', 'German euros');
    expect(text(el, '[part=offer] [data-offer=referee]')).to.equal('Ihre Freunde erhalten 5 €, sobald sie die Bedingungen erfüllen (zum Beispiel mit einem Kauf).');

    await setLocale('en');
    service.routes['/api/v1/getWidgetSettings'] = () => json({ campaignId: 'cmp_1', rewardUnit: 'points', shareMessages: {} });
    el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[data-stat=referral-earned]')).to.equal('20 points');
  });

  it('an older service without widget settings: the reward type is the unit', async () => {
    service.routes['/api/v1/getWidgetSettings'] = () => apiError(404, 'not_found');
    const el = await mount();
    await settled(el, 'ready');
    expect(el.settings).to.equal(undefined);
    expect(el.campaign?.rewardType).to.equal('credit');
  });
});

describe('<referral-widget> what was earned, what is left, and how to earn', () => {
  it('after a redemption, "Earned for referrals" still reads what was earned, and what is left reads beside it', async () => {
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
    const redeemed = mine();
    redeemed.participant = { ...redeemed.participant, referralReward: 20, referralRewardRedeemed: 20, referralRewardBalance: 0, refereeReward: 5, refereeRewardRedeemed: 2, refereeRewardBalance: 3 };
    service.routes['/api/v1/getMyReferrals'] = () => json(redeemed);
    const rows = (el: HTMLElement) => [...el.shadowRoot!.querySelectorAll('[part=stats] > div')].map((d) => `${d.querySelector('dt')!.textContent} ${d.querySelector('dd')!.textContent}`);
    const el = await mount();
    await settled(el, 'signed-up');
    expect(rows(el)).to.deep.equal(['Friends joined 3', 'Earned for referrals $20', 'Referral rewards left $0', 'Your welcome reward $5', 'Welcome reward left $3']);
    for (const [lang, earned, left] of [
      ['de', 'Verdient durch Empfehlungen', 'Verbleibende Empfehlungsprämien'],
      ['fr', 'Gagné par parrainage', 'Récompenses de parrainage restantes'],
      ['es', '', 'Recompensas por referidos restantes'],
      ['ar', '', 'مكافآت الإحالة المتبقية'],
    ] as const) {
      const other = await mount(`lang="${lang}"`);
      await settled(other, 'signed-up');
      await waitUntil(() => rows(other)[2]?.startsWith(left), `${lang} texts`);
      if (earned) expect(rows(other)[1]).to.contain(earned);
      expect(rows(other)[1]).to.not.contain('Earned for referrals');
    }
  });

  it('nothing redeemed: what is left is what was earned', async () => {
    returning();
    const el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[data-stat=referral-earned]')).to.equal('$20');
    expect(text(el, '[data-stat=referral-balance]')).to.equal('$20');
  });

  it('a referred friend who has not qualified yet reads their welcome reward and how to get it, not a zero', async () => {
    service.routes['/api/v1/addParticipant'] = (_url, body) =>
      json(participant((body as { email: string }).email, { referredByCode: 'ANNCODE1', totalReferrals: 0, referralReward: 0, referralRewardBalance: 0, refereeReward: 0, refereeRewardBalance: 0 }));
    const el = await mount('email="ben@example.com"');
    await settled(el, 'signed-up');
    expect(text(el, '[data-stat=referee-pending]')).to.equal('$5 when you qualify (for example, with a purchase)');
    expect(q(el, '[data-stat=referee-earned]')).to.equal(null);
    expect(text(el, '[part=stats]')).to.not.match(/welcome reward\s*\$0/);
    const german = await mount('email="ben@example.com" lang="de"');
    await settled(german, 'signed-up');
    await waitUntil(() => text(german, '[data-stat=referee-pending]') === '5 $, sobald Sie die Bedingungen erfüllen (zum Beispiel mit einem Kauf)', 'German');
  });

  it('the offer says friends get their reward when they qualify, not when they join', async () => {
    returning();
    const el = await mount();
    await settled(el, 'signed-up');
    expect(text(el, '[part=offer] [data-offer=referee]')).to.equal('Your friends get $5 when they qualify (for example, with a purchase).');
    expect(el.shadowRoot!.textContent).to.not.contain('when they join');
  });
});

describe('<referral-widget> the steps toward a reward', () => {
  const newParticipant = async () => {
    service.routes['/api/v1/getMyReferrals'] = () => json({ ...mine(), referrals: [] });
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
    const el = await mount();
    await settled(el, 'signed-up');
    return el;
  };
  const current = (el: HTMLElement & { shadowRoot: ShadowRoot | null }) => el.shadowRoot!.querySelector('[part=progress] [data-step=current]')?.textContent?.replace(/\s+/g, ' ').trim();

  it('"Share your link" is the next step until the link is copied', async () => {
    const el = await newParticipant();
    expect(current(el)).to.equal('1 Share your link (next step)');
    expect(el.shadowRoot!.querySelectorAll('[part=progress] [data-step=done]')).to.have.length(0);
    const undo = stubNavigator('clipboard', { writeText: async () => {} });
    try {
      q<HTMLButtonElement>(el, '[part~=copy]')!.click();
      await waitUntil(() => current(el) === '2 A friend signs up (next step)', 'the share step ticked');
    } finally {
      undo();
    }
  });

  it('a copy the clipboard refused does not tick it; following a share link does', async () => {
    const el = await newParticipant();
    const undo = stubNavigator('clipboard', { writeText: async () => Promise.reject(new Error('denied')) });
    try {
      q<HTMLButtonElement>(el, '[part~=copy]')!.click();
      await waitUntil(() => text(el, '[part=status]').includes('Ctrl+C'), 'selected instead');
      expect(current(el)).to.equal('1 Share your link (next step)');
    } finally {
      undo();
    }
    const link = q<HTMLAnchorElement>(el, '[data-target=email]')!;
    // Only the click: the mail app it would open is not part of the test.
    link.addEventListener('click', (e) => e.preventDefault());
    link.click();
    await waitUntil(() => current(el) === '2 A friend signs up (next step)', 'the share step ticked');
  });

  it('a native share ticks it; one the visitor closed does not', async () => {
    let answer: () => Promise<void> = async () => Promise.reject(new DOMException('closed', 'AbortError'));
    const undo = stubNavigator('share', (() => answer()) as unknown);
    try {
      const el = await newParticipant();
      q<HTMLButtonElement>(el, '[part~=native-share]')!.click();
      await new Promise((r) => setTimeout(r));
      await el.updateComplete;
      expect(current(el)).to.equal('1 Share your link (next step)');
      answer = async () => {};
      q<HTMLButtonElement>(el, '[part~=native-share]')!.click();
      await waitUntil(() => current(el) === '2 A friend signs up (next step)', 'the share step ticked');
    } finally {
      undo();
    }
  });

  it('friends who came through the link mean it was shared', async () => {
    returning();
    const el = await mount();
    await settled(el, 'signed-up');
    expect(el.shadowRoot!.querySelectorAll('[part=progress] [data-step=done]')).to.have.length(2);
  });
});

describe('<referral-widget> languages', () => {
  it("speaks the element's lang, with dates and numbers of that locale", async () => {
    returning();
    const el = await mount('lang="fr"');
    await settled(el, 'signed-up');
    await waitUntil(() => text(el, '[part=referrals] h3') === 'Amis que vous avez invités', 'French texts');
    expect(text(el, '[data-stat=referral-earned]')).to.equal('20 $US');
    expect(text(el, '[part=referrals] time')).to.equal('2 mars 2026');
    expect(q(el, '[part=card]')!.getAttribute('lang')).to.equal('fr');
  });

  it("falls back to the page's lang; Spanish texts; an unsupported language reads English", async () => {
    document.documentElement.lang = 'es-MX';
    let el = await mount();
    await settled(el, 'ready');
    await waitUntil(() => text(el, '[part~=submit]') === 'Obtener mi enlace de referido', 'Spanish texts');
    expect(text(el, 'label')).to.equal('Correo electrónico');

    document.documentElement.lang = 'pt';
    el = await mount();
    await settled(el, 'ready');
    await waitUntil(() => text(el, '[part~=submit]') === 'Get my referral link', 'English texts');
  });

  it('Arabic is laid out right to left; the link stays left to right', async () => {
    returning();
    const el = await mount('lang="ar"');
    await settled(el, 'signed-up');
    await waitUntil(() => q(el, '[part=card]')!.getAttribute('dir') === 'rtl', 'right to left');
    expect(text(el, '[part=referrals] h3')).to.equal('الأصدقاء الذين دعوتهم');
    expect(getComputedStyle(q(el, '[part=card]')!).direction).to.equal('rtl');
    expect(getComputedStyle(q(el, '[part~=link]')!).direction).to.equal('ltr');
    // The first share button sits at the right edge.
    const card = q(el, '[part=card]')!.getBoundingClientRect();
    const first = q(el, '[data-target=email]')!.getBoundingClientRect();
    expect(card.right - first.right).to.be.below(card.width / 3);
  });

  it('German sign-up form, with overridable texts still winning', async () => {
    const el = await mount('lang="de" copy-label="Link kopieren" submit-label="Los geht\'s"');
    await settled(el, 'ready');
    await waitUntil(() => text(el, 'label') === 'E-Mail-Adresse', 'German label');
    expect(text(el, '[part~=submit]')).to.equal("Los geht's");
  });
});

describe('<referral-widget> setup mistakes', () => {
  it('a missing campaign-id warns in the console, naming the attribute, instead of loading forever', async () => {
    const el = await mount('', { apiBase: true, campaignId: false });
    await settled(el, 'not-found');
    await waitUntil(() => /campaign-id attribute is missing/.test(warnings.join('\n')), 'console warning');
    expect(service.calls).to.have.length(0);
  });

  it('a campaign-id changed to an unknown one shows no texts of the previous campaign', async () => {
    const el = await mount();
    await settled(el, 'ready');
    service.routes['/api/v1/getCampaign'] = () => apiError(404, 'campaign_not_found');
    el.campaignId = 'cmp_typo';
    await settled(el, 'not-found');
    expect(text(el, '[part=header]')).to.equal('Referral program');
  });

  it('an unknown campaign id: "could not be found", and the console names campaign-id and the id', async () => {
    service.routes['/api/v1/getCampaign'] = () => apiError(404, 'campaign_not_found');
    const el = await mount();
    await settled(el, 'not-found');
    expect(text(el, '[part=status]')).to.equal('This referral program could not be found.');
    await waitUntil(() => /no campaign has the id "cmp_1" \(the campaign-id attribute\)/.test(warnings.join('\n')), 'console warning');
  });

  it("a page origin the campaign does not allow: visitors read so, the console says how to add it to the origins allowed", async () => {
    service.routes['/api/v1/getCampaign'] = () => apiError(403, 'forbidden_origin');
    const el = await mount();
    await settled(el, 'not-allowed');
    expect(text(el, '[part=status]')).to.equal('This site is not allowed to use this referral program.');
    expect(q(el, '[part~=retry]') === null, 'no retry').to.equal(true);
    await waitUntil(() => warnings.join('\n').includes(`--add-allowed-origin ${location.origin}`), 'console warning');
  });
});

describe('<referral-widget> touch, focus and dark pages', () => {
  it('every control is at least 44 px tall on a phone-sized widget', async () => {
    returning();
    const el = await mount();
    el.style.width = '350px';
    await settled(el, 'signed-up');
    const controls = [...el.shadowRoot!.querySelectorAll<HTMLElement>('button, a, input, textarea')];
    expect(controls.length).to.be.above(6);
    for (const c of controls) expect(c.getBoundingClientRect().height, c.getAttribute('part') ?? c.tagName).to.be.at.least(44);
  });

  it('the focus ring is the accent (3:1 on the card by default), and inputs take the page theme', async () => {
    const el = await mount();
    el.style.setProperty('--referral-widget-input-background', 'rgb(17, 24, 39)');
    el.style.setProperty('--referral-widget-input-text', 'rgb(243, 244, 246)');
    await settled(el, 'ready');
    const input = q<HTMLInputElement>(el, 'input[name=email]')!;
    expect(getComputedStyle(input).backgroundColor).to.equal('rgb(17, 24, 39)');
    expect(getComputedStyle(input).color).to.equal('rgb(243, 244, 246)');
    input.focus();
    // Keyboard focus (focus-visible) on an input: a solid 3 px ring in the accent #4f46e5 (6.3:1 on white).
    const style = getComputedStyle(input);
    expect([style.outlineStyle, style.outlineWidth, style.outlineColor]).to.deep.equal(['solid', '3px', 'rgb(79, 70, 229)']);
  });
});
