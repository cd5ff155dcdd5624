/**
 * Segment as a payment source (./payment-sources.ts), from Segment's Webhooks destination, its Track and
 * common-fields spec and its V2 Ecommerce spec:
 *
 * - verified by `X-Signature`: the hex HMAC-SHA1 of the body with the destination's shared secret;
 * - a `track` call `Order Completed`: a payment of `properties.total` (else `properties.revenue`), a decimal
 *   of the currency's major unit (a number, or a string as Segment's own webhook example sends revenue),
 *   rounded to hundredths on its decimal digits, in `properties.currency` (US dollars when it is not set, as
 *   the Track spec says), referenced by `properties.order_id`, of the customer `userId` and the email
 *   `context.traits.email` (else `properties.email`, else `traits.email`). The participant's own code is
 *   `properties.refkit_code`; the order's `properties.coupon` is a discount code, and when it is a
 *   participant's code its owner is the buyer's referrer;
 * - a `track` call `Order Refunded`: a refund of its `properties.total` of `properties.order_id` (the spec
 *   asks only for order_id: one with no total is kept ignored, with why);
 * - once per `messageId`. Segment carries what the site tracked, never an amount settled: another currency
 *   than the campaign's is held.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { invalidSignature, type PaymentSource, type SourceEvent } from './payment-sources.js';

interface SegmentMessage {
  messageId?: string;
  type?: string;
  event?: string;
  userId?: string | null;
  traits?: { email?: unknown } | null;
  context?: { traits?: { email?: unknown } | null } | null;
  properties?: {
    order_id?: unknown;
    total?: unknown;
    revenue?: unknown;
    currency?: unknown;
    coupon?: unknown;
    email?: unknown;
    refkit_code?: unknown;
  } | null;
}

export function verifySegment(body: Buffer, headers: IncomingHttpHeaders, secret: string): void {
  const signature = String(headers['x-signature'] ?? '');
  if (signature === '') throw invalidSignature('No X-Signature header (set the shared secret of the Segment webhook destination)');
  const expected = createHmac('sha1', secret).update(body).digest();
  if (!/^[0-9a-f]{40}$/i.test(signature) || !timingSafeEqual(Buffer.from(signature, 'hex'), expected)) {
    throw invalidSignature("The X-Signature does not verify with this campaign's segmentSharedSecret");
  }
}

/** A decimal amount (a number or its string) as hundredths, rounded half up on its decimal digits; undefined when it is not one. */
export function decimalHundredths(value: unknown): number | undefined {
  let s: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= 1e13) return undefined;
    // The shortest decimal that is this number (19.99, not 19.989999...); an exponent only below 1e-6.
    s = /e/i.test(String(value)) ? value.toFixed(9) : String(value);
  } else if (typeof value === 'string') s = value.trim();
  else return undefined;
  const m = /^(\d{1,13})(?:\.(\d*))?$/.exec(s);
  if (!m) return undefined;
  const fraction = (m[2] ?? '').padEnd(3, '0');
  return Number(m[1]) * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function read(payload: unknown): SourceEvent | undefined {
  const m = payload as SegmentMessage;
  if (typeof m?.messageId !== 'string' || m.type !== 'track' || (m.event !== 'Order Completed' && m.event !== 'Order Refunded')) return undefined;
  const props = m.properties ?? {};
  const refund = m.event === 'Order Refunded';
  const given = refund ? props.total : (props.total ?? props.revenue);
  const amount = decimalHundredths(given);
  const named = props.currency === undefined || props.currency === null ? 'USD' : props.currency;
  const currency = typeof named === 'string' && /^[A-Za-z]{3}$/.test(named) ? named.toUpperCase() : null;
  const missing = given === undefined || given === null;
  const odd =
    refund && missing
      ? 'Order Refunded gives no properties.total: how much was refunded is not known, so nothing is reversed (refund it by hand with refundPayment)'
      : missing
        ? 'Order Completed gives neither properties.total nor properties.revenue: what was paid is not known'
        : amount === undefined
          ? `Its properties.${refund || props.total !== undefined ? 'total' : 'revenue'} is not a decimal amount`
          : currency === null
            ? 'Its properties.currency is not a three-letter currency code'
            : undefined;
  return {
    id: m.messageId,
    type: m.event,
    action: refund ? 'refund' : 'payment',
    amountCents: amount ?? null,
    currency,
    email: text(m.context?.traits?.email) ?? text(props.email) ?? text(m.traits?.email),
    code: refund ? null : text(props.refkit_code),
    referrerCode: refund ? null : text(props.coupon),
    customer: text(m.userId),
    reference: typeof props.order_id === 'number' ? String(props.order_id) : text(props.order_id),
    ...(odd && { odd }),
  };
}

export const segmentSource: PaymentSource = {
  provider: 'segment',
  verify: (body, headers, secret) => verifySegment(body, headers, secret),
  read: (payload) => read(payload),
};
