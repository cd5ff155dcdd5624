/**
 * What a Stripe payment settled at in the account's balance currency: its charge's balance transaction (the
 * amount the balance got, before fees), read with the campaign's stripeRewardKey (it needs read access to
 * Charges and Payment intents). A payment, refund or dispute in another currency than the campaign's is
 * converted at that charge's ratio when the balance currency is the campaign's (./exchange-rates.ts);
 * without the key, or when Stripe cannot be read, there is no settled amount and the account's rates (or
 * a hold) decide. The same charge tells the card a payment was made with (self-referral by payment:
 * ../../fraud/domain/payment-marks.ts).
 */
import type Stripe from 'stripe';
import type { CampaignRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { StripeClients, stripeApiTarget } from '../../kernel/stripe-clients.js';
import { hundredths } from './stripe-currency.js';

const TIMEOUT_MS = 10_000;
/** By STRIPE_API_URL: the clients of each target, one per key (a reading retries once by itself). */
const targets = new Map<string, StripeClients>();

function client(ctx: Ctx, key: string): Stripe {
  const url = ctx.payouts?.stripeApiUrl ?? '';
  let clients = targets.get(url);
  if (!clients) targets.set(url, (clients = new StripeClients({ api: stripeApiTarget(url), timeoutMs: TIMEOUT_MS, maxNetworkRetries: 1 })));
  return clients.for(key);
}

/**
 * The charge of a payment event, read with the campaign's stripeRewardKey (with its balance transaction when
 * `balance`); undefined without the key or when Stripe cannot be read (no permission, unreachable).
 */
export async function stripeCharge(ctx: Ctx, campaign: CampaignRow, e: { charge: string | null; payment_intent: string | null }, balance: boolean): Promise<Stripe.Charge | undefined> {
  const key = campaign.stripe_reward_key;
  if (key === null || (!e.charge && !e.payment_intent)) return undefined;
  try {
    const stripe = client(ctx, key);
    const charge = e.charge
      ? await stripe.charges.retrieve(e.charge, balance ? { expand: ['balance_transaction'] } : {})
      : ((await stripe.paymentIntents.retrieve(e.payment_intent!, { expand: [balance ? 'latest_charge.balance_transaction' : 'latest_charge'] })).latest_charge as Stripe.Charge | string | null);
    return charge && typeof charge !== 'string' ? charge : undefined;
  } catch {
    // Not read: the account's rates (or a hold) decide its currency, and its card is not known.
    return undefined;
  }
}

/** The amount, in hundredths of the balance currency, that `cents` of the charge's currency came to; undefined when its balance transaction was not read. */
export function settlementOf(charge: Stripe.Charge | undefined, cents: number): { cents: number; currency: string } | undefined {
  const txn = charge?.balance_transaction;
  if (!charge || !txn || typeof txn === 'string' || charge.amount <= 0) return undefined;
  const ratio = hundredths(txn.amount, txn.currency) / hundredths(charge.amount, charge.currency);
  return { cents: Math.round(cents * ratio), currency: txn.currency.toUpperCase() };
}

/** The fingerprint of the card a charge was paid with, when it was a card. */
export const cardOf = (charge: Stripe.Charge | undefined): string | null => charge?.payment_method_details?.card?.fingerprint ?? null;
