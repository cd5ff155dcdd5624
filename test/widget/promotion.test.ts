/**
 * The friend's reward at checkout, in the widget: the referrer's discount shown before the friend signs
 * up (public getPromotionCode, asked once per page and only with a captured code), the page's
 * window.refkit.getPromotionCode, `referrerPromotionCode` on referral-signup, and the participant's own
 * promotion code on the share view with its copy button. The service is faked.
 */
import { expect, oneEvent, waitUntil } from '@open-wc/testing';
import type { MyReferrals } from '../../src/api/client.js';
import type { PromotionCodeOffer } from '../../src/api/promotion-schemas.js';
import { capturePage } from '../../src/widget/attribution.js';
import { getPromotionCode, ReferralWidget } from '../../src/widget/index.js';
import { setLocale } from '../../src/widget/i18n.js';
import { rememberCode, rememberParticipant } from '../../src/widget/storage.js';
import { apiError, campaign, deferred, fakeService, json, noAnswer, participant, type FakeService } from './fake-service.js';
import { API, mount, q, setUrl, settled, signUp, stubNavigator, text } from './helpers.js';

let service: FakeService;
const calls = (path: string) => service.calls.filter((c) => c.path === `/api/v1/${path}`);
const defaultWait = ReferralWidget.promotionWaitMs;

/** getPromotionCode's answer for the referrer ANN (percent off, once, unless `extra` says otherwise). */
const offer = (extra: Partial<PromotionCodeOffer> = {}): PromotionCodeOffer => ({ code: 'ANN123', id: 'promo_ann', percentOff: 15, currency: 'USD', duration: 'once', ...extra });

/** The service answers getPromotionCode with `answer` for every code. */
const offering = (answer: PromotionCodeOffer) => (service.routes['/api/v1/getPromotionCode'] = () => json(answer));
const noDiscount = () => (service.routes['/api/v1/getPromotionCode'] = () => apiError(404, 'promotion_code_not_found', 'No promotion code', 'code'));

/** The widget, mounted on a share link with `code` (each test its own code: offers are kept for the page). */
async function arrivedWith(code: string, attrs = '') {
  setUrl(`?id=cmp_1&referralCode=${code}`);
  const el = await mount(attrs);
  await settled(el, 'ready');
  return el;
}

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
});
afterEach(async () => {
  service.restore();
  ReferralWidget.promotionWaitMs = defaultWait;
  await setLocale('en');
});

