/**
 * CSV written in the browser, as the service's exports write it (csv-stringify's defaults: a header line,
 * cells quoted when they hold a comma, a quote or a line break, a line feed after each record), and saved
 * as a download.
 *
 * A cell that starts with `=`, `+`, `-` or `@` (or their full-width forms), a tab or a carriage return is
 * run as a formula by Excel, LibreOffice and Google Sheets, and an email or a provider's reason can come
 * from anyone: such a cell gets a single quote in front, the value otherwise whole, as the service's own
 * exports do (src/server/kernel/csv-cells.ts, which the dashboard may not import). Numbers are written as
 * numbers: a negative amount stays a number.
 */

const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;

export type Cell = string | number | boolean | null | undefined;

function cell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The CSV text of `rows` under `columns` (each row's values in the columns' order). */
export function toCsv(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [columns, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

/** Saves `text` as a file the browser downloads. */
export function download(filename: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  // The download has started by then; the address is of no use after it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
