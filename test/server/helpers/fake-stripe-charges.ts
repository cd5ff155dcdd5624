/**
 * Charges, payment intents and balance transactions of the local stand-in for Stripe's API (./fake-stripe.ts
 * routes to it), from Stripe's API reference, for what a payment settled at in the account's balance currency:
 *
 * - GET /v1/charges/{id}: a charge a test registered with addCharge; `balance_transaction` is its id, or with
 *   expand[]=balance_transaction the balance transaction (amount and currency: what the account's balance got);
 *   a card charge has payment_method_details {type: card, card {brand, last4, fingerprint}};
 * - GET /v1/payment_intents/{id}: the payment intent of such a charge; `latest_charge` is the charge's id, or the
 *   charge with expand[]=latest_charge, and its balance transaction too with expand[]=latest_charge.balance_transaction;
 * - an unknown id is 404 resource_missing; an expansion these do not list is refused as Stripe refuses it.
 */
import { error, type Answer, type FieldSpec, type Handler } from './fake-stripe-connect.js';
import { EXPAND, expansions, type StripeObject } from './fake-stripe-promotions.js';

export const CHARGE_FIELDS: Record<string, FieldSpec> = {
  charge_retrieve: { required: [], optional: [], patterns: [EXPAND] },
  payment_intent_retrieve: { required: [], optional: [], patterns: [EXPAND] },
};

const noSuch = (what: string, id: string) => error(404, 'invalid_request_error', `No such ${what}: '${id}'`, { code: 'resource_missing', param: 'id' });
const ok = (body: unknown): Answer => ({ status: 200, body });

export interface ChargeInput {
  id: string;
  amount: number;
  currency: string;
  payment_intent?: string;
  /** What the account's balance got for it: in the balance currency's smallest unit. */
  settled: { amount: number; currency: string };
  /** Paid by card: the card's fingerprint (payment_method_details.card.fingerprint, the same for every charge of one card). */
  fingerprint?: string;
}

export class FakeCharges {
  readonly charges = new Map<string, StripeObject>();
  readonly balanceTransactions = new Map<string, StripeObject>();
  readonly #intents = new Map<string, string>();

  /** A succeeded charge and its balance transaction (and its payment intent, when given). */
  addCharge(c: ChargeInput): void {
    const txn = `txn_${c.id}`;
    this.balanceTransactions.set(txn, {
      id: txn,
      object: 'balance_transaction',
      amount: c.settled.amount,
      currency: c.settled.currency.toLowerCase(),
      exchange_rate: null,
      fee: 0,
      net: c.settled.amount,
      source: c.id,
      status: 'available',
      type: 'charge',
    });
    this.charges.set(c.id, {
      id: c.id,
      object: 'charge',
      amount: c.amount,
      amount_captured: c.amount,
      amount_refunded: 0,
      balance_transaction: txn,
      currency: c.currency.toLowerCase(),
      paid: true,
      payment_intent: c.payment_intent ?? null,
      status: 'succeeded',
      ...(c.fingerprint && { payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242', fingerprint: c.fingerprint } } }),
    });
    if (c.payment_intent) this.#intents.set(c.payment_intent, c.id);
  }

  route(method: string, path: string): [string, Handler, string | undefined] | undefined {
    if (method !== 'GET') return undefined;
    const [, kind, id] = /^\/v1\/(charges|payment_intents)\/([^/]+)$/.exec(path) ?? [];
    if (!kind || !id) return undefined;
    const pathId = decodeURIComponent(id);
    return kind === 'charges' ? ['charge_retrieve', (f, i) => this.#charge(f, i!), pathId] : ['payment_intent_retrieve', (f, i) => this.#intent(f, i!), pathId];
  }

  #rendered(id: string, expandTxn: boolean): StripeObject | undefined {
    const charge = this.charges.get(id);
    if (!charge) return undefined;
    const out = structuredClone(charge);
    if (expandTxn) out.balance_transaction = structuredClone(this.balanceTransactions.get(String(charge.balance_transaction)));
    return out;
  }

  #charge(f: Record<string, string>, id: string): Answer {
    const expand = expansions(f, ['balance_transaction']);
    if (!Array.isArray(expand)) return expand;
    const charge = this.#rendered(id, expand.includes('balance_transaction'));
    return charge ? ok(charge) : noSuch('charge', id);
  }

  #intent(f: Record<string, string>, id: string): Answer {
    const expand = expansions(f, ['latest_charge', 'latest_charge.balance_transaction']);
    if (!Array.isArray(expand)) return expand;
    const chargeId = this.#intents.get(id);
    if (!chargeId) return noSuch('payment_intent', id);
    const charge = this.charges.get(chargeId)!;
    // Expanding the nested field expands the charge on its way, as Stripe does.
    const latest = expand.length > 0 ? this.#rendered(chargeId, expand.includes('latest_charge.balance_transaction')) : chargeId;
    return ok({ id, object: 'payment_intent', amount: charge.amount, amount_received: charge.amount, currency: charge.currency, latest_charge: latest, status: 'succeeded' });
  }
}
