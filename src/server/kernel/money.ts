/** Money on the wire is numeric text with at most two decimals ("12.34"); the service keeps cents. */

/** "12.34" -> 1234; the schema has already checked the shape. */
export function toCents(amount: string): number {
  const [whole = '0', fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
