/**
 * @refkit/widget: <referral-widget> as an ES module. Importing it defines the element in a browser (once:
 * a second copy, or the script-tag build on the same page, finds it defined) and does nothing else: no
 * `window.refkit`, no capture of the page's share link (the element captures it when it shows a campaign's
 * form; captureReferralCode does it on a page without one). On a server (no DOM) it defines nothing, so
 * that React and Vue can render the element's tag there.
 */
import { capturePage } from '../../../src/widget/attribution.js';
import { ReferralWidget } from '../../../src/widget/referral-widget.js';
import { defaultApiBase } from '../../../src/widget/script-origin.js';
import { defineReferralWidget } from './define.js';

export { ReferralWidget };
export { getPromotionCode, getReferralCode, type PromotionCodeRef } from '../../../src/widget/attribution.js';
export type { WidgetEvents, WidgetState } from '../../../src/widget/referral-widget.js';
export type { Campaign, Participant } from '../../../src/api/client.js';
export type { ReferralCodeEvent, ReferralErrorEvent, ReferralSignupEvent, ReferralWidgetAttributes } from './attributes.js';

export interface CaptureOptions {
  /** The service's address; by default the page's origin (as the element's `api-base`). */
  apiBase?: string;
  /** A parent domain (`example.com`) to keep the code in a cookie its subdomains share (as `cookie-domain`). */
  cookieDomain?: string;
}

/**
 * Captures the page's share link (`?id=<campaign>&referralCode=<code>`): the code is checked with the
 * service and remembered for its campaign for 90 days, with the link's utm_*, so that a visitor who lands
 * on a page without <referral-widget> (or while the campaign is paused) and signs up later, elsewhere on
 * the site, still counts, and getReferralCode and getPromotionCode see the code. The script tag does this
 * on every page it is on; with the package, call it where visitors land (in the browser, once per page
 * load). The element captures the link by itself when it shows an active campaign's form.
 */
export function captureReferralCode(options: CaptureOptions = {}): Promise<void> {
  return capturePage(location.search, options.apiBase || defaultApiBase(), options.cookieDomain || undefined);
}

defineReferralWidget();
