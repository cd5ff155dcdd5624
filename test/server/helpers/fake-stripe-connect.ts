/**
 * The Connect part of the local stand-in for Stripe's API (./fake-stripe.ts routes to it; it shares that
 * file's key, version, form, idempotency and failure handling). Written from Stripe's API reference for
 * the API version the installed `stripe` package pins:
 *
 * - POST /v1/accounts: `controller[...]` (the pinned version's way; the deprecated `type` is taken too,
 *   never both), `capabilities[<name>][requested]`, country?, email?, default_currency?, business_type?,
 *   business_profile[...]?, tos_acceptance[service_agreement]?, metadata[...]?. The controller rules the
 *   reference states are checked: losses.payments=application needs fees.payer=application; the Express
 *   Dashboard needs Stripe collecting requirements, and (in this version) the platform liable for losses;
 *   no Stripe-hosted dashboard needs capabilities; a recipient agreement cannot take card_payments.
 *   It answers an `account`: acct_..., every requested capability inactive, charges_enabled,
 *   payouts_enabled and details_submitted false, requirements currently due.
 * - POST /v1/account_links: account (must exist), type account_onboarding (account_update only for an
 *   account without a Stripe-hosted dashboard), refresh_url, return_url; answers an `account_link` whose url
 *   is this server's /connect/onboard/<acct> and expires_at 300 s after it was made.
 * - GET /v1/accounts/{id}: the account; an unknown one is 403, as Stripe answers a platform for an account
 *   it cannot see.
 * - POST /v1/transfers: amount, currency, destination, description?, metadata[...]?, transfer_group?,
 *   source_transaction?, source_type?; the destination must exist (else 400 resource_missing) and have its
 *   transfers capability active (else 400 insufficient_capabilities_for_transfer); the platform's balance in
 *   that currency must cover it when a test set one (else 400 balance_insufficient). Answers a `transfer`.
 *
 * A referrer's side of onboarding: GET /connect/onboard/<acct> (no key: a browser) completes the account
 * when its latest link is fresh and unused, and redirects to the link's return_url, else to its refresh_url.
 * Tests may instead call completeOnboarding(acct) or restrictAccount(acct), which answer the
 * `account.updated` event Stripe would send the Connect endpoint (also kept in `events`), to be signed
 * with ./stripe.ts's helpers.
 */
import { randomBytes } from 'node:crypto';
import { event } from './stripe.js';

/** The pieces of Stripe's answers, shared with ./fake-stripe.ts. */
export const now = () => Math.floor(Date.now() / 1000);
export const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
export const error = (status: number, type: string, message: string, extra: Record<string, string> = {}) => ({ status, body: { error: { type, message, ...extra } } });
export const metadataOf = (fields: Record<string, string>) =>
  Object.fromEntries(Object.entries(fields).filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice('metadata['.length, -1), v]));

export type Answer = { status: number; body: unknown };
export type Handler = (fields: Record<string, string>, id: string | undefined) => Answer;
/** The form fields an endpoint documents: names, and patterns for nested ones (metadata[...] is always taken). */
export interface FieldSpec {
  required: string[];
  optional: string[];
  patterns?: RegExp[];
}

export const CONNECT_FIELDS: Record<string, FieldSpec> = {
  account: {
    required: [],
    optional: ['type', 'country', 'email', 'default_currency', 'business_type', 'tos_acceptance[service_agreement]',
      'controller[fees][payer]', 'controller[losses][payments]', 'controller[requirement_collection]', 'controller[stripe_dashboard][type]'],
    patterns: [/^capabilities\[[a-z0-9_]+\]\[requested\]$/, /^business_profile\[(mcc|name|product_description|support_email|support_url|url)\]$/],
  },
  account_link: { required: ['account', 'type'], optional: ['refresh_url', 'return_url', 'collect', 'collection_options[fields]', 'collection_options[future_requirements]'] },
  transfer: { required: ['amount', 'currency', 'destination'], optional: ['description', 'transfer_group', 'source_transaction', 'source_type'] },
};

type Capability = 'active' | 'inactive' | 'pending';
const DUE = ['business_type', 'external_account', 'individual.dob.day', 'individual.first_name', 'individual.last_name', 'tos_acceptance.date', 'tos_acceptance.ip'];
const requirements = (due: string[], disabled: string | null) =>
  ({ alternatives: [], current_deadline: null, currently_due: due, disabled_reason: disabled, errors: [], eventually_due: due, past_due: due, pending_verification: [] });
