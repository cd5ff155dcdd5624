/**
 * The coupons, promotion codes and invoices of the local stand-in for Stripe's API (./fake-stripe.ts routes to
 * them; they share that file's key, version, form, idempotency and failure handling). Written from Stripe's API
 * reference and the installed `stripe` package's types (Coupons.d.ts, PromotionCodes.d.ts, Invoices.d.ts,
 * Discounts.d.ts) for the API version that package pins:
 *
 * - POST /v1/coupons: exactly one of amount_off (a positive integer, with currency) and percent_off (above 0,
 *   at most 100, two decimals at most); duration once (the default), repeating (which needs
 *   duration_in_months, a positive integer no other duration takes) or forever; name? (40 characters at
 *   most), max_redemptions?, redeem_by? (in the future, five years at most), id? (one that exists is 400
 *   resource_already_exists), metadata[...]?. Answers a `coupon` (percent_off, amount_off, currency null
 *   where not set). A currency beside percent_off is taken and not kept, as the object documents currency
 *   only for amount_off (the reference says nothing of a refusal).
 * - GET /v1/coupons/{id}: the coupon, else 404 resource_missing.
 * - POST /v1/promotion_codes: promotion[type]=coupon and promotion[coupon] (an existing coupon), customer? (an
 *   existing customer), code? (letters, digits and dashes, 500 at most; else 8 generated), active?,
 *   expires_at? (in the future, not past the coupon's redeem_by), max_redemptions? (not above the coupon's),
 *   restrictions[first_time_transaction|minimum_amount|minimum_amount_currency]? (the amount and its currency
 *   together), restrictions[currency_options][<cur>][minimum_amount]? (not the minimum_amount_currency),
 *   metadata[...]?. An active code must be unique, regardless of case, as #duplicate says.
 * - POST /v1/promotion_codes/{id}: active?, metadata[...]? (merged: an empty value unsets a key, an empty
 *   `metadata` all of them), restrictions[currency_options][<cur>][minimum_amount]?; reactivating a code whose
 *   text is active elsewhere is the same duplicate error; an unknown id is 404 resource_missing.
 * - GET /v1/promotion_codes/{id} (expand[]=promotion.coupon), and GET /v1/promotion_codes with code (regardless
 *   of case), active, coupon, customer, limit (1 to 100, 10 by default), starting_after: a `list`, newest first.
 * - GET /v1/invoices/{id}: an invoice a test registered with addInvoice, else 404 resource_missing. Its
 *   `discounts` are ids; with expand[]=discounts each one registered with addDiscount is replaced by its
 *   `discount` (expand[]=discounts.promotion_code and discounts.source.coupon go one level further).
 * A GET's query takes only `expand[]` besides its documented filters; an expansion none of these lists is
 * refused as Stripe refuses it ("This property cannot be expanded").
 */
import { randomBytes } from 'node:crypto';
import { type Answer, error, type FieldSpec, type Handler, metadataOf, now, randomId } from './fake-stripe-connect.js';

export type StripeObject = Record<string, unknown>;

export const EXPAND = /^expand\[\d+\]$/;
const CURRENCY_OPTION = /^restrictions\[currency_options\]\[([a-z]{3})\]\[minimum_amount\]$/;
const FIVE_YEARS = 5 * 365 * 86_400;

export const PROMOTION_FIELDS: Record<string, FieldSpec> = {
  coupon: { required: [], optional: ['amount_off', 'currency', 'percent_off', 'duration', 'duration_in_months', 'max_redemptions', 'name', 'id', 'redeem_by'] },
  promotion: {
    required: ['promotion[type]', 'promotion[coupon]'],
    optional: ['customer', 'code', 'max_redemptions', 'active', 'expires_at', 'restrictions[first_time_transaction]', 'restrictions[minimum_amount]', 'restrictions[minimum_amount_currency]'],
    patterns: [CURRENCY_OPTION],
  },
  promotion_update: { required: [], optional: ['active', 'metadata'], patterns: [CURRENCY_OPTION] },
  coupon_retrieve: { required: [], optional: [], patterns: [EXPAND] },
  promotion_retrieve: { required: [], optional: [], patterns: [EXPAND] },
  promotion_list: { required: [], optional: ['active', 'code', 'coupon', 'customer', 'limit', 'starting_after'], patterns: [EXPAND] },
  invoice_retrieve: { required: [], optional: [], patterns: [EXPAND] },
};