describe("<referral-widget> the friend's discount before they pay", () => {
  it("arrived with a code: shows the referrer's discount and promotion code, asking once", async () => {
    offering(offer());
    const el = await arrivedWith('DISC0001');
    await waitUntil(() => q(el, '[part=discount]'), 'the discount');
    expect(text(el, '[part=discount]')).to.equal('15% off your first payment with code ANN123.');
    expect(q(el, '[part=discount] code')!.getAttribute('dir')).to.equal('ltr');
    expect(text(el, '[part=invited]')).to.equal('You were invited. Your reward: $5.');
    const [call, ...more] = calls('getPromotionCode');
    expect(more).to.have.length(0);
    expect(call!.url.origin).to.equal(API);
    expect(Object.fromEntries(call!.url.searchParams)).to.deep.equal({ campaignId: 'cmp_1', code: 'DISC0001' });
  });

  for (const [code, answer, sentence] of [
    ['DISC0002', offer({ percentOff: undefined, amountOff: '10.00' }), '$10 off your first payment with code ANN123.'],
    ['DISC0003', offer({ percentOff: undefined, amountOff: '10.50' }), '$10.50 off your first payment with code ANN123.'],
    ['DISC0004', offer({ percentOff: 12.5, duration: 'repeating', durationInMonths: 3 }), '12.5% off your payments for the first 3 months with code ANN123.'],
    ['DISC0005', offer({ duration: 'repeating', durationInMonths: 1 }), '15% off your payments for the first month with code ANN123.'],
    ['DISC0006', offer({ percentOff: undefined, amountOff: '20.00', currency: 'EUR', duration: 'forever' }), '€20 off every payment with code ANN123.'],
  ] as const) {
    it(`says "${sentence}"`, async () => {
      offering(answer);
      const el = await arrivedWith(code);
      await waitUntil(() => text(el, '[part=discount]') === sentence, `"${sentence}", not "${text(el, '[part=discount]')}"`);
    });
  }

  it('no discount (404) shows nothing, and is no error', async () => {
    noDiscount();
    let errors = 0;
    const count = () => errors++;
    document.addEventListener('referral-error', count);
    try {
      const el = await arrivedWith('NODISC01');
      await waitUntil(() => calls('getPromotionCode').length === 1);
      await new Promise((r) => setTimeout(r, 20));
      expect(q(el, '[part=discount]')).to.equal(null);
      expect(el.state).to.equal('ready');
      expect(errors).to.equal(0);
      expect(text(el, '[part=invited]')).to.equal('You were invited. Your reward: $5.');
    } finally {
      document.removeEventListener('referral-error', count);
    }
  });

  it('no answer shows nothing either, and the form works', async () => {
    service.routes['/api/v1/getPromotionCode'] = noAnswer;
    const el = await arrivedWith('DOWN0001');
    await waitUntil(() => calls('getPromotionCode').length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(q(el, '[part=discount]')).to.equal(null);
    expect(el.state).to.equal('ready');
  });

  it('is not asked without a captured code, nor for a code the service refused', async () => {
    offering(offer());
    let el = await mount();
    await settled(el, 'ready');
    service.routes['/api/v1/validateCode'] = () => json(false);
    el = await arrivedWith('BADC0001');
    expect(q(el, '[part~=invalid-code]')).to.not.equal(null);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls('getPromotionCode')).to.have.length(0);
    expect(q(el, '[part=discount]')).to.equal(null);
  });

  it('is asked for a code kept from an earlier page', async () => {
    offering(offer());
    rememberCode('cmp_1', 'KEPT0001');
    const el = await mount();
    await settled(el, 'ready');
    await waitUntil(() => q(el, '[part=discount]'));
    expect(calls('getPromotionCode')[0]!.url.searchParams.get('code')).to.equal('KEPT0001');
  });

  it('one request per page: two elements and window.refkit share the answer', async () => {
    offering(offer());
    setUrl('?id=cmp_1&referralCode=ONCE0001');
    const [a, b] = [await mount(), await mount()];
    await Promise.all([settled(a, 'ready'), settled(b, 'ready')]);
    await waitUntil(() => q(a, '[part=discount]') && q(b, '[part=discount]'));
    expect(await window.refkit!.getPromotionCode('cmp_1', API)).to.deep.equal({ code: 'ANN123', id: 'promo_ann' });
    expect(calls('getPromotionCode')).to.have.length(1);
  });

  for (const lang of ['de', 'fr', 'es', 'ar'] as const) {
    const expected = {
      de: (off: string, n: string) => `${off} Rabatt auf Ihre Zahlungen in den ersten ${n} Monaten mit dem Code ANN123.`,
      fr: (off: string, n: string) => `${off} de réduction sur vos paiements des ${n} premiers mois avec le code ANN123.`,
      es: (off: string, n: string) => `${off} de descuento en tus pagos de los primeros ${n} meses con el código ANN123.`,
      ar: (off: string, n: string) => `خصم ${off} على دفعاتك في أول ${n} من الأشهر باستخدام الرمز ANN123.`,
    }[lang];
    it(`in ${lang}: the discount in the language, with its percent and count as the language writes them`, async () => {
      offering(offer({ duration: 'repeating', durationInMonths: 3 }));
      const el = await arrivedWith(`LANG${lang.toUpperCase()}01`, `lang="${lang}"`);
      const off = new Intl.NumberFormat(lang, { style: 'percent' }).format(0.15);
      const sentence = expected(off, new Intl.NumberFormat(lang).format(3)).replace(/\s+/g, ' ');
      await waitUntil(() => text(el, '[part=discount]') === sentence, `${lang}: "${text(el, '[part=discount]')}"`);
    });
  }

  it('in German, an amount in the currency as German writes it, and the first payment only', async () => {
    offering(offer({ percentOff: undefined, amountOff: '10.00', currency: 'EUR' }));
    const el = await arrivedWith('LANGDE02', 'lang="de"');
    const amount = new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(10).replace(/\s+/g, ' ');
    await waitUntil(() => text(el, '[part=discount]') === `${amount} Rabatt auf Ihre erste Zahlung mit dem Code ANN123.`, text(el, '[part=discount]'));
  });
});

