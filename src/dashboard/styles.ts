/** The dashboard's look, shared by every page: tokens, type, buttons, fields, cards, tables, badges. */
import { css } from 'lit';

export const base = css`
  :host {
    --bg: #f5f6fa;
    --surface: #ffffff;
    --border: #e4e7ec;
    --text: #101828;
    --muted: #5d6676;
    --accent: #4f46e5;
    --accent-strong: #4338ca;
    --accent-soft: #eef2ff;
    --ok: #067647;
    --ok-soft: #ecfdf3;
    --warn: #93370d;
    --warn-soft: #fffaeb;
    --danger: #b42318;
    --danger-soft: #fef3f2;
    --test: #b54708;
    --test-soft: #fff4e5;
    --radius: 10px;
    --shadow: 0 1px 2px rgba(16, 24, 40, 0.06), 0 1px 3px rgba(16, 24, 40, 0.08);
    --sans: Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
    font-family: var(--sans);
    font-size: 14px;
    line-height: 1.5;
    color: var(--text);
    display: block;
  }
  *, *::before, *::after { box-sizing: border-box; }
  h1 { font-size: 24px; line-height: 32px; font-weight: 650; margin: 0; letter-spacing: -0.01em; }
  h2 { font-size: 16px; line-height: 24px; font-weight: 600; margin: 0 0 12px; }
  h3 { font-size: 14px; font-weight: 600; margin: 0 0 8px; }
  p { margin: 0 0 8px; }
  a { color: var(--accent); text-decoration: none; font-weight: 500; }
  a:hover { text-decoration: underline; }
  code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
  .muted { color: var(--muted); }
  .page-head { display: flex; align-items: center; justify-content: space-between; gap: 16px; flex-wrap: wrap; margin-bottom: 24px; }
  .page-head p { margin: 4px 0 0; color: var(--muted); }
  .actions { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
  label.button { display: inline-flex; margin: 0; font-size: 14px; }

  .card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow); padding: 20px; }
  .card + .card { margin-top: 16px; }
  .grid { display: grid; gap: 16px; }
  .stats { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); margin-bottom: 16px; }
  .stat { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow); padding: 16px 20px; }
  .stat .label { color: var(--muted); font-size: 13px; font-weight: 500; }
  .stat .value { font-size: 26px; font-weight: 650; letter-spacing: -0.02em; margin-top: 4px; }
  .stat .sub { color: var(--muted); font-size: 12px; }

  button, .button {
    font: inherit; font-weight: 600; font-size: 14px; line-height: 20px;
    display: inline-flex; align-items: center; justify-content: center; gap: 6px;
    padding: 8px 14px; border-radius: 8px; border: 1px solid var(--border);
    background: var(--surface); color: var(--text); cursor: pointer; text-decoration: none; white-space: nowrap;
    box-shadow: 0 1px 2px rgba(16, 24, 40, 0.05);
  }
  button:hover, .button:hover { background: #f9fafb; text-decoration: none; }
  button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
  button.primary:hover, .button.primary:hover { background: var(--accent-strong); }
  button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
  button.danger-ghost { color: var(--danger); }
  button.small, .button.small { padding: 4px 10px; font-size: 13px; }
  button:disabled { opacity: 0.55; cursor: default; }
  :focus-visible { outline: 3px solid #a5b4fc; outline-offset: 2px; }

  label { display: block; font-weight: 500; font-size: 13px; margin-bottom: 6px; }
  .field { margin-bottom: 16px; }
  .field .hint { color: var(--muted); font-size: 12px; margin-top: 4px; }
  /* A write-only secret's label with its set / not set badge beside it, and the hint under its field. */
  .label-badge { display: flex; align-items: center; gap: 8px; }
  .label-badge label { margin: 0; }
  .hint { font-size: 12px; margin-top: 4px; }
  /* What the service said of this field's value (a 400 naming it). */
  .field-error { color: var(--danger); font-size: 12px; font-weight: 500; margin-top: 4px; }
  input, select, textarea {
    font: inherit; color: var(--text); width: 100%; padding: 8px 12px; border: 1px solid #d0d5dd; border-radius: 8px;
    background: #fff; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.05);
  }
  input[type='checkbox'] { width: auto; box-shadow: none; }
  input[type='color'] { padding: 2px; height: 38px; }
  textarea { min-height: 72px; resize: vertical; }
  input:focus, select:focus, textarea:focus { outline: none; border-color: #a5b4fc; box-shadow: 0 0 0 4px #eef2ff; }
  [aria-invalid='true'] { border-color: var(--danger); }
  .row { display: grid; gap: 16px; grid-template-columns: 1fr 1fr; }
  @media (max-width: 640px) { .row { grid-template-columns: 1fr; } }
  /** A one-line form: its fields, then its button; stacked on a phone. */
  form.add { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 12px; align-items: end; }
  @media (max-width: 640px) { form.add { grid-template-columns: minmax(0, 1fr); } }
  fieldset { border: 0; padding: 0; margin: 0 0 8px; }
  legend { font-weight: 600; font-size: 14px; margin-bottom: 12px; padding: 0; }

  /* The heading of a table below a card, with its filters and actions on its right. */
  .head2 { display: flex; justify-content: space-between; align-items: end; gap: 12px; flex-wrap: wrap; margin: 32px 0 12px; }
  .head2 h2 { margin: 0; }
  .head2 .actions { align-items: end; }
  .head2 .field { margin: 0; }
  .table-wrap { position: relative; overflow-x: auto; border: 1px solid var(--border); border-radius: var(--radius); background: var(--surface); box-shadow: var(--shadow); }
  table { width: 100%; border-collapse: collapse; }
  th { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); background: #f9fafb; padding: 10px 16px; border-bottom: 1px solid var(--border); white-space: nowrap; }
  td { padding: 12px 16px; border-bottom: 1px solid var(--border); vertical-align: middle; }
  tr:last-child td { border-bottom: 0; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  td.when { white-space: nowrap; }
  .empty { padding: 32px 16px; text-align: center; color: var(--muted); }
  /* A table of records: on a phone each row is a card of "label value" lines (labels from data-label), so
     no column is cut off or squeezed to a few characters a line. A cell without a label spans the card. */
  @media (max-width: 640px) {
    table.records thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
    table.records, table.records tbody, table.records tr, table.records td { display: block; width: 100%; }
    table.records tr { border-bottom: 1px solid var(--border); padding: 8px 0; }
    table.records tr:last-child { border-bottom: 0; }
    table.records td { border: 0; padding: 4px 16px; overflow-wrap: anywhere; }
    table.records td[data-label] { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; text-align: right; }
    table.records td[data-label]::before { content: attr(data-label); flex: none; font-family: var(--sans); color: var(--muted); font-size: 12px; font-weight: 600; text-align: left; }
    table.records td.empty { padding: 24px 16px; }
  }

  .badge { display: inline-flex; align-items: center; gap: 4px; padding: 2px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; background: #f2f4f7; color: #344054; white-space: nowrap; }
  .badge.ok { background: var(--ok-soft); color: var(--ok); }
  .badge.warn { background: var(--warn-soft); color: var(--warn); }
  .badge.danger { background: var(--danger-soft); color: var(--danger); }
  .badge.info { background: var(--accent-soft); color: var(--accent-strong); }
  /* Test mode's colour (as Stripe's): test campaigns, keys and endpoints, the banner, the switch. */
  .badge.test { background: var(--test-soft); color: var(--test); }

  .alert { border-radius: 8px; padding: 10px 14px; margin-bottom: 16px; background: var(--danger-soft); color: var(--danger); border: 1px solid #fecdca; }
  .notice { border-radius: 8px; padding: 12px 14px; margin-bottom: 16px; background: var(--ok-soft); color: var(--ok); border: 1px solid #abefc6; }
  .secret { display: flex; gap: 8px; align-items: center; margin-top: 8px; }
  .secret code { flex: 1; background: #fff; border: 1px solid #abefc6; border-radius: 6px; padding: 6px 10px; word-break: break-all; color: var(--text); }
  .tabs { display: inline-flex; border: 1px solid var(--border); border-radius: 8px; overflow: hidden; background: #fff; }
  .tabs button { border: 0; border-radius: 0; box-shadow: none; border-right: 1px solid var(--border); font-weight: 500; color: var(--muted); }
  .tabs button:last-child { border-right: 0; }
  .tabs button[aria-pressed='true'] { background: var(--accent-soft); color: var(--accent-strong); font-weight: 600; }
  .sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); border: 0; }
  dl.props { display: grid; grid-template-columns: max-content 1fr; gap: 8px 16px; margin: 0; }
  dl.props dt { color: var(--muted); }
  dl.props dd { margin: 0; word-break: break-word; }
`;
