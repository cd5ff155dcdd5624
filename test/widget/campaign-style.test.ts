/** <referral-widget> wears the look stored on the campaign (getWidgetSettings' look); the page's own custom properties win. */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type { ReferralWidget } from '../../src/widget/index.js';
import '../../src/widget/index.js';
import { fakeService, json, settings, type FakeService } from './fake-service.js';
import { API, mount, q, setUrl, settled } from './helpers.js';

let service: FakeService;
const styled = { ...settings, look: { accent: '#0e9384', radius: '20px', font: 'Georgia, serif' } };

beforeEach(() => {
  localStorage.clear();
  setUrl('');
  service = fakeService({ '/api/v1/getWidgetSettings': () => json(styled) });
});
afterEach(() => service.restore());

const look = (el: ReferralWidget) => {
  const card = getComputedStyle(q(el, '[part=card]')!);
  const button = getComputedStyle(q(el, 'button[type=submit]')!);
  return { radius: card.borderTopLeftRadius, font: card.fontFamily, accent: button.backgroundColor };
};

describe('<referral-widget> campaign look', () => {
  it("draws the campaign's accent, radius and font without any attribute or style on the element", async () => {
    const el = await mount();
    await settled(el, 'ready');
    const { radius, font, accent } = look(el);
    expect(radius).to.equal('20px');
    expect(font).to.match(/^Georgia/);
    expect(accent).to.equal('rgb(14, 147, 132)');
  });

  it("the page's custom properties on the element override the campaign's", async () => {
    const el = await fixture<ReferralWidget>(
      html`<referral-widget campaign-id="cmp_1" api-base=${API} style="--referral-widget-radius: 4px; --referral-widget-accent: #b42318"></referral-widget>`,
    );
    await settled(el, 'ready');
    const { radius, font, accent } = look(el);
    expect(radius).to.equal('4px');
    expect(accent).to.equal('rgb(180, 35, 24)');
    // What the page did not set still comes from the campaign.
    expect(font).to.match(/^Georgia/);
    expect(el.getAttribute('style')).to.contain('--referral-widget-radius: 4px');
  });

  it('an older service without a look leaves the defaults; moving to another campaign leaves nothing of the last look', async () => {
    service.routes['/api/v1/getWidgetSettings'] = () => json(settings);
    const el = await mount();
    await settled(el, 'ready');
    expect(look(el).radius).to.equal('12px');
    expect(look(el).accent).to.equal('rgb(79, 70, 229)');

    service.routes['/api/v1/getWidgetSettings'] = () => json(styled);
    el.campaignId = 'cmp_2';
    await waitUntil(() => look(el).radius === '20px', 'the look of cmp_2');
    // The service sends every value of a look (the defaults where a campaign sets none).
    service.routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, look: { accent: '#4f46e5', radius: '12px', font: 'system-ui, sans-serif' } });
    el.campaignId = 'cmp_3';
    await waitUntil(() => look(el).radius === '12px', 'the look of cmp_3');
    expect(look(el).font).to.match(/^system-ui/);
  });
});
