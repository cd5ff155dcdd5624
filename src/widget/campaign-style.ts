/**
 * The look the owner chose for the campaign (widgetStyle, from getWidgetSettings), set on the element as
 * private custom properties that ./styles.ts reads beneath the public ones: a page's own
 * --referral-widget-* properties (in its style attribute or its stylesheets) still win.
 */
import type { WidgetStyle } from '../api/schemas.js';
import { WIDGET_FONTS } from '../api/widget-style.js';

export function applyCampaignStyle(host: HTMLElement, style: WidgetStyle | undefined): void {
  const set = (name: string, value: string | undefined) => (value === undefined ? host.style.removeProperty(name) : host.style.setProperty(name, value));
  set('--_campaign-accent', style?.accent);
  set('--_campaign-radius', style?.radius === undefined ? undefined : `${style.radius}px`);
  set('--_campaign-font', style?.font && WIDGET_FONTS[style.font]);
}
