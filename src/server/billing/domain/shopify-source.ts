/**
 * Shopify as a payment source (./payment-sources.ts), from Shopify's webhook reference:
 *
 * - verified by `X-Shopify-Hmac-Sha256`: the base64 HMAC-SHA256 of the raw body with the app's client secret;
 *   `X-Shopify-Topic` names the event; amounts are decimal strings ("49.99"), read exactly as hundredths;
 * - `orders/paid`: a payment of the order's `current_total_price_set` (else `total_price_set`), whose
 *   `presentment_money` is what the buyer paid in their currency and `shop_money` the same in the shop's, which
 *   converts it when that is the campaign's (without the sets: `current_total_price` or `total_price`, in the
 *   shop's `currency`). The participant's own code is the note attribute `refkit_code`; a participant's code
 *   among the order's `discount_codes` makes the buyer their referee; the email is `email` or the customer's;
 * - `refunds/create`: a refund of its successful `refund` transactions, of the order `order_id`; when they are in
 *   another currency than the shop's, converted with the shop money of its refunded line items (subtotal and
 *   tax), when those come to the transactions' amount exactly;
 * - once per paid order and per refund: their ids are in the signed body, where X-Shopify-Webhook-Id, a header
 *   the HMAC does not cover, would let a captured delivery be applied again under another id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { invalidSignature, type PaymentSource, type SourceEvent } from './payment-sources.js';

interface Money {
  amount?: string | number;
  currency_code?: string;
}

interface MoneySet {
  shop_money?: Money;
  presentment_money?: Money;
}

type Id = number | string | null | undefined;

interface ShopifyOrder {
  id?: Id;
  admin_graphql_api_id?: string;
  email?: string | null;
  financial_status?: string | null;
  currency?: string;
  current_total_price?: string;
  total_price?: string;
  current_total_price_set?: MoneySet | null;
  total_price_set?: MoneySet | null;
  note_attributes?: { name?: string; value?: unknown }[] | null;
  discount_codes?: { code?: string }[] | null;
  customer?: { id?: Id; admin_graphql_api_id?: string; email?: string | null } | null;
}

interface ShopifyRefund {
  id?: Id;
  admin_graphql_api_id?: string;
  order_id?: Id;
  transactions?: { kind?: string; status?: string; amount?: string | number; currency?: string }[] | null;
  refund_line_items?: { subtotal_set?: MoneySet | null; total_tax_set?: MoneySet | null }[] | null;
}

/**
 * Shopify's ids are 64-bit: one JSON.parse rounded is read from its admin_graphql_api_id instead. A resource
 * whose admin_graphql_api_id is another kind's (a refund posted as an order) has none.
 */
function idOf(id: Id, gid?: string, kind?: string): string | null {
  if (kind && typeof gid === 'string' && !gid.startsWith(`gid://shopify/${kind}/`)) return null;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  if (typeof id === 'string' && /^\d+$/.test(id)) return id;
  return /\/(\d+)$/.exec(typeof gid === 'string' ? gid : '')?.[1] ?? null;
}

