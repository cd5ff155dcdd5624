import { css } from 'lit';

/** Themed by custom properties; every part is exposed with `part` for ::part() styling. */
export const styles = css`
  :host {
    --_accent: var(--referral-widget-accent, #4f46e5);
    --_accent-text: var(--referral-widget-accent-text, #fff);
    --_radius: var(--referral-widget-radius, 12px);
    --_font: var(--referral-widget-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    --_bg: var(--referral-widget-background, #fff);
    --_text: var(--referral-widget-text, #1f2937);
    --_muted: var(--referral-widget-muted, #6b7280);
    --_border: var(--referral-widget-border, #e5e7eb);
    --_error: var(--referral-widget-error, #b91c1c);
    display: block;
    font-family: var(--_font);
    color: var(--_text);
    max-width: 28rem;
  }
  [part='card'] {
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 1.5rem;
    box-shadow: 0 1px 3px rgb(0 0 0 / 0.06);
  }
  h2 { margin: 0 0 0.5rem; font-size: 1.25rem; line-height: 1.3; }
  p { margin: 0 0 1rem; color: var(--_muted); line-height: 1.5; }
  [part='invited'] {
    background: color-mix(in srgb, var(--_accent) 10%, transparent);
    border-radius: calc(var(--_radius) / 2);
    padding: 0.5rem 0.75rem;
    margin-bottom: 1rem;
    color: var(--_text);
  }
  form { display: grid; gap: 0.75rem; }
  [part~='field'] { display: grid; gap: 0.25rem; }
  label { font-size: 0.875rem; font-weight: 600; }
  input {
    font: inherit;
    padding: 0.625rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
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
    background: var(--_accent);
    color: var(--_accent-text);
    border: 0;
    padding: 0.65rem 1rem;
    font-weight: 600;
  }
  [part~='button'][disabled] { opacity: 0.6; cursor: progress; }
  button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid color-mix(in srgb, var(--_accent) 45%, transparent); outline-offset: 2px; }
  [part='link-row'] { display: flex; gap: 0.5rem; }
  [part='link-row'] input { flex: 1; min-width: 0; }
  [part='qr'] { width: 9rem; height: 9rem; margin: 1rem auto; }
  [part='qr'] svg { width: 100%; height: 100%; display: block; }
  [part='share-links'] { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.5rem 0 1rem; padding: 0; list-style: none; }
  [part~='share-link'] {
    display: inline-block;
    padding: 0.4rem 0.7rem;
    border: 1px solid var(--_border);
    color: var(--_text);
    text-decoration: none;
    font-size: 0.875rem;
    background: none;
  }
  [part='stats'] { display: grid; grid-template-columns: repeat(3, 1fr); gap: 0.5rem; margin: 0; }
  [part='stats'] div { border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2); padding: 0.5rem; text-align: center; }
  dt { font-size: 0.75rem; color: var(--_muted); }
  dd { margin: 0; font-size: 1.25rem; font-weight: 700; }
  [part='status'] { min-height: 1.25rem; font-size: 0.875rem; color: var(--_muted); margin-top: 0.5rem; }
  [part~='notice'] { color: var(--_text); }
  [part='placeholder'] { display: grid; gap: 0.75rem; }
  [part='placeholder'] span { height: 0.9rem; border-radius: 4px; background: var(--_border); }
  [part='placeholder'] span:first-child { height: 1.4rem; width: 60%; }
  [part='placeholder'] span:last-child { height: 2.5rem; }
  [part='returning'] { margin: 1rem 0 0; font-size: 0.875rem; }
  [part='not-me'] { background: none; border: 0; padding: 0; color: var(--_accent); text-decoration: underline; }
  h2:focus { outline: none; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