const invalid = (message: string, param: string, code?: string) => error(400, 'invalid_request_error', message, { param, ...(code && { code }) });
const missing = (param: string) => invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
const noSuch = (what: string, id: string) => error(404, 'invalid_request_error', `No such ${what}: '${id}'`, { code: 'resource_missing', param: 'id' });
/** An answer: a copy, so that a stored (replayed) answer keeps what was answered when the state changes later. */
const ok = (body: unknown): Answer => ({ status: 200, body: structuredClone(body) });
const isPositiveInteger = (v: string | undefined) => v !== undefined && /^\d+$/.test(v) && Number(v) > 0;
const isCurrency = (v: string | undefined) => v !== undefined && /^[a-z]{3}$/i.test(v);
/** The first of `names` that is given and neither `true` nor `false`. */
const badBoolean = (f: Record<string, string>, names: string[]) => names.find((n) => f[n] !== undefined && f[n] !== 'true' && f[n] !== 'false');
const copy = <T>(value: T): T => structuredClone(value);

/** What a GET's `expand[n]` fields ask for, or Stripe's refusal of one this endpoint cannot expand. */
export function expansions(f: Record<string, string>, allowed: string[]): string[] | Answer {
  const asked = Object.entries(f).filter(([k]) => EXPAND.test(k)).map(([, v]) => v);
  const other = asked.find((path) => !allowed.includes(path));
  return other === undefined ? asked : invalid(`This property cannot be expanded (${other}).`, 'expand');
}

/** A timestamp field that must lie ahead (and at most five years ahead): Stripe's refusal, or undefined. */
function futureError(f: Record<string, string>, name: string): Answer | undefined {
  const value = f[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) return invalid(`Invalid integer: ${value}`, name);
  if (Number(value) <= now()) return invalid(`The parameter \`${name}\` expects a unix timestamp representing a date and time in the future. You specified the value \`${value}\` which is in the past.`, name);
  if (Number(value) > now() + FIVE_YEARS) return invalid('Invalid timestamp: can be no more than five years in the future.', name);
  return undefined;
}

export class FakePromotions {
  readonly coupons = new Map<string, StripeObject>();
  readonly promotionCodes = new Map<string, StripeObject>();
  /** Invoices and discounts a test registered (Stripe makes them; this stand-in only answers them). */
  readonly invoices = new Map<string, StripeObject>();
  readonly discounts = new Map<string, StripeObject>();
  readonly #customers: Map<string, number>;

  constructor(customers: Map<string, number>) {
    this.#customers = customers;
  }

  /** An invoice as Stripe would answer it (`discounts` a list of discount ids, say); GET /v1/invoices/{id} answers it. */
  addInvoice(invoice: StripeObject & { id: string }): void {
    this.invoices.set(invoice.id, { object: 'invoice', discounts: [], ...copy(invoice) });
  }

  /**
   * A discount (di_...) an invoice's `discounts` may name: Stripe's Discount object of the pinned version, its
   * coupon under `source` (given as `coupon`, or taken from the promotion code), the rest null unless given.
   */
  addDiscount(discount: { id: string; coupon?: string; promotion_code?: string | null } & StripeObject): StripeObject {
    const { coupon, ...rest } = copy(discount);
    const promotion = typeof rest.promotion_code === 'string' ? this.promotionCodes.get(rest.promotion_code) : undefined;
    const source = coupon ?? (promotion?.promotion as { coupon?: string } | undefined)?.coupon ?? null;
    const made: StripeObject = {
      object: 'discount',
      checkout_session: null,
      customer: null,
      customer_account: null,
      end: null,
      invoice: null,
      invoice_item: null,
      promotion_code: null,
      source: { coupon: source, type: 'coupon' },
      start: now(),
      subscription: null,
      subscription_item: null,
      ...rest,
    };
    this.discounts.set(discount.id, made);
    return made;
  }