const CURRENCIES: Record<string, string> = { US: 'usd', GB: 'gbp', CA: 'cad', AU: 'aud', DE: 'eur', FR: 'eur', IE: 'eur', NL: 'eur', ES: 'eur', IT: 'eur' };
const invalid = (message: string, param: string, code?: string) => error(400, 'invalid_request_error', message, { param, ...(code && { code }) });
const isUrl = (value: string | undefined) => value !== undefined && /^https?:\/\/[^\s]+$/.test(value);

/** An account as the API renders it (the fields Refkit or a test may read). */
export interface FakeAccount {
  id: string;
  object: 'account';
  business_profile: Record<string, string | null>;
  business_type: string | null;
  capabilities: Record<string, Capability>;
  charges_enabled: boolean;
  controller: { fees: { payer: string }; is_controller: true; losses: { payments: string }; requirement_collection: string; stripe_dashboard: { type: string }; type: 'application' };
  country: string;
  created: number;
  default_currency: string;
  details_submitted: boolean;
  email: string | null;
  external_accounts: { object: 'list'; data: unknown[]; has_more: false; total_count: number; url: string };
  metadata: Record<string, string>;
  payouts_enabled: boolean;
  requirements: ReturnType<typeof requirements>;
  tos_acceptance: { date: number | null; ip: string | null; service_agreement: string; user_agent: string | null };
  type: string;
}

/** An account.updated event as Stripe sends it to a Connect endpoint: the account in the envelope, what changed in previous_attributes. */
export type ConnectEvent = ReturnType<typeof event> & {
  account: string;
  data: { object: FakeAccount & Record<string, unknown>; previous_attributes: Partial<FakeAccount> };
};

interface Link {
  refreshUrl: string;
  returnUrl: string;
  expiresAt: number;
  used: boolean;
}

export class FakeConnect {
  readonly accounts = new Map<string, FakeAccount>();
  readonly transfers = new Map<string, Record<string, unknown>>();
  /** The account.updated events Stripe would have sent the Connect endpoint, oldest first. */
  readonly events: ConnectEvent[] = [];
  readonly #links = new Map<string, Link>();
  readonly #balances = new Map<string, number>();
  readonly #origin: () => string;

  constructor(origin: () => string) {
    this.#origin = origin;
  }

  /** The platform's available balance in `currency` (minor units); transfers past it are refused. Unset: unlimited. */
  setBalance(currency: string, amount: number): void {
    this.#balances.set(currency.toLowerCase(), amount);
  }

  balance(currency: string): number | undefined {
    return this.#balances.get(currency.toLowerCase());
  }

