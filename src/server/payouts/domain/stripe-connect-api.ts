/**
 * Cash out to a referrer's Stripe Connect Express account: the Stripe requests it takes, through the
 * official `stripe` package, and the verification of the Connect endpoint's signed events. The payout
 * runs, their outbox and the sender loop are elsewhere; this module keeps no state but its clients.
 *
 * - An Express account is made with controller properties, as the pinned API version (Stripe.API_VERSION)
 *   documents them in place of the deprecated `type=express`: the Express Dashboard, Stripe collecting the
 *   requirements (its hosted onboarding), the platform paying Stripe's fees and liable for negative balances
 *   (`controller.losses.payments=application` requires `controller.fees.payer=application`). Only the
 *   `transfers` capability is requested: the account receives money and takes no payments.
 * - Onboarding is Stripe's hosted flow, reached by a single-use account link (type account_onboarding)
 *   that expires minutes after it is made: make one each time the referrer is sent there.
 * - A transfer moves money from the platform's balance to the account; Stripe refuses it (400
 *   insufficient_capabilities_for_transfer) until the account's transfers capability is active.
 *
 * Every POST that makes something carries the caller's idempotency key: the same on every attempt, so that
 * after a lost answer the retry gets what Stripe made the first time. (The package also retries a closed
 * connection once by itself, with that same key, even with retries off.) Errors are classified as
 * stripe-payouts.ts does: transient ones are retried by the caller, the others need a person.
 */
import Stripe from 'stripe';
import { StripeClients, type StripeApiTarget } from '../../kernel/stripe-clients.js';

/** What Refkit reads of an account, from the API or from an account.updated event's data.object. */
export interface ConnectAccountState {
  id: string;
  /** Stripe can pay the account's balance out to its bank. */
  payoutsEnabled: boolean;
  /** Transfers to the account are accepted (its transfers capability is active). */
  transfersActive: boolean;
  /** The referrer finished Stripe's onboarding form (requirements may still be under review). */
  detailsSubmitted: boolean;
}

export function accountState(account: Stripe.Account): ConnectAccountState {
  return {
    id: account.id,
    payoutsEnabled: account.payouts_enabled === true,
    transfersActive: account.capabilities?.transfers === 'active',
    detailsSubmitted: account.details_submitted === true,
  };
}

export interface ExpressAccountInput {
  email: string;
  /** ISO 3166-1 alpha-2; Stripe defaults to the platform's country. */
  country?: string;
  /**
   * `recipient` for an account in another country than the platform's (Stripe's cross-border payouts
   * work only under it; it cannot take payments, which a referrer does not). Unset: Stripe's default, `full`.
   */
  serviceAgreement?: 'full' | 'recipient';
  idempotencyKey: string;
  /** refkit_campaign, refkit_participant: to find the participant from Stripe's Dashboard and events. */
  metadata: Record<string, string>;
}

export interface TransferInput {
  /** In the currency's smallest unit (billing/domain/stripe-currency.ts minorUnits). */
  amountMinor: number;
  currency: string;
  destination: string;
  description: string;
  idempotencyKey: string;
  metadata: Record<string, string>;
  /** Groups the transfers of one payout run in Stripe's Dashboard and reports. */
  transferGroup?: string;
}

export class StripeConnectApi {
  readonly #clients: StripeClients;

  constructor(options: { api?: StripeApiTarget | undefined; timeoutMs: number }) {
    this.#clients = new StripeClients(options);
  }

  /** POST /v1/accounts: an Express account requesting the transfers capability. */
  async createExpressAccount(secretKey: string, input: ExpressAccountInput): Promise<{ id: string }> {
    const account = await this.#client(secretKey).accounts.create(
      {
        controller: {
          stripe_dashboard: { type: 'express' },
          requirement_collection: 'stripe',
          fees: { payer: 'application' },
          losses: { payments: 'application' },
        },
        capabilities: { transfers: { requested: true } },
        email: input.email,
        ...(input.country && { country: input.country.toUpperCase() }),
        ...(input.serviceAgreement && { tos_acceptance: { service_agreement: input.serviceAgreement } }),
        metadata: input.metadata,
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: account.id };
  }

  /**
   * POST /v1/account_links type account_onboarding. Links are single-use and short-lived, so none is
   * stored or reused, and no idempotency key is given (the package adds a fresh one). `expiresAt` is in
   * milliseconds, as Refkit's other times are (Stripe answers seconds).
   */
  async createOnboardingLink(secretKey: string, input: { account: string; refreshUrl: string; returnUrl: string }): Promise<{ url: string; expiresAt: number }> {
    const link = await this.#client(secretKey).accountLinks.create({
      account: input.account,
      type: 'account_onboarding',
      refresh_url: input.refreshUrl,
      return_url: input.returnUrl,
    });
    return { url: link.url, expiresAt: link.expires_at * 1000 };
  }

  /** GET /v1/accounts/{id}. */
  async retrieveAccount(secretKey: string, account: string): Promise<ConnectAccountState> {
    return accountState(await this.#client(secretKey).accounts.retrieve(account));
  }

  /** POST /v1/transfers from the platform's balance to the account. */
  async createTransfer(secretKey: string, input: TransferInput): Promise<{ id: string }> {
    const transfer = await this.#client(secretKey).transfers.create(
      {
        amount: input.amountMinor,
        currency: input.currency.toLowerCase(),
        destination: input.destination,
        description: input.description,
        metadata: input.metadata,
        ...(input.transferGroup && { transfer_group: input.transferGroup }),
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: transfer.id };
  }

  #client(key: string): Stripe {
    return this.#clients.for(key);
  }
}

/** How far a signature's time may be from the server's, either way: Stripe's default tolerance. */
const SIGNATURE_TOLERANCE_S = 300;
/** Only verifies signatures (local HMAC): the key is never sent. */
const verifier = new Stripe('sk_refkit_webhooks_only');

/**
 * Verifies one delivery to the Connect webhook endpoint (events of the connected accounts, each naming its
 * account in `event.account`) with that endpoint's signing secret, and answers the event. Throws when the
 * secret is unset, the Stripe-Signature header is missing or does not verify, or it is dated more than the
 * tolerance ahead of this clock (the package refuses only the ones too old), as billing's receiver does.
 */
export function verifyConnectEvent(rawBody: Buffer | string, signature: string | undefined, secret: string): Stripe.Event {
  if (!secret) throw new Error('No Connect webhook signing secret is set');
  if (!signature) throw new Error('The Stripe-Signature header is missing');
  const event = verifier.webhooks.constructEvent(rawBody, signature, secret, SIGNATURE_TOLERANCE_S);
  const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
  if (signedAt * 1000 > Date.now() + SIGNATURE_TOLERANCE_S * 1000) {
    throw new Error(`The Stripe-Signature header is dated more than ${SIGNATURE_TOLERANCE_S / 60} minutes ahead of this server's clock`);
  }
  return event;
}
