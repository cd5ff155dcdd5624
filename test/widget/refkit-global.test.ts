/**
 * `window.refkit` when the page (or an earlier copy of the bundle) defined one before the widget's
 * script ran: the widget adds what is missing and replaces nothing. The preset is imported first, so it
 * runs before the widget's entry module.
 */
import { pagesOwn } from './refkit-preset.js';
import { expect } from '@open-wc/testing';
import { getPromotionCode } from '../../src/widget/index.js';

describe('window.refkit, defined by the page first', () => {
  it("keeps the page's own functions and values, and adds getPromotionCode", () => {
    const api = window.refkit as unknown as Record<string, unknown>;
    expect(api.getReferralCode).to.equal(pagesOwn);
    expect(api.somethingElse).to.equal(42);
    expect(api.getPromotionCode).to.equal(getPromotionCode);
  });
});
