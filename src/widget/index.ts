/**
 * The script-tag bundle's entry: sets the default `api-base` to where the script came from, captures the
 * page's share link (with or without an element on the page), exposes `getReferralCode` and
 * `getPromotionCode` (also as `window.refkit.getReferralCode` and `window.refkit.getPromotionCode`), and
 * defines <referral-widget>. (The npm package's entry, packages/widget/src/index.ts, only defines the
 * element on import.)
 * A page may load the bundle twice (the ES module and the classic script, or two copies of one): the
 * first definition wins instead of the second throwing, and so does each `window.refkit` function
 * already there.
 */
import { capturePage, getPromotionCode, getReferralCode } from './attribution.js';
import { ReferralWidget } from './referral-widget.js';
import { defaultApiBase, scriptOrigin, setDefaultApiBase, widgetScriptOf } from './script-origin.js';

export { ReferralWidget, getPromotionCode, getReferralCode };
export type { WidgetState, WidgetEvents } from './referral-widget.js';
export type { PromotionCodeRef } from './attribution.js';

/** The widget's page-level API (`window.refkit`), for hosts with their own sign-up form or checkout. */
export interface RefkitApi {
  /** The referral code this browser arrived with for a campaign (from a share link, kept 90 days), if any. */
  getReferralCode: typeof getReferralCode;
  /**
   * The promotion code of the friend who referred this visitor, `{code, id}`, to apply at checkout; null
   * when no code was captured or the campaign has none for it; rejects when the service gave no answer.
   */
  getPromotionCode: typeof getPromotionCode;
}

declare global {
  interface Window {
    /** The widget's page-level API, for hosts that sign people up in their own form or run their own checkout. */
    refkit?: RefkitApi;
  }
}

// Read as the script is evaluated: a classic script is document.currentScript only while it runs.
const moduleUrl = (import.meta as { url?: string }).url;
const currentScript = document.currentScript as HTMLScriptElement | null;
const widgetScript = widgetScriptOf(currentScript, moduleUrl);
setDefaultApiBase(scriptOrigin(currentScript, moduleUrl, location.origin));

// Filled in, never replaced: a page's own `window.refkit`, or an earlier copy of the bundle, keeps its functions.
const api: Partial<RefkitApi> = (window.refkit ??= {} as RefkitApi);
api.getReferralCode ??= getReferralCode;
api.getPromotionCode ??= getPromotionCode;
void capturePage(location.search, defaultApiBase(), widgetScript?.dataset.cookieDomain || undefined);

if (!customElements.get('referral-widget')) customElements.define('referral-widget', ReferralWidget);
