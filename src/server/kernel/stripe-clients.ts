/**
 * The `stripe` package's clients, one per secret key, each pointed at Stripe or at STRIPE_API_URL's
 * origin (the tests' loopback stand-in). Every part of the service that calls Stripe (payouts, Connect,
 * promotion codes, a payment's settlement) makes its clients here, so that where Stripe is, how long a call
 * may take and whether the package retries are said once per caller, not rebuilt in each.
 */
import Stripe from 'stripe';

/** Where Stripe's API is: api.stripe.com over https unless STRIPE_API_URL names another origin (tests' stand-in). */
export interface StripeApiTarget {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/**
 * Reads the STRIPE_API_URL setting: an origin such as http://127.0.0.1:12111 (no path, query or
 * credentials). Empty or unset is Stripe itself (undefined). Throws on anything else, so that a typo is
 * found at start rather than on the first payout.
 */
export function stripeApiTarget(url: string | undefined): StripeApiTarget | undefined {
  if (url === undefined || url.trim() === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new Error(`STRIPE_API_URL is not a URL: ${url}`);
  }
  const protocol = parsed.protocol.slice(0, -1);
  if (protocol !== 'http' && protocol !== 'https') throw new Error(`STRIPE_API_URL must be http or https: ${url}`);
  if (parsed.username || parsed.password || parsed.search || parsed.hash || parsed.pathname !== '/') {
    throw new Error(`STRIPE_API_URL must be an origin only (scheme, host and port), as the stripe package adds the /v1/... paths: ${url}`);
  }
  const port = parsed.port ? Number(parsed.port) : protocol === 'https' ? 443 : 80;
  // An IPv6 literal comes bracketed from URL; the package wants the bare address.
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port, protocol };
}

export interface StripeClientOptions {
  api?: StripeApiTarget | undefined;
  timeoutMs: number;
  /**
   * The package's own retries of a failed request (with the same idempotency key). 0 where the caller
   * retries through its outbox; the package still retries a closed connection once by itself.
   */
  maxNetworkRetries?: number;
}

/** A client per secret key, made on first use and kept. */
export class StripeClients {
  readonly #clients = new Map<string, Stripe>();

  constructor(private readonly options: StripeClientOptions) {}

  for(key: string): Stripe {
    let client = this.#clients.get(key);
    if (!client) {
      const { api, timeoutMs, maxNetworkRetries = 0 } = this.options;
      client = new Stripe(key, { maxNetworkRetries, timeout: timeoutMs, telemetry: false, ...(api && { host: api.host, port: api.port, protocol: api.protocol }) });
      this.#clients.set(key, client);
    }
    return client;
  }
}

/**
 * Network trouble (a timeout included), Stripe's 5xx, 429 (rate limit) and 409 (the same key in flight)
 * may pass on a later attempt with the same idempotency key; any other 4xx will not as the request is.
 * Anything that is not Stripe's error counts as transient, so that an outbox row (a payout, a promotion
 * code) is never given up on by accident.
 */
export function transientStripeError(err: unknown): boolean {
  if (!(err instanceof Stripe.errors.StripeError)) return true;
  const status = err.statusCode;
  return status === undefined || status >= 500 || status === 429 || status === 409;
}

/** One line for an outbox row and the log. */
export function describeStripeError(err: unknown): string {
  if (err instanceof Stripe.errors.StripeError) return err.statusCode ? `Stripe answered ${err.statusCode}: ${err.message}` : `Stripe could not be reached: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
