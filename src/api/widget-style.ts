/**
 * The campaign's look for the widget (widgetStyle): an accent colour, a corner radius and a font from a
 * fixed set. The set is named here, beside the stacks each name stands for, so that the service's schema
 * and the dashboard's picker read the one list; a font is a name, never CSS from the caller. The widget
 * gets the look as CSS values (widgetLook), so that its bundle carries no list of fonts.
 */
export const WIDGET_FONTS = {
  system: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
  serif: 'Georgia, Cambria, "Times New Roman", serif',
  rounded: 'ui-rounded, "Nunito", system-ui, sans-serif',
  monospace: 'ui-monospace, SFMono-Regular, Menlo, monospace',
} as const;
export type WidgetFont = keyof typeof WIDGET_FONTS;
export const WIDGET_FONT_NAMES = Object.keys(WIDGET_FONTS) as WidgetFont[];

export const MAX_WIDGET_RADIUS = 24;
/** An accent colour: #rrggbb. */
export const ACCENT_PATTERN = '^#[0-9a-fA-F]{6}$';

interface Style {
  accent: string;
  radius: number;
  font: WidgetFont;
}
/** The widget's own look, which a campaign's widgetStyle changes field by field (its CSS has the same defaults). */
export const DEFAULT_WIDGET_STYLE: Style = { accent: '#4f46e5', radius: 12, font: 'system' };

/**
 * The look as the CSS values the widget sets (getWidgetSettings' `look`): every field, the defaults where
 * the campaign sets none, so that a widget that moves to another campaign is left with nothing of the last.
 */
export function widgetLook(style: Partial<Style>): { accent: string; radius: string; font: string } {
  const s = { ...DEFAULT_WIDGET_STYLE, ...style };
  return { accent: s.accent, radius: `${s.radius}px`, font: WIDGET_FONTS[s.font] };
}
