/** <referral-widget>: attributes and slots for texts, theming, keyboard use and screen-reader labels. */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { ReferralWidget } from '../../src/widget/index.js';
import { apiError, fakeService, json, campaign, type FakeService } from './fake-service.js';
import { API, focused, mount, q, setUrl, settled, signUp, stubNavigator, text } from './helpers.js';

let service: FakeService;

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService();
});
afterEach(() => service.restore());

describe('<referral-widget> texts', () => {
  it('texts are overridable by attributes, and header and footer by slots', async () => {
    setUrl('?referralCode=FRIEND23');
    const el = await fixture<ReferralWidget>(html`<referral-widget
      campaign-id="cmp_1"
      api-base=${API}
      submit-label="Join now"
      email-label="Work email"
      invited-text="Sam sent you"
      first-name
      first-name-label="Given name"
      ><span slot="header">Custom header</span><small slot="footer">Terms apply</small></referral-widget
    >`);
    await settled(el, 'ready');
    expect(text(el, 'button[type=submit]')).to.equal('Join now');
    expect(q<HTMLInputElement>(el, 'input[name=email]')!.labels![0]!.textContent).to.equal('Work email');
    expect(q<HTMLInputElement>(el, 'input[name=firstName]')!.labels![0]!.textContent).to.equal('Given name');
    expect(text(el, '[part=invited]')).to.match(/^Sam sent you\./);
    expect(q<HTMLSlotElement>(el, 'slot[name=header]')!.assignedElements()[0]!.textContent).to.equal('Custom header');
    expect(q<HTMLSlotElement>(el, 'slot[name=footer]')!.assignedElements()[0]!.textContent).to.equal('Terms apply');

    el.copyLabel = 'Copy link';
    el.email = 'k@example.com';
    await settled(el, 'signed-up');
    await waitUntil(() => text(el, '[part~=copy]') === 'Copy link');
  });

  it('first-name and last-name add those fields, sent when filled in', async () => {
    const el = await mount('first-name last-name');
    await settled(el, 'ready');
    expect(q(el, 'input[name=firstName]')).to.exist;
    expect(q(el, 'input[name=lastName]')).to.exist;
    q<HTMLInputElement>(el, 'input[name=firstName]')!.value = ' Ann ';
    signUp(el, 'k@example.com');
    await settled(el, 'signed-up');
    expect(service.calls.find((c) => c.path === '/api/v1/addParticipant')!.body).to.deep.equal({
      id: 'cmp_1',
      email: 'k@example.com',
      firstName: 'Ann',
    });
  });

  it('without first-name / last-name there are no name fields', async () => {
    const el = await mount();
    await settled(el, 'ready');
    expect(q(el, 'input[name=firstName]')).to.equal(null);
    expect(q(el, 'input[name=lastName]')).to.equal(null);
  });

  it('a server error about the first name is shown next to that field', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(400, 'invalid_request', 'firstName is too long', 'firstName');
    const el = await mount('first-name');
    await settled(el, 'ready');
    signUp(el, 'n@example.com');
    await waitUntil(() => text(el, '#firstName-error') === 'firstName is too long');
    expect(q(el, 'input[name=firstName]')!.getAttribute('aria-invalid')).to.equal('true');
    expect(q(el, 'input[name=email]')!.getAttribute('aria-invalid')).to.equal('false');
  });
});

describe('<referral-widget> theming', () => {
  it('is themed by CSS custom properties', async () => {
    const el = await fixture<ReferralWidget>(
      html`<referral-widget
        style="--referral-widget-accent: rgb(255, 0, 0); --referral-widget-radius: 3px; --referral-widget-font: monospace"
        campaign-id="cmp_1"
        api-base=${API}
      ></referral-widget>`,
    );
    await settled(el, 'ready');
    const button = q(el, 'button[type=submit]')!;
    expect(getComputedStyle(button).backgroundColor).to.equal('rgb(255, 0, 0)');
    expect(getComputedStyle(q(el, '[part=card]')!).borderTopLeftRadius).to.equal('3px');
    expect(getComputedStyle(q(el, '[part=header]')!).fontFamily).to.equal('monospace');
  });

  it('exposes its parts to ::part()', async () => {
    const style = document.createElement('style');
    style.textContent = `
      referral-widget::part(submit) { text-transform: uppercase; }
      referral-widget::part(card) { padding: 7px; }
      referral-widget::part(input) { border-top-width: 4px; }`;
    document.head.append(style);
    try {
      const el = await mount();
      await settled(el, 'ready');
      expect(getComputedStyle(q(el, '[part~=submit]')!).textTransform).to.equal('uppercase');
      expect(getComputedStyle(q(el, '[part=card]')!).paddingTop).to.equal('7px');
      expect(getComputedStyle(q(el, 'input[name=email]')!).borderTopWidth).to.equal('4px');
    } finally {
      style.remove();
    }
  });
});

