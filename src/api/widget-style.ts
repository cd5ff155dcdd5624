/**
 * The campaign's look for the widget (widgetStyle): an accent colour, a corner radius and a font from a
 * fixed set. The set is named here, beside the stacks each name stands for, so that the service's schema,
 * the dashboard's picker and the widget read the one list; a font is a name, never CSS from the caller.
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