describe('window.refkit.getPromotionCode', () => {
  it('is the exported getPromotionCode', () => {
    expect(window.refkit?.getPromotionCode).to.equal(getPromotionCode);
  });

  it('null, without asking, when no code was captured', async () => {
    offering(offer());
    expect(await window.refkit!.getPromotionCode('cmp_1')).to.equal(null);
    expect(calls('getPromotionCode')).to.have.length(0);
  });

  it("the captured code's promotion code as {code, id}, asked once however often it is called", async () => {
    offering(offer({ percentOff: undefined, amountOff: '10.00' }));
    rememberCode('cmp_1', 'PAGE0001');
    const first = await window.refkit!.getPromotionCode('cmp_1');
    expect(first).to.deep.equal({ code: 'ANN123', id: 'promo_ann' });
    expect(await window.refkit!.getPromotionCode('cmp_1')).to.deep.equal(first);
    expect(calls('getPromotionCode')).to.have.length(1);
    // The page's own service by default: the script's origin (the test page's).
    expect(calls('getPromotionCode')[0]!.url.origin).to.equal(location.origin);
    expect(calls('getPromotionCode')[0]!.url.searchParams.get('code')).to.equal('PAGE0001');
  });

  it('null when the service has none (404)', async () => {
    noDiscount();
    rememberCode('cmp_1', 'PAGE0002');
    expect(await window.refkit!.getPromotionCode('cmp_1')).to.equal(null);
  });

  it('rejects when no answer came, and asks again on the next call', async () => {
    service.routes['/api/v1/getPromotionCode'] = noAnswer;
    rememberCode('cmp_1', 'PAGE0003');
    const failure = await window.refkit!.getPromotionCode('cmp_1').then(
      () => undefined,
      (err: unknown) => err as { code?: string; status?: number },
    );
    expect(failure).to.include({ code: 'network_error', status: 0 });
    offering(offer());
    expect(await window.refkit!.getPromotionCode('cmp_1')).to.deep.equal({ code: 'ANN123', id: 'promo_ann' });
    expect(calls('getPromotionCode')).to.have.length(2);
  });

  it("waits for the page's own capture of the share link it was opened with", async () => {
    offering(offer());
    const verdict = deferred<Response>();
    service.routes['/api/v1/validateCode'] = () => verdict.promise;
    const capture = capturePage('?id=cmp_p&referralCode=LAND0001', API, undefined);
    const promo = window.refkit!.getPromotionCode('cmp_p');
    await new Promise((r) => setTimeout(r, 10));
    expect(calls('getPromotionCode'), 'not before the code is known').to.have.length(0);
    verdict.resolve(json(true));
    await capture;
    expect(await promo).to.deep.equal({ code: 'ANN123', id: 'promo_ann' });
    expect(calls('getPromotionCode')[0]!.url.searchParams.get('code')).to.equal('LAND0001');
  });
});

describe('referral-signup: referrerPromotionCode', () => {
  it("carries the captured referrer's promotion code, the rest of the detail unchanged", async () => {
    offering(offer());
    const el = await arrivedWith('SIGN0001');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'ben@example.com');
    const { detail } = await signup;
    expect(detail).to.deep.equal({ participant: participant('ben@example.com'), outcome: 'created', referrerPromotionCode: { code: 'ANN123', id: 'promo_ann' } });
    await settled(el, 'signed-up');
    expect(calls('getPromotionCode')).to.have.length(1);
  });

  it('null without a captured code, without asking', async () => {
    offering(offer());
    const el = await mount();
    await settled(el, 'ready');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'cy@example.com');
    expect((await signup).detail.referrerPromotionCode).to.equal(null);
    expect(calls('getPromotionCode')).to.have.length(0);
  });

  it('null when the referrer has none (404)', async () => {
    noDiscount();
    const el = await arrivedWith('SIGN0002');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'dee@example.com');
    expect((await signup).detail.referrerPromotionCode).to.equal(null);
  });

  it('null when the service refused the code at sign-up (the referrer is gone)', async () => {
    offering(offer());
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { referredByCode?: string }).referredByCode ? apiError(404, 'referrer_not_found', 'gone', 'referredByCode') : json(participant('eve@example.com'));
    const el = await arrivedWith('SIGN0003');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'eve@example.com');
    expect((await signup).detail.referrerPromotionCode).to.equal(null);
  });

  it('null when the promotion code is not read in time; the sign-up does not wait longer', async () => {
    ReferralWidget.promotionWaitMs = 30;
    const never = deferred<Response>();
    service.routes['/api/v1/getPromotionCode'] = () => never.promise;
    const el = await arrivedWith('SIGN0004');
    const signup = oneEvent(el, 'referral-signup');
    signUp(el, 'fay@example.com');
    expect((await signup).detail.referrerPromotionCode).to.equal(null);
    await settled(el, 'signed-up');
    expect(q(el, '[part=discount]')).to.equal(null);
  });

  it('on a followed email link too, for the code captured on this browser', async () => {
    offering(offer());
    rememberCode('cmp_1', 'SIGN0005');
    setUrl('?id=cmp_1&refkit_verify=ev_code');
    service.routes['/api/v1/verifyEmail'] = () => json(participant('gus@example.com'), 200, { 'refkit-signup': 'created' });
    const signup = oneEvent(document, 'referral-signup');
    const el = await mount();
    expect((await signup).detail).to.deep.equal({ participant: participant('gus@example.com'), outcome: 'created', referrerPromotionCode: { code: 'ANN123', id: 'promo_ann' } });
    await settled(el, 'signed-up');
  });
});