describe('<referral-widget> accessibility', () => {
  it('has labelled controls, a polite live status region, and passes axe in the form and share views', async () => {
    const el = await mount();
    await settled(el, 'ready');
    const status = q(el, '[part=status]')!;
    expect(status.getAttribute('aria-live')).to.equal('polite');
    expect(status.getAttribute('role')).to.equal('status');
    const input = q<HTMLInputElement>(el, 'input[name=email]')!;
    expect(input.labels![0]!.textContent).to.equal('Email address');
    expect(input.getAttribute('aria-describedby')).to.equal('email-error');
    await expect(el).shadowDom.to.be.accessible();
    signUp(el, 'a11y@example.com');
    await settled(el, 'signed-up');
    await waitUntil(() => q(el, '[part=qr] svg'));
    await expect(el).shadowDom.to.be.accessible();
    expect(q<HTMLInputElement>(el, '[part~=link]')!.labels![0]!.textContent).to.equal('Your referral link');
    expect(q(el, '[part=share-links]')!.getAttribute('aria-label')).to.equal('Share on');
  });

  it('works from the keyboard alone: Tab to the field, type, Enter; focus lands on the share view; Enter copies', async () => {
    let copied = '';
    const undo = stubNavigator('clipboard', { writeText: async (t: string) => void (copied = t) });
    try {
      const el = await mount();
      await settled(el, 'ready');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.getAttribute('name')).to.equal('email');
      await sendKeys({ type: 'kb@example.com' });
      await sendKeys({ press: 'Enter' });
      await settled(el, 'signed-up');
      // The button that had focus is gone: focus moves to the new view's heading, not to the page.
      expect(focused(el)?.getAttribute('part')).to.equal('header');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.getAttribute('part')).to.equal('input link');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.getAttribute('part')).to.equal('button copy');
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => copied === 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23&utm_source=refkit&utm_medium=copy');
      await sendKeys({ press: 'Tab' });
      expect(focused(el)?.dataset.target).to.equal('email');
    } finally {
      undo();
    }
  });

  it('after a failed submit, focus goes to the Retry button; a field error focuses its field', async () => {
    service.routes['/api/v1/addParticipant'] = () => apiError(500, 'internal');
    const el = await mount();
    await settled(el, 'ready');
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: 'nope' });
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(focused(el)?.getAttribute('aria-invalid')).to.equal('true');
    await sendKeys({ type: '@example.com' });
    await sendKeys({ press: 'Enter' });
    await settled(el, 'error');
    expect(focused(el)?.getAttribute('part')).to.equal('button retry');
  });

  it('loading the page does not steal focus', async () => {
    const outside = await fixture<HTMLInputElement>(html`<input aria-label="page field" />`);
    outside.focus();
    const el = await mount();
    await settled(el, 'ready');
    expect(document.activeElement).to.equal(outside);
  });
});

describe('<referral-widget> events and definition', () => {
  it('its events bubble and are composed, so the page can listen on document', async () => {
    setUrl('?referralCode=FRIEND23');
    service.routes['/api/v1/addParticipant'] = () => apiError(500, 'internal');
    const seen: Event[] = [];
    const types = ['referral-code', 'referral-error'] as const;
    const listener = (e: Event) => seen.push(e);
    for (const t of types) document.addEventListener(t, listener);
    try {
      const el = await mount();
      await settled(el, 'ready');
      signUp(el, 'l@example.com');
      await settled(el, 'error');
      expect(seen.map((e) => e.type)).to.deep.equal(['referral-code', 'referral-error']);
      for (const e of seen) {
        expect(e).to.be.instanceOf(CustomEvent);
        expect([e.bubbles, e.composed, e.target]).to.deep.equal([true, true, el]);
      }
    } finally {
      for (const t of types) document.removeEventListener(t, listener);
    }
  });

  it('referral-signup bubbles and is composed too', async () => {
    service.routes['/api/v1/getCampaign'] = () => json(campaign);
    const el = await mount();
    await settled(el, 'ready');
    const seen: Event[] = [];
    const listener = (e: Event) => seen.push(e);
    document.addEventListener('referral-signup', listener);
    try {
      signUp(el, 'm@example.com');
      await settled(el, 'signed-up');
      expect(seen).to.have.length(1);
      expect([seen[0]!.bubbles, seen[0]!.composed]).to.deep.equal([true, true]);
    } finally {
      document.removeEventListener('referral-signup', listener);
    }
  });

  it('is defined once; loading the bundle again does not throw', async () => {
    expect(customElements.get('referral-widget')).to.equal(ReferralWidget);
    // A second copy of the entry module, as a page that includes the script twice would run it.
    // (The .ts file itself: the dev server maps `.js` to `.ts` only for static imports.)
    await import(`../../src/widget/index.ts?again=${Date.now()}`);
    expect(customElements.get('referral-widget')).to.equal(ReferralWidget);
  });
});
