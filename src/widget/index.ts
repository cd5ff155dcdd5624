/** The widget bundle's entry: defines <referral-widget>. */
export { ReferralWidget, type WidgetState } from './referral-widget.js';
