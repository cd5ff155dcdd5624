/**
 * Paddle Billing as a payment source (./payment-sources.ts), from Paddle's webhook reference:
 *
 * - verified by `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<raw body>">` with the
 *   notification destination's secret key (several h1 may be given while a key rotates: one must match),
 *   within five minutes either way;
 * - `transaction.completed`: a payment of `details.totals.total` in `currency_code` (amounts are strings in
 *   the currency's smallest unit), the participant's code in `custom_data.refkit_code`, and what Paddle pays
 *   out for it in the balance currency (`details.payout_totals`), which converts it when that is the campaign's;
 * - `adjustment.created` / `adjustment.updated` with `status: approved` and `action: refund` (or
 *   `chargeback`, money already taken back): a refund of `totals.total` of its `transaction_id`, once per
 *   adjustment however many events say it is approved;
 * - once per `event_id` otherwise. Transactions carry no email: the participant is found by their code, or
 *   the customer an earlier event tied to them (match the first by hand when neither is known).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hundredths } from './stripe-currency.js';
import { invalidSignature, type PaymentSource, type SourceEvent } from './payment-sources.js';

const TOLERANCE_S = 300;

interface PaddleTotals {
  total?: string;
  currency_code?: string;
}

interface PaddleEvent {
  event_id?: string;
  event_type?: string;
  data?: {
    id?: string;
    status?: string;
    action?: string;
    customer_id?: string | null;
    currency_code?: string;
    transaction_id?: string;
    custom_data?: Record<string, unknown> | null;
    details?: { totals?: PaddleTotals; payout_totals?: PaddleTotals | null } | null;
    totals?: PaddleTotals;
    payout_totals?: PaddleTotals | null;
  };
}

/** Paddle's amount (a string of the smallest unit) as hundredths; undefined when it is not one. */
function amountOf(value: string | undefined, currency: string | undefined): number | undefined {
  if (value === undefined || currency === undefined || !/^\d{1,15}$/.test(value) || !/^[A-Z]{3}$/.test(currency)) return undefined;
  return hundredths(Number(value), currency);
}

export function verifyPaddle(body: Buffer, headers: IncomingHttpHeaders, secret: string, now = Date.now()): void {
  const header = String(headers['paddle-signature'] ?? '');
  const parts = header.split(';').map((p) => p.split('=') as [string, string?]);
  const ts = parts.find(([k]) => k === 'ts')?.[1];
  const signatures = parts.filter(([k]) => k === 'h1').map(([, v]) => v ?? '');
  if (!ts || !/^\d+$/.test(ts) || signatures.length === 0) throw invalidSignature('No Paddle-Signature header of the form ts=...;h1=...');
  if (Math.abs(now / 1000 - Number(ts)) > TOLERANCE_S) throw invalidSignature(`The Paddle-Signature is dated more than ${TOLERANCE_S / 60} minutes from this server's clock`);
  const expected = createHmac('sha256', secret).update(`${ts}:`).update(body).digest();
  const ok = signatures.some((h) => /^[0-9a-f]{64}$/i.test(h) && timingSafeEqual(Buffer.from(h, 'hex'), expected));
  if (!ok) throw invalidSignature("The Paddle-Signature does not verify with this campaign's paddleWebhookSecret");
}

function read(payload: unknown): SourceEvent | undefined {
  const p = payload as PaddleEvent;
  const type = p?.event_type;
  const d = p?.data;
  if (typeof p?.event_id !== 'string' || typeof type !== 'string' || !d) return undefined;
  const base = { id: p.event_id, type, email: null, customer: d.customer_id ?? null, code: null, reference: null, amountCents: null, currency: null };
  if (type === 'transaction.completed') {
    const totals = d.details?.totals;
    const amount = amountOf(totals?.total, d.currency_code);
    const payout = d.details?.payout_totals;
    const settled = amountOf(payout?.total, payout?.currency_code);
    const code = d.custom_data?.refkit_code;
    return {
      ...base,
      action: 'payment',
      amountCents: amount ?? null,
      currency: d.currency_code ?? null,
      ...(settled !== undefined && { settled: { cents: settled, currency: payout!.currency_code! } }),
      code: typeof code === 'string' ? code : null,
      reference: d.id ?? null,
      ...(amount === undefined && { odd: 'Its details.totals.total or currency_code is not an amount Paddle sends' }),
    };
  }
  if (type === 'adjustment.created' || type === 'adjustment.updated') {
    if (d.action !== 'refund' && d.action !== 'chargeback') return undefined;
    const amount = amountOf(d.totals?.total, d.currency_code);
    const payout = d.payout_totals;
    const settled = amountOf(payout?.total, payout?.currency_code);
    const approved = d.status === 'approved';
    return {
      ...base,
      // An approved adjustment is applied once, whichever of its events says so first.
      id: approved ? `adjustment:${d.id}:approved` : p.event_id,
      action: approved ? 'refund' : null,
      amountCents: amount ?? null,
      currency: d.currency_code ?? null,
      ...(settled !== undefined && { settled: { cents: settled, currency: payout!.currency_code! } }),
      reference: d.transaction_id ?? null,
      ...(!approved && { odd: `The ${d.action} is ${d.status ?? 'not approved'}: applied when Paddle approves it` }),
      ...(approved && amount === undefined && { odd: 'Its totals.total or currency_code is not an amount Paddle sends' }),
    };
  }
  return undefined;
}

export const paddleSource: PaymentSource = {
  provider: 'paddle',
  verify: (body, headers, secret) => verifyPaddle(body, headers, secret),
  read: (payload) => read(payload),
};
