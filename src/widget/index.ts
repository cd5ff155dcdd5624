/**
 * The widget bundle's entry: captures the page's share link (with or without an element on the page),
 * exposes `getReferralCode` (also as `window.refkit.getReferralCode`), and defines <referral-widget>.
 * A page may load the bundle twice (the ES module and the classic script, or two copies of one): the
 * first definition wins instead of the second throwing.
 */
import { capturePage, getReferralCode } from './attribution.js';
import { ReferralWidget } from './referral-widget.js';
import { defaultApiBase, widgetScript } from './script-origin.js';

export { ReferralWidget, getReferralCode };
export type { WidgetState, WidgetEvents } from './referral-widget.js';

declare global {
  interface Window {
    /** The widget's page-level API, for hosts that sign people up in their own form. */
    refkit?: { getReferralCode: typeof getReferralCode };
  }
}

window.refkit ??= { getReferralCode };
void capturePage(location.search, defaultApiBase, widgetScript?.dataset.cookieDomain || undefined);

if (!customElements.get('referral-widget')) customElements.define('referral-widget', ReferralWidget);
