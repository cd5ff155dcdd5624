/**
 * custom-elements.json against the element as the browser defines it: its attributes are exactly the
 * ones <referral-widget> observes. (The rest of the manifest is checked against the source in
 * test/manifest/custom-elements.test.ts.)
 */
import { expect } from '@open-wc/testing';
import { ReferralWidget } from '../../src/widget/index.js';

interface Declaration {
  tagName?: string;
  attributes?: { name: string }[];
}

describe('custom-elements.json and the defined element', () => {
  it('lists exactly the attributes <referral-widget> observes', async () => {
    const manifest = (await (await fetch('/custom-elements.json')).json()) as { modules: { declarations?: Declaration[] }[] };
    const declaration = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'referral-widget');
    const listed = (declaration?.attributes ?? []).map((a) => a.name).sort();
    const defined = customElements.get('referral-widget') as typeof ReferralWidget;
    const observed = [...(defined as unknown as { observedAttributes: string[] }).observedAttributes].sort();
    expect(observed).to.include('campaign-id');
    expect(listed).to.deep.equal(observed);
  });

  it('is the element the tag name map gives for referral-widget', () => {
    // Type-checked too: the assignment compiles only while HTMLElementTagNameMap declares the tag.
    const el: ReferralWidget = document.createElement('referral-widget');
    expect(el).to.be.instanceOf(ReferralWidget);
  });
});
