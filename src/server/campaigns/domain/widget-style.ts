/** A campaign's widget look (WidgetStyle), kept as one JSON column; the schema has checked every value. */
import type { WidgetStyle } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';

export function readWidgetStyle(c: Pick<CampaignRow, 'widget_style'>): WidgetStyle {
  if (!c.widget_style) return {};
  return JSON.parse(c.widget_style) as WidgetStyle;
}

/** The column's value for a style given whole: null when it sets nothing. */
export const writeWidgetStyle = (style: WidgetStyle): string | null => (Object.keys(style).length > 0 ? JSON.stringify(style) : null);
