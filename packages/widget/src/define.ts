/**
 * Defines <referral-widget> in a browser, once: a second copy of the package (or the script-tag build on
 * the same page) finds it defined and leaves it. On a server there is no DOM and nothing to define (Lit
 * gives Node a `customElements` of its own for server rendering; it is left alone too).
 */
import { ReferralWidget } from '../../../src/widget/referral-widget.js';

export function defineReferralWidget(): void {
  if (typeof document === 'undefined' || typeof customElements === 'undefined') return;
  if (!customElements.get('referral-widget')) customElements.define('referral-widget', ReferralWidget);
}
