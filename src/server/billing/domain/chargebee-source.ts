/**
 * Chargebee as a payment source (./payment-sources.ts), from Chargebee's webhook and API (v2) reference:
 *
 * - Chargebee signs nothing: a webhook URL is protected with basic authentication, so a delivery is
 *   verified by `Authorization: Basic base64(user:password)` equal to the campaign's chargebeeWebhookAuth
 *   ("user:password"), compared in constant time;
 * - `payment_succeeded`: a payment of `content.transaction.amount` (an integer of the currency's smallest
 *   unit, whole units for zero-decimal currencies) in `content.transaction.currency_code`, of the customer
 *   `content.customer.id` (else the transaction's `customer_id`) and email `content.customer.email`,
 *   referenced by the transaction's `id`. The participant's own code is custom data the shop sets: read from
 *   the customer's `meta_data.refkit_code`, else the subscription's `meta_data.refkit_code`, else the
 *   customer's custom field `cf_refkit_code`;
 * - `payment_refunded`: a refund of `content.transaction.amount`, the refund transaction's, of the payment
 *   it names: `refunded_txn_id` (an online payment refunded), else `reference_transaction_id` (an offline
 *   one refunded or reversed); when neither is given, its customer (or email) names the participant;
 * - once per event `id`. A transaction's `exchange_rate` is the site's reporting rate to its base currency,
 *   not an amount settled: another currency than the campaign's is held.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hundredths } from './stripe-currency.js';
import { invalidSignature, type PaymentSource, type SourceEvent } from './payment-sources.js';

interface ChargebeeMeta {
  meta_data?: Record<string, unknown> | null;
  [customField: `cf_${string}`]: unknown;
}

interface ChargebeeEvent {
  id?: string;
  event_type?: string;
  content?: {
    transaction?: {
      id?: string;
      customer_id?: string | null;
      amount?: number;
      currency_code?: string;
      refunded_txn_id?: string | null;
      reference_transaction_id?: string | null;
    };
    customer?: ChargebeeMeta & { id?: string; email?: string | null };
    subscription?: ChargebeeMeta & { id?: string };
  };
}

const digest = (value: string | Buffer) => createHash('sha256').update(value).digest();

export function verifyChargebee(headers: IncomingHttpHeaders, secret: string): void {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(String(headers.authorization ?? ''));
  if (!match) throw invalidSignature('No Authorization: Basic header (protect the Chargebee webhook URL with basic authentication)');
  // Hashed first: equal lengths for a comparison that takes the same time whatever was sent.
  if (!timingSafeEqual(digest(Buffer.from(match[1]!, 'base64')), digest(secret))) {
    throw invalidSignature("The Authorization header's user and password are not this campaign's chargebeeWebhookAuth");
  }
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

function read(payload: unknown): SourceEvent | undefined {
  const p = payload as ChargebeeEvent;
  const type = p?.event_type;
  if (typeof p?.id !== 'string' || (type !== 'payment_succeeded' && type !== 'payment_refunded')) return undefined;
  const t = p.content?.transaction;
  const customer = p.content?.customer;
  const currency = t?.currency_code;
  const valid = t !== undefined && Number.isSafeInteger(t.amount) && t.amount! >= 0 && typeof currency === 'string' && /^[A-Z]{3}$/.test(currency);
  const code = text(customer?.meta_data?.refkit_code) ?? text(p.content?.subscription?.meta_data?.refkit_code) ?? text(customer?.cf_refkit_code);
  const refunded = type === 'payment_refunded';
  return {
    id: p.id,
    type,
    action: refunded ? 'refund' : 'payment',
    amountCents: valid ? hundredths(t.amount!, currency) : null,
    currency: typeof currency === 'string' ? currency : null,
    email: text(customer?.email),
    code,
    customer: text(customer?.id) ?? text(t?.customer_id),
    reference: refunded ? (text(t?.refunded_txn_id) ?? text(t?.reference_transaction_id)) : text(t?.id),
    ...(!valid && { odd: 'Its content.transaction has no amount (an integer of the smallest unit) and currency_code as Chargebee sends them' }),
  };
}

export const chargebeeSource: PaymentSource = {
  provider: 'chargebee',
  verify: (_body, headers, secret) => verifyChargebee(headers, secret),
  read: (payload) => read(payload),
};
