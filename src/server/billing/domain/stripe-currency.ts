/**
 * Stripe counts amounts in a currency's smallest unit: cents for most, whole units for its "zero-decimal"
 * currencies, thousandths for its "three-decimal" ones. Both directions of the integration convert here.
 */

const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** Stripe's amount (in the currency's smallest unit) as hundredths, what amountPaid and refunds count in. */
export function hundredths(amount: number, currency: string): number {
  const c = currency.toLowerCase();
  if (ZERO_DECIMAL.has(c)) return amount * 100;
  if (THREE_DECIMAL.has(c)) return Math.round(amount / 10);
  return amount;
}

/** A reward of `units` whole units of the currency (a credit of 10 USD) in Stripe's smallest unit (1000). */
export function minorUnits(units: number, currency: string): number {
  const c = currency.toLowerCase();
  if (ZERO_DECIMAL.has(c)) return units;
  if (THREE_DECIMAL.has(c)) return units * 1000;
  return units * 100;
}
