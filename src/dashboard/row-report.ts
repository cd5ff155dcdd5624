/** The lines of an upload the service refused (it took nothing then): a table of line, column and problem. */
import { css, html, nothing } from 'lit';
import type { RowProblem } from '../api/client.js';

/** The report's styles, for the styles of a page that shows one. */
export const rowReportStyles = css`
  .row-report { margin-bottom: 16px; }
  .row-report caption { text-align: start; font-weight: 600; padding-bottom: 4px; }
`;

/** Each refused row: its line in the file (or the pasted text), the column when the service named one, and why. Nothing when none. */
export function rowReport(rows: readonly RowProblem[], caption: string) {
  if (rows.length === 0) return nothing;
  return html`<div class="table-wrap">
    <table class="row-report">
      <caption>${caption}</caption>
      <thead>
        <tr><th class="num">Line</th><th>Column</th><th>Problem</th></tr>
      </thead>
      <tbody>
        ${rows.map((r) => html`<tr><td class="num">${r.line}</td><td class="mono">${r.field ?? '—'}</td><td>${r.message}</td></tr>`)}
      </tbody>
    </table>
  </div>`;
}