/** A decimal amount ("49.99", "1000", "12.345") as hundredths, three-decimal ones rounded as ./stripe-currency.ts does. */
function hundredthsOf(value: unknown): number | undefined {
  const m = /^(\d{1,12})(?:\.(\d{1,3}))?$/.exec(typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '');
  return m ? Math.round((Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0'))) / 10) : undefined;
}

function moneyOf(m: Money | null | undefined): { cents: number; currency: string } | undefined {
  const cents = hundredthsOf(m?.amount);
  return cents !== undefined && typeof m?.currency_code === 'string' && /^[A-Z]{3}$/.test(m.currency_code) ? { cents, currency: m.currency_code } : undefined;
}

/** The sum of amounts all in one currency; undefined when one is not an amount, or two currencies differ. */
function sum(amounts: ({ cents: number; currency: string } | undefined)[]): { cents: number; currency: string } | undefined {
  if (amounts.length === 0 || amounts.some((a) => a === undefined || a.currency !== amounts[0]!.currency)) return undefined;
  return { cents: amounts.reduce((total, a) => total + a!.cents, 0), currency: amounts[0]!.currency };
}

export function verifyShopify(body: Buffer, headers: IncomingHttpHeaders, secret: string): void {
  const signature = headers['x-shopify-hmac-sha256'];
  if (typeof signature !== 'string' || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) throw invalidSignature('No X-Shopify-Hmac-Sha256 header (the base64 HMAC-SHA256 of the body)');
  const expected = createHmac('sha256', secret).update(body).digest();
  if (!timingSafeEqual(Buffer.from(signature, 'base64'), expected)) throw invalidSignature("The X-Shopify-Hmac-Sha256 does not verify with this campaign's shopifyWebhookSecret");
}

function paid(o: ShopifyOrder): SourceEvent | undefined {
  const id = idOf(o.id, o.admin_graphql_api_id, 'Order');
  if (id === null) return undefined;
  const set = o.current_total_price_set ?? o.total_price_set;
  const shop = moneyOf(set?.shop_money);
  const amount = moneyOf(set?.presentment_money) ?? shop ?? moneyOf({ amount: o.current_total_price ?? o.total_price, currency_code: o.currency });
  const code = o.note_attributes?.find((a) => a?.name === 'refkit_code')?.value;
  const discount = o.discount_codes?.find((d) => typeof d?.code === 'string' && d.code !== '')?.code;
  const status = o.financial_status ?? 'paid';
  return {
    id: `order:${id}:paid`,
    type: 'orders/paid',
    action: 'payment',
    amountCents: amount?.cents ?? null,
    currency: amount?.currency ?? null,
    ...(shop && { settled: shop }),
    email: o.email || o.customer?.email || null,
    code: typeof code === 'string' ? code : null,
    referrerCode: discount ?? null,
    customer: idOf(o.customer?.id, o.customer?.admin_graphql_api_id),
    reference: id,
    ...(status !== 'paid' && { odd: `The order is ${status}, not paid` }),
    ...(status === 'paid' && !amount && { odd: 'Its total_price_set or total_price is not an amount Shopify sends' }),
  };
}

function refunded(r: ShopifyRefund): SourceEvent | undefined {
  const id = idOf(r.id, r.admin_graphql_api_id, 'Refund');
  if (id === null) return undefined;
  const done = (r.transactions ?? []).filter((t) => t?.kind === 'refund' && t.status === 'success');
  const amount = sum(done.map((t) => moneyOf({ amount: t.amount, currency_code: t.currency })));
  const items = (r.refund_line_items ?? []).flatMap((i) => [i?.subtotal_set, i?.total_tax_set]);
  const shown = sum(items.map((s) => moneyOf(s?.presentment_money)));
  const shop = sum(items.map((s) => moneyOf(s?.shop_money)));
  const settles = shop && amount && shown?.currency === amount.currency && shown.cents === amount.cents;
  return {
    id: `refund:${id}`,
    type: 'refunds/create',
    action: 'refund',
    amountCents: amount?.cents ?? null,
    currency: amount?.currency ?? null,
    ...(settles && { settled: shop }),
    email: null,
    code: null,
    customer: null,
    reference: idOf(r.order_id),
    ...(!amount && { odd: done.length === 0 ? 'No refund transaction of it succeeded: nothing was refunded' : 'Its refund transactions are not amounts of one currency' }),
  };
}

function read(payload: unknown, headers: IncomingHttpHeaders): SourceEvent | undefined {
  const topic = headers['x-shopify-topic'];
  if (typeof payload !== 'object' || payload === null) return undefined;
  if (topic === 'orders/paid') return paid(payload as ShopifyOrder);
  if (topic === 'refunds/create') return refunded(payload as ShopifyRefund);
  return undefined;
}

export const shopifySource: PaymentSource = {
  provider: 'shopify',
  verify: (body, headers, secret) => verifyShopify(body, headers, secret),
  read: (payload, headers) => read(payload, headers),
};
