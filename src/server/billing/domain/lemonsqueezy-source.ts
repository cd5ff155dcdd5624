/**
 * Lemon Squeezy as a payment source (./payment-sources.ts), from Lemon Squeezy's webhook reference:
 *
 * - verified by `X-Signature`: the hex HMAC-SHA256 of the raw body with the webhook's signing secret;
 * - the event is named by `meta.event_name` (in the signed body; the `X-Event-Name` header when it has none),
 *   its data a JSON:API resource whose amounts are integers in cents of its `currency`, each with a `_usd` twin
 *   (what it came to in USD, which converts it for a campaign whose rewards are in USD); the participant's own
 *   code is `meta.custom_data.refkit_code`, the email `user_email`, the customer `customer_id`;
 * - `order_created` with `status: paid`: a payment of the order's `total`;
 * - `subscription_payment_success`: a payment of the subscription invoice's `total` (but the `initial` invoice's:
 *   its checkout's order_created has it already);
 * - `order_refunded`: a refund whose `refunded_amount` is the running total of the order's refunds, each event
 *   taking the part not taken yet;
 * - the payloads carry no event id: a payment is applied once per order or invoice, a refund once per order and
 *   `updated_at`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { invalidSignature, type PaymentSource, type SourceEvent } from './payment-sources.js';

interface LemonEvent {
  meta?: { event_name?: string; custom_data?: Record<string, unknown> | null };
  data?: {
    type?: string;
    id?: string | number;
    attributes?: {
      status?: string;
      billing_reason?: string;
      currency?: string;
      total?: number;
      total_usd?: number;
      refunded_amount?: number;
      refunded_amount_usd?: number;
      user_email?: string | null;
      customer_id?: number | string | null;
      updated_at?: string;
    };
  };
}

/** Lemon Squeezy's amount (an integer of cents) as hundredths; undefined when it is not one. */
const centsOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** The `_usd` twin of an amount in another currency: what converts it for a campaign in USD. */
function inUsd(value: unknown, currency: string | undefined): Pick<SourceEvent, 'settled'> {
  const cents = centsOf(value);
  return cents === undefined || currency === 'USD' ? {} : { settled: { cents, currency: 'USD' } };
}

export function verifyLemonSqueezy(body: Buffer, headers: IncomingHttpHeaders, secret: string): void {
  const signature = headers['x-signature'];
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) throw invalidSignature('No X-Signature header (the hex HMAC-SHA256 of the body)');
  const expected = createHmac('sha256', secret).update(body).digest();
  if (!timingSafeEqual(Buffer.from(signature, 'hex'), expected)) throw invalidSignature("The X-Signature does not verify with this campaign's lemonSqueezyWebhookSecret");
}

function read(payload: unknown, headers: IncomingHttpHeaders): SourceEvent | undefined {
  const p = payload as LemonEvent;
  const header = headers['x-event-name'];
  const type = p?.meta?.event_name ?? (typeof header === 'string' ? header : undefined);
  const d = p?.data;
  const a = d?.attributes;
  if (typeof type !== 'string' || !a || (typeof d?.id !== 'string' && typeof d?.id !== 'number')) return undefined;
  const id = String(d.id);
  const code = p.meta?.custom_data?.refkit_code;
  const currency = typeof a.currency === 'string' && /^[A-Z]{3}$/.test(a.currency) ? a.currency : undefined;
  const base = {
    type,
    currency: currency ?? null,
    email: typeof a.user_email === 'string' ? a.user_email : null,
    customer: a.customer_id === null || a.customer_id === undefined ? null : String(a.customer_id),
    code: typeof code === 'string' ? code : null,
  };
  if (type === 'order_created' || type === 'subscription_payment_success') {
    const invoice = type === 'subscription_payment_success';
    if (invoice && a.billing_reason === 'initial') return undefined;
    const amount = currency === undefined ? undefined : centsOf(a.total);
    return {
      ...base,
      // An order or an invoice is paid once, however often its event is sent.
      id: `${type}:${id}`,
      action: 'payment',
      amountCents: amount ?? null,
      ...inUsd(a.total_usd, currency),
      // Ids are counted per resource type: an invoice's is kept apart from the order of the same number.
      reference: invoice ? `subscription-invoice:${id}` : id,
      ...(a.status !== 'paid' && { odd: `The ${invoice ? 'invoice' : 'order'} is ${a.status ?? 'of no status'}, not paid` }),
      ...(a.status === 'paid' && amount === undefined && { odd: 'Its total or currency is not an amount Lemon Squeezy sends' }),
    };
  }
  if (type === 'order_refunded') {
    const amount = currency === undefined ? undefined : centsOf(a.refunded_amount);
    return {
      ...base,
      id: `${type}:${id}:${a.updated_at ?? a.refunded_amount}`,
      action: 'refund',
      amountCents: amount ?? null,
      ...inUsd(a.refunded_amount_usd, currency),
      reference: id,
      refundIsTotal: true,
      ...(amount === undefined && { odd: 'Its refunded_amount or currency is not an amount Lemon Squeezy sends' }),
    };
  }
  return undefined;
}

export const lemonSqueezySource: PaymentSource = {
  provider: 'lemonsqueezy',
  verify: (body, headers, secret) => verifyLemonSqueezy(body, headers, secret),
  read: (payload, headers) => read(payload, headers),
};
