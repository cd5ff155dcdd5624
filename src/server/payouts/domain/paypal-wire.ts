/**
 * How PayPal writes what the PayPal client (./paypal-api.ts) sends and reads: amounts, and errors.
 *
 * Amounts: `{ value: "10.05", currency: "USD" }`, the value a decimal string. The currencies are PayPal's
 * "PayPal-supported currencies" (developer.paypal.com, REST reference "Currency codes"). Three take no
 * decimals there: HUF, JPY and TWD ("This currency does not support decimals. Decimal amounts cause an
 * error."); every other one takes two. Stripe counts HUF and TWD in hundredths
 * (../../billing/domain/stripe-currency.ts): the same reward is 500 minor units of HUF for PayPal and
 * 50000 for Stripe, so never mix the two helpers. BRL, CNY and MYR are "in-country PayPal accounts
 * only": PayPal takes them, and may convert or refuse them for a receiver elsewhere.
 */

const ZERO_DECIMAL = new Set(['HUF', 'JPY', 'TWD']);
const TWO_DECIMAL = ['AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'ILS', 'MYR', 'MXN', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD'];

/** Every currency PayPal takes, upper case. */
export const PAYPAL_CURRENCIES: ReadonlySet<string> = new Set([...ZERO_DECIMAL, ...TWO_DECIMAL]);

/** How many decimals PayPal writes for a currency (0 or 2); undefined when PayPal does not take it. */
export function paypalDecimals(currency: string): 0 | 2 | undefined {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL.has(c)) return 0;
  return PAYPAL_CURRENCIES.has(c) ? 2 : undefined;
}

/** A reward of `units` whole units of the currency (10 USD) in PayPal's smallest unit (1000). */
export function paypalMinorUnits(units: number, currency: string): number {
  const decimals = paypalDecimals(currency);
  if (decimals === undefined) throw new RangeError(`PayPal does not take ${currency}`);
  return Math.round(units * 10 ** decimals);
}

/**
 * An amount in the currency's smallest unit as PayPal's decimal string: 1005 USD cents is "10.05", 1000
 * JPY is "1000". Integer arithmetic on the digits (no floating point); undefined for a currency PayPal
 * does not take or an amount that is not a positive safe integer.
 */
export function paypalValue(amountMinor: number, currency: string): string | undefined {
  const decimals = paypalDecimals(currency);
  if (decimals === undefined || !Number.isSafeInteger(amountMinor) || amountMinor <= 0) return undefined;
  if (decimals === 0) return String(amountMinor);
  const digits = String(amountMinor).padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * PayPal's decimal string back in the currency's smallest unit ("10.05" USD is 1005, "1.0" is 100: PayPal
 * writes fewer decimals in some answers); undefined when it is not a plain decimal or has more precision
 * than the currency.
 */
export function minorFromPayPalValue(value: string, currency: string): number | undefined {
  const decimals = paypalDecimals(currency);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (decimals === undefined || !match) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  const minor = Number(match[1]! + fraction.padEnd(decimals, '0'));
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** A JSON value as an object to read fields of ({} when it is not one), and as a string when it is one. */
export const record = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
export const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

interface ErrorFields {
  status: number | undefined;
  name: string;
  debugId?: string;
  transient: boolean;
  duplicateBatch?: boolean;
  existingBatchId?: string;
}

export class PayPalError extends Error {
  /** PayPal's HTTP status; undefined when it did not answer (or the request was refused before sending). */
  status: number | undefined;
  /**
   * PayPal's error name (VALIDATION_ERROR, USER_BUSINESS_ERROR, INTERNAL_SERVER_ERROR, RATE_LIMIT_REACHED,
   * the OAuth `error` such as invalid_client...), 'network' (no answer, or none in time), 'invalid_response'
   * (an answer that is not PayPal's), or ours for what is refused before asking: UNSUPPORTED_CURRENCY,
   * INVALID_AMOUNT, INVALID_BATCH.
   */
  override name: string;
  /** PayPal's debug_id (or PayPal-Debug-Id header), for PayPal's support. */
  debugId?: string;
  /** Might pass on a retry as it is: no answer, a timeout, 5xx, 429. */
  transient: boolean;
  /** PayPal refused the sender_batch_id as used in the last 30 days: that batch exists. */
  duplicateBatch: boolean;
  /** With duplicateBatch: the existing batch's id, from the HATEOAS link PayPal's refusal carries (when it does). */
  existingBatchId?: string;

  constructor(message: string, fields: ErrorFields) {
    super(message);
    this.status = fields.status;
    this.name = fields.name;
    this.debugId = fields.debugId;
    this.transient = fields.transient;
    this.duplicateBatch = fields.duplicateBatch ?? false;
    this.existingBatchId = fields.existingBatchId;
  }
}

/**
 * PayPal's error body as a PayPalError. Two shapes: the REST one `{name, message, debug_id, details:
 * [{field, issue, description, link}], links}`, and OAuth's `{error, error_description}` (the token
 * endpoint, and a 401 for a token PayPal no longer knows).
 *
 * A reused sender_batch_id: the Payouts reference says PayPal "rejects the request with an error message
 * that shows the duplicate sender_batch_id and includes a HATEOAS link to the original payout"; its error
 * list names it USER_BUSINESS_ERROR ("For batch processing, try again with a different sender_batch_ID"),
 * and the answer seen from the sandbox is a 400 USER_BUSINESS_ERROR whose details are [{field:
 * "SENDER_BATCH_ID", issue: "Batch with given sender_batch_id already exists", link: [{href:
 * ".../v1/payments/payouts/<batch id>", rel: "self"}]}] (older answers said "Duplicate batch request").
 * A DUPLICATE_REQUEST_ID (a PayPal-Request-Id already used: for us, the same sender_batch_id) is taken
 * the same way.
 */
export function errorOf(status: number, body: Record<string, unknown>, headerDebugId: string | undefined): PayPalError {
  const name = text(body.name) ?? text(body.error) ?? `HTTP_${status}`;
  const details = (Array.isArray(body.details) ? body.details : []).map(record);
  const issues = details.map((d) => [text(d.field), text(d.issue) ?? text(d.description)].filter(Boolean).join(': ')).filter(Boolean);
  const said = text(body.message) ?? text(body.error_description) ?? '';
  const message = `PayPal answered ${status} ${name}${said ? `: ${said}` : ''}${issues.length ? ` (${issues.join('; ')})` : ''}`;
  const duplicateBatch =
    name === 'DUPLICATE_REQUEST_ID' ||
    (name === 'USER_BUSINESS_ERROR' && details.some((d) => text(d.field)?.toUpperCase() === 'SENDER_BATCH_ID' || /sender_batch_id|duplicate batch/i.test(text(d.issue) ?? '')));
  let existingBatchId: string | undefined;
  if (duplicateBatch) {
    const links = [...details.flatMap((d) => (Array.isArray(d.link) ? d.link : [])), ...(Array.isArray(body.links) ? body.links : [])];
    for (const link of links.map(record)) existingBatchId ??= /\/v1\/payments\/payouts\/([^/?#]+)/.exec(text(link.href) ?? '')?.[1];
  }
  return new PayPalError(message, {
    status,
    name,
    debugId: text(body.debug_id) ?? headerDebugId,
    transient: status >= 500 || status === 429,
    duplicateBatch,
    existingBatchId: existingBatchId && decodeURIComponent(existingBatchId),
  });
}