describe("the share view: the participant's own promotion code", () => {
  const own = (extra: Partial<MyReferrals> = {}): MyReferrals => {
    const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann', totalReferrals: 0 });
    return { participant: self, referrals: [], more: false, promotionCode: { code: 'ANN-MYCODE23', id: 'promo_mine' }, ...extra };
  };
  async function shown(mine: MyReferrals, attrs = '') {
    rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
    service.routes['/api/v1/getMyReferrals'] = () => json(mine);
    const el = await mount(attrs);
    await settled(el, 'signed-up');
    return el;
  }
  const copyButton = (el: ReferralWidget) => q<HTMLButtonElement>(el, '[part~=copy-promotion-code]')!;

  it('"Your code for friends at checkout: CODE" with a copy button named for it, under the link', async () => {
    const el = await shown(own());
    expect(text(el, '[part=promotion] > span:first-child')).to.equal('Your code for friends at checkout:');
    expect(text(el, '[part=promotion-code]')).to.equal('ANN-MYCODE23');
    expect(q(el, '[part=promotion-code]')!.getAttribute('dir')).to.equal('ltr');
    expect(q(el, '[part=link-box] [part=promotion]')).to.not.equal(null);
    expect(copyButton(el).getAttribute('aria-label')).to.equal('Copy the code ANN-MYCODE23');
    expect(copyButton(el).getAttribute('part')).to.equal('button copy-promotion-code');
    expect(text(el, '[part~=copy-promotion-code]')).to.equal('Copy');
  });

  it('copies it and says so at its button; copying it is sharing; selects it where the clipboard is refused', async () => {
    let copied = '';
    let undo = stubNavigator('clipboard', { writeText: async (t: string) => void (copied = t) });
    try {
      const el = await shown(own());
      expect(text(el, '[part=progress] [data-step=current]')).to.equal('1 Share your link (next step)');
      copyButton(el).click();
      await waitUntil(() => text(el, '[part=status]') === 'Code copied.');
      expect(copied).to.equal('ANN-MYCODE23');
      expect(copyButton(el).hasAttribute('data-copied')).to.equal(true);
      expect(text(el, '[part~=copy-promotion-code]')).to.equal('Copied!');
      expect(q(el, '[part~=copy]')!.hasAttribute('data-copied'), "the link's button").to.equal(false);
      expect(text(el, '[part=progress] [data-step=done]')).to.equal('Share your link (done)');
      undo();
      undo = stubNavigator('clipboard', { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) });
      copyButton(el).click();
      await waitUntil(() => text(el, '[part=status]').includes('Ctrl+C'));
      const root = el.shadowRoot as ShadowRoot & { getSelection(): Selection | null };
      expect(root.getSelection()?.toString()).to.equal('ANN-MYCODE23');
    } finally {
      undo();
    }
  });

  it('absent until the code is made, and for a visitor without proof', async () => {
    const { promotionCode: _, ...none } = own();
    let el = await shown(none);
    expect(q(el, '[part=promotion]')).to.equal(null);
    localStorage.clear();
    el = await mount('email="ann@example.com"');
    await settled(el, 'signed-up');
    expect(q(el, '[part=promotion]')).to.equal(null);
  });

  it('not shown once the campaign has ended (nothing left to share for)', async () => {
    service.routes['/api/v1/getCampaign'] = () => json({ ...campaign, status: 'End', ended: true });
    const el = await shown(own());
    expect(q(el, '[part=promotion]')).to.equal(null);
  });

  for (const [lang, label, name] of [
    ['de', 'Ihr Code für Freunde an der Kasse:', 'Code ANN-MYCODE23 kopieren'],
    ['fr', 'Votre code pour vos amis, au moment du paiement :', 'Copier le code ANN-MYCODE23'],
    ['es', 'Tu código para amigos al pagar:', 'Copiar el código ANN-MYCODE23'],
    ['ar', 'رمزك لأصدقائك عند الدفع:', 'نسخ الرمز ANN-MYCODE23'],
  ]) {
    it(`in ${lang}: the label and the copy button's name`, async () => {
      const el = await shown(own(), `lang="${lang}"`);
      await waitUntil(() => text(el, '[part=promotion] > span:first-child') === label, `${lang}: ${text(el, '[part=promotion] > span:first-child')}`);
      expect(copyButton(el).getAttribute('aria-label')).to.equal(name);
    });
  }
});