  route(method: string, path: string): [string, Handler, string | undefined] | undefined {
    const [, kind, id, extra] = /^\/v1\/(coupons|promotion_codes|invoices)(?:\/([^/]+))?(\/.*)?$/.exec(path) ?? [];
    if (!kind || extra !== undefined) return undefined;
    const pathId = id === undefined ? undefined : decodeURIComponent(id);
    if (method === 'POST') {
      if (kind === 'coupons' && pathId === undefined) return ['coupon', (f) => this.#createCoupon(f), undefined];
      if (kind === 'promotion_codes') return pathId === undefined ? ['promotion', (f) => this.#createPromotionCode(f), undefined] : ['promotion_update', (f, i) => this.#updatePromotionCode(f, i!), pathId];
      return undefined;
    }
    if (method !== 'GET') return undefined;
    if (kind === 'promotion_codes' && pathId === undefined) return ['promotion_list', (f) => this.#listPromotionCodes(f), undefined];
    if (pathId === undefined) return undefined;
    if (kind === 'coupons') return ['coupon_retrieve', (f, i) => this.#retrieveCoupon(f, i!), pathId];
    if (kind === 'promotion_codes') return ['promotion_retrieve', (f, i) => this.#retrievePromotionCode(f, i!), pathId];
    return ['invoice_retrieve', (f, i) => this.#retrieveInvoice(f, i!), pathId];
  }

  #createCoupon(f: Record<string, string>): Answer {
    if (f.amount_off !== undefined && f.percent_off !== undefined) return invalid('You may only specify one of these parameters: amount_off, percent_off.', 'percent_off');
    if (f.amount_off === undefined && f.percent_off === undefined) return invalid('You must pass either amount_off or percent_off.', 'amount_off', 'parameter_missing');
    if (f.amount_off !== undefined) {
      if (!isPositiveInteger(f.amount_off)) return invalid('Invalid positive integer', 'amount_off');
      if (f.currency === undefined) return missing('currency');
    }
    if (f.currency !== undefined && !isCurrency(f.currency)) return invalid(`Invalid currency: ${f.currency}`, 'currency');
    if (f.percent_off !== undefined) {
      const percent = Number(f.percent_off);
      if (!/^\d+(\.\d{1,2})?$/.test(f.percent_off) || percent <= 0 || percent > 100) {
        return invalid(`Invalid percent_off: ${f.percent_off}. It must be a number greater than 0 and at most 100, with at most two decimal places.`, 'percent_off');
      }
    }
    const duration = f.duration ?? 'once';
    if (!['once', 'repeating', 'forever'].includes(duration)) return invalid(`Invalid duration: must be one of forever, once, or repeating`, 'duration');
    if (duration === 'repeating' && f.duration_in_months === undefined) return missing('duration_in_months');
    if (duration !== 'repeating' && f.duration_in_months !== undefined) return invalid('duration_in_months can only be set when duration is repeating.', 'duration_in_months');
    if (f.duration_in_months !== undefined && !isPositiveInteger(f.duration_in_months)) return invalid('Invalid positive integer', 'duration_in_months');
    if (f.name !== undefined && f.name.length > 40) return invalid('Invalid name: must be at most 40 characters.', 'name');
    if (f.max_redemptions !== undefined && !isPositiveInteger(f.max_redemptions)) return invalid('Invalid positive integer', 'max_redemptions');
    const late = futureError(f, 'redeem_by');
    if (late) return late;
    if (f.id !== undefined && this.coupons.has(f.id)) return invalid('Coupon already exists.', 'id', 'resource_already_exists');
    const coupon = {
      id: f.id ?? randomBytes(6).toString('hex'),
      object: 'coupon',
      amount_off: f.amount_off === undefined ? null : Number(f.amount_off),
      created: now(),
      currency: f.amount_off === undefined ? null : f.currency!.toLowerCase(),
      duration,
      duration_in_months: f.duration_in_months === undefined ? null : Number(f.duration_in_months),
      livemode: false,
      max_redemptions: f.max_redemptions === undefined ? null : Number(f.max_redemptions),
      metadata: metadataOf(f),
      name: f.name ?? null,
      percent_off: f.percent_off === undefined ? null : Number(f.percent_off),
      redeem_by: f.redeem_by === undefined ? null : Number(f.redeem_by),
      times_redeemed: 0,
      valid: true,
    };
    this.coupons.set(coupon.id, coupon);
    return ok(coupon);
  }

  #retrieveCoupon(f: Record<string, string>, id: string): Answer {
    const expand = expansions(f, []);
    if (!Array.isArray(expand)) return expand;
    const coupon = this.coupons.get(id);
    return coupon ? ok(coupon) : noSuch('coupon', id);
  }

  /**
   * Stripe's refusal of an active code that a customer who could redeem `customer`'s code already has active,
   * or undefined. The rule is the one Stripe's guide states ("Using customer-facing promotion codes",
   * stripe.com/docs/billing/subscriptions/discounts/codes): the code is case-insensitive and unique across
   * active promotion codes for any customer; codes restricted to customers may share it, a code any customer
   * can redeem may not share it with any other. The message is Stripe's, as integrations quote it verbatim
   * and match on it ("An active promotion code with `code: X` already exists."); stand-ins recorded against
   * the live API found neither `code` nor `param` on it, so it has none here either.
   */
  #duplicate(code: string, customer: unknown, except?: string): Answer | undefined {
    for (const other of this.promotionCodes.values()) {
      if (other.id === except || other.active !== true || String(other.code).toLowerCase() !== code.toLowerCase()) continue;
      if (other.customer === null || customer === null || other.customer === customer) {
        return error(400, 'invalid_request_error', `An active promotion code with \`code: ${code}\` already exists.`);
      }
    }
    return undefined;
  }

  /** The restrictions[currency_options] fields, or Stripe's refusal of one. */
  #currencyOptions(f: Record<string, string>, minimumCurrency: unknown): { options: Record<string, { minimum_amount: number }>; refusal?: Answer } {
    const options: Record<string, { minimum_amount: number }> = {};
    for (const [name, value] of Object.entries(f)) {
      const currency = CURRENCY_OPTION.exec(name)?.[1];
      if (!currency) continue;
      if (!/^\d+$/.test(value)) return { options, refusal: invalid(`Invalid integer: ${value}`, name) };
      if (currency === minimumCurrency) {
        return { options, refusal: invalid('Each currency in restrictions[currency_options] must be different from the minimum_amount_currency.', name) };
      }
      options[currency] = { minimum_amount: Number(value) };
    }
    return { options };
  }

  #createPromotionCode(f: Record<string, string>): Answer {
    if (f['promotion[type]'] !== 'coupon') return invalid('Invalid promotion[type]: must be coupon', 'promotion[type]');
    const couponId = f['promotion[coupon]']!;
    const coupon = this.coupons.get(couponId);
    if (!coupon) return invalid(`No such coupon: '${couponId}'`, 'promotion[coupon]', 'resource_missing');
    if (f.customer !== undefined && !this.#customers.has(f.customer)) return invalid(`No such customer: '${f.customer}'`, 'customer', 'resource_missing');
    const boolean = badBoolean(f, ['active', 'restrictions[first_time_transaction]']);
    if (boolean) return invalid(`Invalid boolean: ${f[boolean]}`, boolean);
    if (f.code !== undefined) {
      if (f.code.length > 500) return invalid('Invalid code: must be at most 500 characters.', 'code');
      if (!/^[A-Za-z0-9-]+$/.test(f.code)) return invalid(`Invalid code: ${f.code}. Valid characters are lower case letters (a-z), upper case letters (A-Z), digits (0-9), and dashes (-).`, 'code');
    }
    if (f.max_redemptions !== undefined) {
      if (!isPositiveInteger(f.max_redemptions)) return invalid('Invalid positive integer', 'max_redemptions');
      if (coupon.max_redemptions !== null && Number(f.max_redemptions) > Number(coupon.max_redemptions)) {
        return invalid("The promotion code's max_redemptions cannot be greater than its coupon's max_redemptions.", 'max_redemptions');
      }
    }
    const late = futureError(f, 'expires_at');
    if (late) return late;
    if (f.expires_at !== undefined && coupon.redeem_by !== null && Number(f.expires_at) > Number(coupon.redeem_by)) {
      return invalid("The promotion code's expires_at cannot be after its coupon's redeem_by.", 'expires_at');
    }
    const minimum = f['restrictions[minimum_amount]'];
    const minimumCurrency = f['restrictions[minimum_amount_currency]'];
    if (minimum !== undefined && !isPositiveInteger(minimum)) return invalid('Invalid positive integer', 'restrictions[minimum_amount]');
    if (minimum !== undefined && minimumCurrency === undefined) return missing('restrictions[minimum_amount_currency]');
    if (minimumCurrency !== undefined && minimum === undefined) return missing('restrictions[minimum_amount]');
    if (minimumCurrency !== undefined && !isCurrency(minimumCurrency)) return invalid(`Invalid currency: ${minimumCurrency}`, 'restrictions[minimum_amount_currency]');
    const { options, refusal } = this.#currencyOptions(f, minimumCurrency?.toLowerCase());
    if (refusal) return refusal;
    const code = f.code ?? randomBytes(4).toString('hex').toUpperCase();
    const active = f.active !== 'false';
    const customer = f.customer ?? null;
    const duplicate = active ? this.#duplicate(code, customer) : undefined;
    if (duplicate) return duplicate;
    const promotion = {
      id: randomId('promo'),
      object: 'promotion_code',
      active,
      code,
      created: now(),
      customer,
      customer_account: null,
      expires_at: f.expires_at === undefined ? null : Number(f.expires_at),
      livemode: false,
      max_redemptions: f.max_redemptions === undefined ? null : Number(f.max_redemptions),
      metadata: metadataOf(f),
      promotion: { type: 'coupon', coupon: couponId },
      restrictions: {
        currency_options: options,
        first_time_transaction: f['restrictions[first_time_transaction]'] === 'true',
        minimum_amount: minimum === undefined ? null : Number(minimum),
        minimum_amount_currency: minimumCurrency?.toLowerCase() ?? null,
      },
      times_redeemed: 0,
    };
    this.promotionCodes.set(promotion.id, promotion);
    return ok(promotion);
  }

  #updatePromotionCode(f: Record<string, string>, id: string): Answer {
    const promotion = this.promotionCodes.get(id);
    if (!promotion) return noSuch('promotion code', id);
    const boolean = badBoolean(f, ['active']);
    if (boolean) return invalid(`Invalid boolean: ${f[boolean]}`, boolean);
    if (f.metadata !== undefined && f.metadata !== '') return invalid('Invalid object', 'metadata');
    const restrictions = promotion.restrictions as { currency_options: Record<string, unknown>; minimum_amount_currency: string | null };
    const { options, refusal } = this.#currencyOptions(f, restrictions.minimum_amount_currency);
    if (refusal) return refusal;
    if (f.active === 'true' && promotion.active !== true) {
      const duplicate = this.#duplicate(String(promotion.code), promotion.customer, id);
      if (duplicate) return duplicate;
    }
    if (f.active !== undefined) promotion.active = f.active === 'true';
    const metadata = f.metadata === '' ? {} : { ...(promotion.metadata as Record<string, string>) };
    for (const [key, value] of Object.entries(metadataOf(f))) {
      if (value === '') delete metadata[key];
      else metadata[key] = value;
    }
    promotion.metadata = metadata;
    restrictions.currency_options = { ...restrictions.currency_options, ...options };
    return ok(promotion);
  }

  #retrievePromotionCode(f: Record<string, string>, id: string): Answer {
    const expand = expansions(f, ['promotion.coupon']);
    if (!Array.isArray(expand)) return expand;
    const promotion = this.promotionCodes.get(id);
    return promotion ? ok(this.#rendered(promotion, expand.includes('promotion.coupon'))) : noSuch('promotion code', id);
  }

  /** A promotion code as answered: its coupon id, or the coupon when expanded. */
  #rendered(promotion: StripeObject, expandCoupon: boolean): StripeObject {
    const out = copy(promotion);
    const inner = out.promotion as { coupon: unknown };
    if (expandCoupon && typeof inner.coupon === 'string') inner.coupon = copy(this.coupons.get(inner.coupon) ?? inner.coupon);
    return out;
  }

