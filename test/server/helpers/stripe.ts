/**
 * Stripe's webhook events as the tests send them: envelopes and objects shaped as Stripe documents them,
 * signed by the official `stripe` package with a campaign's signing secret, posted to its endpoint.
 */
import Stripe from 'stripe';

/** The signing secret the tests' campaigns are given. */
export const SECRET = 'whsec_test_refkit_0123456789abcdef';
/** Signs test payloads (generateTestHeaderString is local: the key is never used). */
export const stripe = new Stripe('sk_test_unused');
let n = 0;

/** An event envelope as Stripe sends it (API version, livemode, request ...), around `object`. */
export function event(type: string, object: Record<string, unknown>, id = `evt_${++n}${Date.now()}`) {
  return { id, object: 'event', api_version: '2025-10-29.clover', created: Math.floor(Date.now() / 1000), livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object } };
}

export const checkoutSession = (code: string, email: string, total: number, extra: Record<string, unknown> = {}) => ({
  id: `cs_test_${++n}`,
  object: 'checkout.session',
  mode: 'payment',
  payment_status: 'paid',
  status: 'complete',
  amount_subtotal: total,
  amount_total: total,
  currency: 'usd',
  client_reference_id: code,
  customer: 'cus_ben',
  customer_details: { email, name: 'Ben', address: null, phone: null, tax_exempt: 'none', tax_ids: [] },
  customer_email: null,
  metadata: {},
  payment_intent: `pi_${n}`,
  ...extra,
});

export const invoice = (customer: string, amountPaid: number, extra: Record<string, unknown> = {}) => ({
  id: `in_${++n}`,
  object: 'invoice',
  status: 'paid',
  customer,
  customer_email: 'someone-else@example.com',
  amount_due: amountPaid,
  amount_paid: amountPaid,
  amount_remaining: 0,
  currency: 'usd',
  metadata: {},
  parent: null,
  billing_reason: 'subscription_cycle',
  ...extra,
});

export const charge = (id: string, refunded: number, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'charge',
  amount: 10_000,
  amount_refunded: refunded,
  refunded: refunded === 10_000,
  currency: 'usd',
  customer: 'cus_ben',
  billing_details: { email: null, name: null, phone: null, address: null },
  receipt_email: null,
  metadata: {},
  payment_intent: null,
  ...extra,
});

/** Sends an event to the campaign's Stripe endpoint, signed with `secret` (or the raw header given). */
export async function send(s: { url: string }, campaignId: string, body: unknown, secret: string | null = SECRET) {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (secret !== null) headers['stripe-signature'] = stripe.webhooks.generateTestHeaderString({ payload, secret });
  const res = await fetch(`${s.url}/api/v1/integrations/stripe/${campaignId}`, { method: 'POST', headers, body: payload });
  return { status: res.status, body: (await res.json()) as { outcome?: string; error?: { code: string; message: string } } };
}
