/** How the dashboard writes numbers, dates and money. */
const number = new Intl.NumberFormat('en-US');
export const n = (v: number | undefined) => number.format(v ?? 0);
export const date = (iso: string | undefined) =>
  iso ? new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }) : '—';
export const dateTime = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—';
export const money = (units: string, currency = 'USD') => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(Number(units));
  } catch {
    return `${units} ${currency}`;
  }
};
export const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)}%`);
