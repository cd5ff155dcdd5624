/**
 * Channels: every link the share view hands out says how it went (`utm_source=refkit&utm_medium=<channel>`,
 * the link's own query kept), and the friend's side keeps the landing link's utm_* with the referral
 * code (same storage, same 90 days) and sends them with the sign-up as `utm`. The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { capturePage } from '../../src/widget/attribution.js';
import { captureCode, utmFromUrl } from '../../src/widget/code-capture.js';
import { qrSvg } from '../../src/widget/qr.js';
import { tagLink } from '../../src/widget/share-links.js';
import * as storage from '../../src/widget/storage.js';
import { apiError, fakeService, json, participant, type FakeService } from './fake-service.js';
import { mount, q, setUrl, settled, signUp, stubNavigator } from './helpers.js';

let service: FakeService;
const LINK = 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23';
const calls = (path: string) => service.calls.filter((c) => c.path === `/api/v1/${path}`);
const addBodies = () => calls('addParticipant').map((c) => c.body as Record<string, unknown>);

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
});
afterEach(() => service.restore());

describe('share links are tagged with their channel', () => {
  it('tagLink adds utm_source=refkit and utm_medium, keeping the query and fragment, replacing an earlier tag', () => {
    expect(tagLink('https://shop.example/join?id=c1&referralCode=AB&lang=de#plans', 'email')).to.equal(
      'https://shop.example/join?id=c1&referralCode=AB&lang=de&utm_source=refkit&utm_medium=email#plans',
    );
    expect(tagLink('https://shop.example/?utm_source=news&utm_campaign=spring&referralCode=AB', 'qr')).to.equal(
      'https://shop.example/?utm_source=refkit&utm_campaign=spring&referralCode=AB&utm_medium=qr',
    );
    expect(tagLink('', 'copy')).to.equal('');
  });

  it('each share button, the copy button and the QR code carry their own channel', async () => {
    let copied = '';
    const undo = stubNavigator('clipboard', { writeText: async (t: string) => void (copied = t) });
    try {
      const el = await mount('email="ann@example.com"');
      await settled(el, 'signed-up');
      const linkOf = (target: string): URL => {
        const href = new URL(q<HTMLAnchorElement>(el, `[data-target=${target}]`)!.href);
        if (target === 'facebook') return new URL(href.searchParams.get('u')!);
        if (target === 'linkedin') return new URL(href.searchParams.get('url')!);
        const text = target === 'email' ? new URLSearchParams(href.search.replaceAll('%20', '+')).get('body')! : href.searchParams.get('text')!;
        return new URL(/https:\S+/.exec(text)![0]);
      };
      for (const target of ['email', 'whatsapp', 'x', 'facebook', 'linkedin']) {
        const link = linkOf(target);
        expect(Object.fromEntries(link.searchParams), target).to.deep.equal({ id: 'cmp_1', referralCode: 'MYCODE23', utm_source: 'refkit', utm_medium: target });
        expect(link.origin + link.pathname).to.equal('https://acme.example/join');
      }
      q<HTMLButtonElement>(el, '[part~=copy]')!.click();
      await waitUntil(() => copied);
      expect(copied).to.equal(`${LINK}&utm_source=refkit&utm_medium=copy`);
      // The QR code is the link tagged qr (the same drawing qrcode makes of it), not the plain link.
      await waitUntil(() => el.qr);
      expect(el.qr).to.equal(await qrSvg(`${LINK}&utm_source=refkit&utm_medium=qr`));
      expect(el.qr).to.not.equal(await qrSvg(LINK));
    } finally {
      undo();
    }
  });
});

describe("the landing link's utm_*, kept with the code and sent with the sign-up", () => {
  it('are kept with the code, and a visitor who browses to another page signs up with them', async () => {
    setUrl('?id=cmp_1&referralCode=FRIEND23&utm_source=refkit&utm_medium=whatsapp&utm_campaign=spring&other=1');
    let el = await mount();
    await settled(el, 'ready');
    expect(JSON.parse(localStorage.getItem('refkit:cmp_1:code')!)).to.deep.include({
      code: 'FRIEND23',
      utm: { source: 'refkit', medium: 'whatsapp', campaign: 'spring' },
    });
    // Another page of the site, without the link's parameters.
    setUrl('');
    el = await mount();
    await settled(el, 'ready');
    signUp(el, 'ben@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([
      { id: 'cmp_1', email: 'ben@example.com', referredByCode: 'FRIEND23', utm: { source: 'refkit', medium: 'whatsapp', campaign: 'spring' } },
    ]);
    // Used with the code: both are forgotten.
    expect(localStorage.getItem('refkit:cmp_1:code')).to.equal(null);
  });

  it('values are trimmed, cut to 200 characters (never inside one) and rid of control characters; empty ones are left out', () => {
    expect(storage.cleanUtmValue('  news letter \n')).to.equal('news letter');
    expect(storage.cleanUtmValue('a\u0007b\u202Ec\u200Bd\u2028e\u0000f')).to.equal('abcdef');
    expect(storage.cleanUtmValue('x'.repeat(250))).to.equal('x'.repeat(200));
    const emoji = storage.cleanUtmValue(`${'a'.repeat(199)}😀b`);
    expect([...emoji]).to.have.length(200);
    expect(emoji.endsWith('😀')).to.equal(true);
    expect(storage.cleanUtmValue(' \t ')).to.equal('');
    expect(utmFromUrl(`?utm_source=%20refkit%20&utm_medium=e%07mail&utm_term=&utm_content=%20%20&utm_foo=bar&utm_campaign=${'c'.repeat(300)}`)).to.deep.equal({
      source: 'refkit',
      medium: 'email',
      campaign: 'c'.repeat(200),
    });
    expect(utmFromUrl('?id=c1&referralCode=AB')).to.equal(undefined);
  });

  it('the sign-up sends them cleaned, and no `utm` at all when the link had none', async () => {
    setUrl(`?id=cmp_1&referralCode=FRIEND23&utm_source=%20refkit%20&utm_medium=x&utm_term=&utm_content=${'z'.repeat(230)}`);
    let el = await mount();
    await settled(el, 'ready');
    signUp(el, 'cy@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()[0]!.utm).to.deep.equal({ source: 'refkit', medium: 'x', content: 'z'.repeat(200) });

    localStorage.clear();
    service.calls.length = 0;
    setUrl('?id=cmp_1&referralCode=FRIEND23');
    el = await mount();
    await settled(el, 'ready');
    signUp(el, 'dee@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()[0]).to.not.have.property('utm');
  });

  it("a later link's code comes with its own utm (or none), replacing the earlier ones", async () => {
    setUrl('?id=cmp_1&referralCode=FIRST234&utm_source=refkit&utm_medium=email');
    await settled(await mount(), 'ready');
    setUrl('?id=cmp_1&referralCode=SECOND23');
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'eve@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'eve@example.com', referredByCode: 'SECOND23' }]);
  });

  it('last as long as the code: 90 days', async () => {
    storage.rememberCode('cmp_1', 'OLD23456', Date.now() - storage.CODE_TTL_MS - 1000, undefined, { source: 'refkit', medium: 'qr' });
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'fay@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'fay@example.com' }]);
  });

  it('stay with the sign-up when the service refuses the code', async () => {
    setUrl('?id=cmp_1&referralCode=GONE2345&utm_source=refkit&utm_medium=linkedin');
    service.routes['/api/v1/addParticipant'] = (_u, body) =>
      (body as { referredByCode?: string }).referredByCode ? apiError(404, 'referrer_not_found', 'gone', 'referredByCode') : json(participant('gus@example.com'));
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'gus@example.com');
    await settled(el, 'signed-up');
    const utm = { source: 'refkit', medium: 'linkedin' };
    expect(addBodies()).to.deep.equal([
      { id: 'cmp_1', email: 'gus@example.com', referredByCode: 'GONE2345', utm },
      { id: 'cmp_1', email: 'gus@example.com', utm },
    ]);
  });

  it('without a code, the sign-up page\'s own utm_* are sent', async () => {
    setUrl('?utm_source=newsletter&utm_medium=email');
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'hal@example.com');
    await settled(el, 'signed-up');
    expect(addBodies()).to.deep.equal([{ id: 'cmp_1', email: 'hal@example.com', utm: { source: 'newsletter', medium: 'email' } }]);
  });

  it('the page-level capture keeps them too, for a link with or without a campaign', async () => {
    await capturePage('?id=cmp_7&referralCode=LAND2345&utm_source=refkit&utm_medium=qr', 'https://refkit.test', undefined);
    expect(storage.storedCodeAndUtm('cmp_7')).to.deep.equal({ code: 'LAND2345', utm: { source: 'refkit', medium: 'qr' } });
    await capturePage('?referralCode=ANYC2345&utm_medium=x', 'https://refkit.test', undefined);
    expect(storage.storedCodeAndUtm(storage.ANY_CAMPAIGN)).to.deep.equal({ code: 'ANYC2345', utm: { medium: 'x' } });
    expect(await captureCode('cmp_other', '', async () => true)).to.deep.equal({ code: 'ANYC2345', utm: { medium: 'x' } });
  });

  it('with a cookie domain, they are kept in a cookie beside the code, read when localStorage has none, and forgotten with it', async () => {
    await capturePage('?id=cmp_u&referralCode=COOK2345&utm_source=refkit&utm_medium=facebook&utm_content=a%20b%26c', 'https://refkit.test', location.hostname);
    expect(document.cookie).to.contain('refkit_utm_cmp_u=');
    localStorage.clear();
    expect(storage.storedCodeAndUtm('cmp_u')).to.deep.equal({ code: 'COOK2345', utm: { source: 'refkit', medium: 'facebook', content: 'a b&c' } });
    // A later code without utm drops the cookie's.
    storage.rememberCode('cmp_u', 'NEXT2345', Date.now(), location.hostname);
    localStorage.clear();
    expect(storage.storedCodeAndUtm('cmp_u')).to.deep.equal({ code: 'NEXT2345', utm: undefined });
    storage.rememberCode('cmp_u', 'LAST2345', Date.now(), location.hostname, { medium: 'qr' });
    storage.forgetCode('cmp_u', location.hostname);
    expect(document.cookie).to.not.contain('refkit_utm_cmp_u');
    expect(document.cookie).to.not.contain('refkit_code_cmp_u');
  });

  it('kept ones are cleaned again when read (a damaged entry never reaches the service)', () => {
    localStorage.setItem('refkit:cmp_1:code', JSON.stringify({ code: 'FRIEND23', expires: Date.now() + 60_000, utm: { source: ' a\u0000b ', medium: 7, extra: 'x' } }));
    expect(storage.storedCodeAndUtm('cmp_1')).to.deep.equal({ code: 'FRIEND23', utm: { source: 'ab' } });
    localStorage.setItem('refkit:cmp_1:code', JSON.stringify({ code: 'FRIEND23', expires: Date.now() + 60_000, utm: 'nonsense' }));
    expect(storage.storedCodeAndUtm('cmp_1')).to.deep.equal({ code: 'FRIEND23', utm: undefined });
  });
});
