/** How the dashboard writes numbers, dates, money and counts (Intl, never string-built plurals). */
import { isMoney } from '../api/reward-kind.js';

const LOCALE = 'en-US';
const number = new Intl.NumberFormat(LOCALE);
const plural = new Intl.PluralRules(LOCALE);
export const n = (v: number | undefined) => number.format(v ?? 0);
/** A count with its noun as English agrees them: "1 link view", "3 link views". */
export const count = (v: number | undefined, one: string, other: string) => `${n(v)} ${plural.select(v ?? 0) === 'one' ? one : other}`;
export const date = (iso: string | undefined) =>
  iso ? new Date(iso).toLocaleDateString(LOCALE, { year: 'numeric', month: 'short', day: 'numeric' }) : '—';
/** A moment with its year, to the minute: a test campaign's clock may be months or years ahead. */
export const moment = (iso: string | undefined) =>
  iso ? new Date(iso).toLocaleString(LOCALE, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }) : '—';
export const dateTime = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(LOCALE, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—';
/** An amount of money in a currency; `whole`: without cents (reward values are whole units). */
export const money = (units: string | number, currency = 'USD', whole = false) => {
  try {
    return new Intl.NumberFormat(LOCALE, { style: 'currency', currency, ...(whole && { minimumFractionDigits: 0, maximumFractionDigits: 0 }) }).format(Number(units));
  } catch {
    // A currency Intl does not know (a draft being typed): the number and the code.
    return `${number.format(Number(units))} ${currency}`;
  }
};
/** A reward value in its unit: money in the campaign's currency, else a count of the reward type ("5 points"). */
export const reward = (value: number | undefined, campaign: { rewardType?: string | undefined; rewardCurrency?: string | undefined } | undefined) => {
  const type = campaign?.rewardType ?? '';
  return isMoney(type) ? money(value ?? 0, campaign?.rewardCurrency ?? 'USD', true) : `${n(value)} ${type.trim()}`;
};
/** ISO date-time to the value of <input type=datetime-local> (local time); read back with `new Date(value)`. */
export const toLocalInput = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
export const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)}%`);
