/**
 * The widget bundle's entry: defines <referral-widget>. A page may load the bundle twice (the ES module
 * and the classic script, or two copies of one): the first definition wins instead of the second throwing.
 */
import { ReferralWidget } from './referral-widget.js';

export { ReferralWidget };
export type { WidgetState, WidgetEvents } from './referral-widget.js';

if (!customElements.get('referral-widget')) customElements.define('referral-widget', ReferralWidget);
