import { css } from 'lit';

/**
 * Themed by custom properties: the page's first, then the campaign's look (--_-accent, --_-radius,
 * --_-font, set by ./referral-widget.ts from getWidgetSettings), then the defaults. Every part is exposed
 * with `part` for ::part() styling. Layout uses logical properties (inline-start/end), so right-to-left
 * languages mirror correctly. Controls are at least 44 px tall on touch screens, and the focus ring is the
 * accent (at least 3:1 on the card).
 */
export const styles = css`
  :host {
    --_accent: var(--referral-widget-accent, var(--_-accent, #4f46e5));
    --_accent-text: var(--referral-widget-accent-text, #fff);
    --_radius: var(--referral-widget-radius, var(--_-radius, 12px));
    --_font: var(--referral-widget-font, var(--_-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif));
    --_bg: var(--referral-widget-background, #fff);
    --_text: var(--referral-widget-text, #1f2937);
    --_muted: var(--referral-widget-muted, #4b5563);
    --_border: var(--referral-widget-border, #d1d5db);
    --_error: var(--referral-widget-error, #b91c1c);
    --_input-bg: var(--referral-widget-input-background, var(--_bg));
    --_input-text: var(--referral-widget-input-text, var(--_text));
    --_focus: var(--referral-widget-focus-ring, var(--_accent));
    --_tint: color-mix(in srgb, var(--_accent) 8%, var(--_bg));
    --_control: 2.75rem;
    display: block;
    container-type: inline-size;
    font-family: var(--_font);
    color: var(--_text);
    max-width: 28rem;
  }
  [part='card'] {
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 1.5rem;
    box-shadow: 0 1px 3px rgb(0 0 0 / 0.06), 0 8px 24px rgb(0 0 0 / 0.04);
  }
  h2 { margin: 0 0 0.5rem; font-size: 1.25rem; line-height: 1.3; }
  p { margin: 0 0 1rem; color: var(--_muted); line-height: 1.5; }
  [part='invited'], [part='discount'], [part='offer'] {
    background: var(--_tint);
    border-radius: calc(var(--_radius) / 2);
    padding: 0.625rem 0.75rem;
    margin-block-end: 1rem;
    color: var(--_text);
  }
  form { display: grid; gap: 0.75rem; }
  [part~='field'] { display: grid; gap: 0.25rem; }
  label { font-size: 0.875rem; font-weight: 600; }
  input, textarea {
    font: inherit;
    min-height: var(--_control);
    box-sizing: border-box;
    padding: 0.625rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
    background: var(--_input-bg);
    color: var(--_input-text);
  }
  input[aria-invalid='true'] { border-color: var(--_error); }
  [part~='field-error'] { color: var(--_error); font-size: 0.8125rem; margin: 0; }
  [part~='field-error']:empty { display: none; }
  button, [part~='share-link'] {
    font: inherit;
    cursor: pointer;
    border-radius: calc(var(--_radius) / 2);
  }
  [part~='button'] {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.4rem;
    min-height: var(--_control);
    background: var(--_accent);
    color: var(--_accent-text);
    border: 0;
    padding: 0.65rem 1rem;
    font-weight: 600;
  }
  [part~='button'] svg, [part~='share-link'] svg { width: 1.25rem; height: 1.25rem; flex: none; }
  [part~='button'][disabled] { opacity: 0.6; cursor: progress; }
  button:focus-visible, input:focus-visible, textarea:focus-visible, a:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  /* The card's first line: it says what just happened ("You are in!") where a phone's screen shows it; empty, it takes no room. */
  [part='status'] { font-size: 0.875rem; color: var(--_muted); margin-block-end: 0.75rem; }
  [part='status']:empty { margin: 0; }
  [part~='notice'] { color: var(--_text); }
  [part='placeholder'] { display: grid; gap: 0.75rem; }
  [part='placeholder'] span { height: 0.9rem; border-radius: 4px; background: var(--_border); }
  [part='placeholder'] span:first-child { height: 1.4rem; width: 60%; }
  [part='placeholder'] span:last-child { height: 2.5rem; }
  h2:focus { outline: none; }
  @container (max-width: 26rem) {
    [part='card'] { padding: 1.125rem; }
  }
`;