  #listPromotionCodes(f: Record<string, string>): Answer {
    const expand = expansions(f, ['data.promotion.coupon']);
    if (!Array.isArray(expand)) return expand;
    const boolean = badBoolean(f, ['active']);
    if (boolean) return invalid(`Invalid boolean: ${f[boolean]}`, boolean);
    const limit = f.limit === undefined ? 10 : Number(f.limit);
    if (!/^\d+$/.test(f.limit ?? '10') || limit < 1 || limit > 100) return invalid('This value must be greater than or equal to 1 and less than or equal to 100.', 'limit');
    let matching = [...this.promotionCodes.values()].reverse().filter((p) =>
      (f.active === undefined || p.active === (f.active === 'true')) &&
      (f.code === undefined || String(p.code).toLowerCase() === f.code.toLowerCase()) &&
      (f.coupon === undefined || (p.promotion as { coupon: string }).coupon === f.coupon) &&
      (f.customer === undefined || p.customer === f.customer));
    if (f.starting_after !== undefined) {
      const at = matching.findIndex((p) => p.id === f.starting_after);
      if (at < 0) return invalid(`No such promotion code: '${f.starting_after}'`, 'starting_after', 'resource_missing');
      matching = matching.slice(at + 1);
    }
    const data = matching.slice(0, limit).map((p) => this.#rendered(p, expand.includes('data.promotion.coupon')));
    return ok({ object: 'list', data, has_more: matching.length > limit, url: '/v1/promotion_codes' });
  }

  #retrieveInvoice(f: Record<string, string>, id: string): Answer {
    const expand = expansions(f, ['discounts', 'discounts.promotion_code', 'discounts.source.coupon']);
    if (!Array.isArray(expand)) return expand;
    const stored = this.invoices.get(id);
    if (!stored) return noSuch('invoice', id);
    const invoice = copy(stored);
    // Expanding a nested field expands the ones on its way, as Stripe does.
    if (expand.length > 0 && Array.isArray(invoice.discounts)) {
      invoice.discounts = invoice.discounts.map((entry: unknown) => {
        const discount = typeof entry === 'string' ? this.discounts.get(entry) : undefined;
        if (!discount) return entry;
        const out = copy(discount);
        const code = out.promotion_code;
        if (expand.includes('discounts.promotion_code') && typeof code === 'string') out.promotion_code = copy(this.promotionCodes.get(code) ?? code);
        const source = out.source as { coupon: unknown } | undefined;
        if (expand.includes('discounts.source.coupon') && source && typeof source.coupon === 'string') source.coupon = copy(this.coupons.get(source.coupon) ?? source.coupon);
        return out;
      });
    }
    return ok(invoice);
  }
}