  route(method: string, path: string): [string, Handler, string | undefined] | undefined {
    const account = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET') return account ? ['retrieve', (_f, id) => this.#retrieve(id!), decodeURIComponent(account[1]!)] : undefined;
    if (path === '/v1/accounts') return ['account', (f) => this.#createAccount(f), undefined];
    if (path === '/v1/account_links') return ['account_link', (f) => this.#createLink(f), undefined];
    if (path === '/v1/transfers') return ['transfer', (f) => this.#createTransfer(f), undefined];
    return undefined;
  }

  /** The referrer finished Stripe's form and was verified: transfers and payouts on. Answers Stripe's event. */
  completeOnboarding(id: string) {
    return this.#update(id, (a) => {
      for (const name of Object.keys(a.capabilities)) a.capabilities[name] = 'active';
      a.charges_enabled = a.capabilities.card_payments === 'active';
      a.payouts_enabled = true;
      a.details_submitted = true;
      a.requirements = requirements([], null);
      a.tos_acceptance = { ...a.tos_acceptance, date: now(), ip: '127.0.0.1', user_agent: 'fake-stripe' };
    });
  }

  /** Stripe needs more from the referrer (a past-due requirement): transfers and payouts off. Answers Stripe's event. */
  restrictAccount(id: string, due = ['external_account']) {
    return this.#update(id, (a) => {
      for (const name of Object.keys(a.capabilities)) a.capabilities[name] = 'inactive';
      a.charges_enabled = false;
      a.payouts_enabled = false;
      a.requirements = requirements(due, 'requirements.past_due');
    });
  }

  /** GET /connect/onboard/<acct>: where an account link sends the referrer's browser. */
  onboardingPage(path: string): { status: number; location?: string } | undefined {
    const match = /^\/connect\/onboard\/([^/]+)$/.exec(path);
    if (!match) return undefined;
    const id = decodeURIComponent(match[1]!);
    const link = this.#links.get(id);
    if (!this.accounts.has(id) || !link) return { status: 404 };
    if (link.used || link.expiresAt < now()) return { status: 302, location: link.refreshUrl };
    link.used = true;
    this.completeOnboarding(id);
    return { status: 302, location: link.returnUrl };
  }

  #update(id: string, change: (account: FakeAccount) => void): ConnectEvent {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`fake Stripe: no account ${id}`);
    const before = structuredClone(account);
    change(account);
    const previous = Object.fromEntries(
      Object.entries(before).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(account[k as keyof FakeAccount])),
    );
    // A Connect event names its account in the envelope; data.object is the account as it is now.
    const object = structuredClone(account) as FakeAccount & Record<string, unknown>;
    const sent: ConnectEvent = { ...event('account.updated', object), account: id, data: { object, previous_attributes: previous } };
    this.events.push(sent);
    return sent;
  }

  #retrieve(id: string): Answer {
    const account = this.accounts.get(id);
    if (!account) {
      return error(403, 'invalid_request_error', `The provided key does not have access to account '${id}' (or that account does not exist). Application access may have been revoked.`, { code: 'account_invalid' });
    }
    return { status: 200, body: account };
  }

  #createAccount(f: Record<string, string>): Answer {
    const controlled = Object.keys(f).some((k) => k.startsWith('controller['));
    if (f.type !== undefined && controlled) return invalid('You cannot pass both `type` and `controller`: `type` is deprecated, use `controller`.', 'type');
    if (f.type !== undefined && !['standard', 'express', 'custom'].includes(f.type)) return invalid(`Invalid type: must be one of standard, express, or custom`, 'type');
    // What each legacy type stands for, else the controller given over Stripe's defaults.
    const legacy: Record<string, [string, string, string, string]> = {
      standard: ['account', 'stripe', 'stripe', 'full'],
      express: ['application_express', 'application', 'stripe', 'express'],
      custom: ['application_custom', 'application', 'application', 'none'],
    };
    const [payer, losses, collection, dashboard] = f.type
      ? legacy[f.type]!
      : [f['controller[fees][payer]'] ?? 'account', f['controller[losses][payments]'] ?? 'stripe', f['controller[requirement_collection]'] ?? 'stripe', f['controller[stripe_dashboard][type]'] ?? 'full'];
    if (!f.type) {
      if (!['account', 'application'].includes(payer)) return invalid(`Invalid controller[fees][payer]: ${payer}`, 'controller[fees][payer]');
      if (!['application', 'stripe'].includes(losses)) return invalid(`Invalid controller[losses][payments]: ${losses}`, 'controller[losses][payments]');
      if (!['application', 'stripe'].includes(collection)) return invalid(`Invalid controller[requirement_collection]: ${collection}`, 'controller[requirement_collection]');
      if (!['express', 'full', 'none'].includes(dashboard)) return invalid(`Invalid controller[stripe_dashboard][type]: ${dashboard}`, 'controller[stripe_dashboard][type]');
      if (losses === 'application' && payer !== 'application') return invalid('Setting controller[losses][payments]=application requires controller[fees][payer]=application.', 'controller[fees][payer]');
      if (collection === 'application' && (dashboard !== 'none' || losses !== 'application')) {
        return invalid('controller[requirement_collection]=application requires controller[stripe_dashboard][type]=none and controller[losses][payments]=application.', 'controller[requirement_collection]');
      }
      if (dashboard === 'express' && losses !== 'application') return invalid('An account with the Express Dashboard requires controller[losses][payments]=application in this API version.', 'controller[losses][payments]');
    }
    const capabilities: Record<string, Capability> = {};
    for (const [k, v] of Object.entries(f)) {
      const name = /^capabilities\[([a-z0-9_]+)\]\[requested\]$/.exec(k)?.[1];
      if (!name) continue;
      if (v !== 'true' && v !== 'false') return invalid(`Invalid boolean: ${v}`, k);
      if (v === 'true') capabilities[name] = 'inactive';
    }
    if (dashboard === 'none' && Object.keys(capabilities).length === 0) return invalid('capabilities is required when controller[stripe_dashboard][type] is none.', 'capabilities');
    const agreement = f['tos_acceptance[service_agreement]'] ?? 'full';
    if (!['full', 'recipient'].includes(agreement)) return invalid(`Invalid tos_acceptance[service_agreement]: ${agreement}`, 'tos_acceptance[service_agreement]');
    if (agreement === 'recipient' && capabilities.card_payments) return invalid('Accounts under the recipient service agreement cannot request the card_payments capability.', 'capabilities[card_payments]');
    const country = f.country ?? 'US';
    if (!/^[A-Z]{2}$/.test(country)) return invalid(`Country '${country}' is unknown. Try using a 2-character alphanumeric country code instead, such as 'US', 'EG', or 'GB'.`, 'country');
    if (f.email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(f.email)) return invalid(`Invalid email address: ${f.email}`, 'email', 'email_invalid');
    const id = `acct_${randomBytes(8).toString('hex').toUpperCase()}`;
    const account: FakeAccount = {
      id,
      object: 'account',
      business_profile: { mcc: f['business_profile[mcc]'] ?? null, name: f['business_profile[name]'] ?? null, url: f['business_profile[url]'] ?? null },
      business_type: f.business_type ?? null,
      capabilities,
      charges_enabled: false,
      controller: { fees: { payer }, is_controller: true, losses: { payments: losses }, requirement_collection: collection, stripe_dashboard: { type: dashboard }, type: 'application' },
      country,
      created: now(),
      default_currency: f.default_currency ?? CURRENCIES[country] ?? 'usd',
      details_submitted: false,
      email: f.email ?? null,
      external_accounts: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/accounts/${id}/external_accounts` },
      metadata: metadataOf(f),
      payouts_enabled: false,
      requirements: requirements(DUE, 'requirements.past_due'),
      tos_acceptance: { date: null, ip: null, service_agreement: agreement, user_agent: null },
      type: f.type ?? (dashboard === 'full' ? 'standard' : dashboard === 'express' ? 'express' : 'custom'),
    };
    this.accounts.set(id, account);
    return { status: 200, body: account };
  }

  #createLink(f: Record<string, string>): Answer {
    const account = this.accounts.get(f.account!);
    if (!account) return invalid(`No such account: '${f.account}'`, 'account', 'resource_missing');
    if (f.type !== 'account_onboarding' && f.type !== 'account_update') return invalid(`Invalid type: must be one of account_onboarding or account_update`, 'type');
    if (f.type === 'account_update' && account.controller.stripe_dashboard.type !== 'none') {
      return invalid('You can only create account_update links for accounts where your platform collects requirements and which have no access to a Stripe-hosted Dashboard.', 'type');
    }
    for (const param of ['refresh_url', 'return_url']) {
      if (f[param] === undefined) return invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
      if (!isUrl(f[param])) return invalid('Not a valid URL', param, 'url_invalid');
    }
    const created = now();
    this.#links.set(account.id, { refreshUrl: f.refresh_url!, returnUrl: f.return_url!, expiresAt: created + 300, used: false });
    return { status: 200, body: { object: 'account_link', created, expires_at: created + 300, url: `${this.#origin()}/connect/onboard/${account.id}` } };
  }

  #createTransfer(f: Record<string, string>): Answer {
    const amount = Number(f.amount);
    if (!/^\d+$/.test(f.amount!) || amount < 1) return invalid('This value must be greater than or equal to 1.', 'amount', 'parameter_invalid_integer');
    if (!/^[a-z]{3}$/.test(f.currency!)) return invalid(`Invalid currency: ${f.currency}`, 'currency');
    const destination = this.accounts.get(f.destination!);
    if (!destination) return invalid(`No such destination: '${f.destination}'`, 'destination', 'resource_missing');
    if (destination.capabilities.transfers !== 'active') {
      return invalid('Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments', 'destination', 'insufficient_capabilities_for_transfer');
    }
    const available = this.#balances.get(f.currency!);
    if (available !== undefined && available < amount) {
      return invalid('You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.', 'amount', 'balance_insufficient');
    }
    if (available !== undefined) this.#balances.set(f.currency!, available - amount);
    const id = randomId('tr');
    const transfer = {
      id,
      object: 'transfer',
      amount,
      amount_reversed: 0,
      balance_transaction: randomId('txn'),
      created: now(),
      currency: f.currency,
      description: f.description ?? null,
      destination: destination.id,
      destination_payment: randomId('py'),
      livemode: false,
      metadata: metadataOf(f),
      reversals: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
      reversed: false,
      source_transaction: f.source_transaction ?? null,
      source_type: f.source_type ?? 'card',
      transfer_group: f.transfer_group ?? null,
    };
    this.transfers.set(id, transfer);
    return { status: 200, body: transfer };
  }
}
