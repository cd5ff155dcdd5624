/**
 * Spreadsheet formula injection (CSV injection): a cell that starts with `=`, `+`, `-` or `@` (or their
 * full-width forms, which spreadsheets read alike), a tab or a carriage return is run as a formula when
 * the file is opened in Excel, LibreOffice or Google Sheets. A sign-up's name or email comes from anyone
 * on the internet, so every text cell of an export is neutralised the way OWASP recommends: a single
 * quote in front, the value otherwise kept whole. An import takes that quote off again, so an exported
 * file imports back to the same values.
 */

/** The characters a spreadsheet may read as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;
/** A cell neutralised by `spreadsheetSafe`. */
const NEUTRALISED = /^'(?=[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20])/u;

/** The text with a single quote in front when a spreadsheet would run it as a formula. */
export const spreadsheetSafe = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/** The value an exported cell stood for: `spreadsheetSafe` undone. */
export const fromSpreadsheetSafe = (text: string): string => text.replace(NEUTRALISED, '');
