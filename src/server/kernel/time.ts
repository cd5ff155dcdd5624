/** Times leave as ISO 8601 in UTC (`Z`), the interface's date-time. */

export const DAY_MS = 24 * 60 * 60 * 1000;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, computed: a Date and its formatting cost 0.75 µs here against 0.23 µs,
 * and every participant shown (20 on a page) has a date. The calendar date is Howard Hinnant's
 * days-to-civil algorithm (proleptic Gregorian, as Date's); years outside 0000-9999 and invalid times,
 * which no stored time is, are left to Date.
 */
export function iso(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < -62_167_219_200_000 || ms >= 253_402_300_800_000) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Days since 0000-03-01, in 400-year eras of 146,097 days: March first puts the leap day at a year's end.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const year4 = year < 1000 ? `000${year}`.slice(-4) : `${year}`;
  return `${year4}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}
