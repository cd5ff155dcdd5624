/**
 * A local stand-in for Stripe's API (Stripe cannot be reached from the machines the tests run on), for
 * the three requests Stripe credit out makes, and Connect's (accounts, account links, transfers: in
 * ./fake-stripe-connect.ts, which says what it checks). It checks each request as Stripe's API reference
 * documents it, and refuses it in Stripe's error envelope otherwise:
 *
 * - `Authorization: Bearer <key>` with a key it was given (restricted keys, rk_..., or secret ones, sk_...),
 *   else 401;
 * - form-encoded bodies (`application/x-www-form-urlencoded`, nested fields as `metadata[k]`), and
 *   only the fields each endpoint documents (an unknown one is 400 parameter_unknown, as Stripe answers);
 *   metadata within Stripe's limits (50 keys, keys of 40 characters, values of 500);
 * - POST /v1/customers/{id}/balance_transactions: amount (integer, negative is a credit), currency,
 *   description?, metadata[...]?; an unknown customer is 404 resource_missing;
 * - POST /v1/coupons: amount_off, currency, duration=once, max_redemptions, name?, metadata[...]?;
 * - POST /v1/promotion_codes: promotion[type]=coupon and promotion[coupon] (the shape of the API version
 *   the installed `stripe` package pins; older versions took a top-level `coupon`), customer?, code?,
 *   max_redemptions?, metadata[...]?; an unknown coupon or customer is 400 resource_missing;
 * - an Idempotency-Key on every POST: a repeat with the same key and the same fields is answered with
 *   the stored answer (and `Idempotent-Replayed: true`), with other fields 400 idempotency_error. A GET
 *   (GET /v1/accounts/{id}) has none, and is answered from the current state every time.
 *
 * It answers with the documented objects (customer_balance_transaction, coupon, promotion_code), and can
 * be told to fail the next requests: 500, 429, a 400 of Stripe's, a dropped connection before doing
 * anything, a lost answer (the request is done and stored, then the connection drops, as when a
 * process dies between Stripe's answer and its own commit), or a slow one (done and stored, answered
 * only after `ms`: past the client's timeout). Note that the `stripe` package retries a dropped
 * connection once by itself, with the same key, even with maxNetworkRetries 0: a test that wants the
 * caller to see a drop (or a lost answer) fails two requests. A timeout it does not retry: one slow is
 * enough, and a second would be used up by the next request. `pendingFailures` says what is left.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { type Answer, CONNECT_FIELDS, error, FakeConnect, type FieldSpec, type Handler, metadataOf, now, randomId } from './fake-stripe-connect.js';

/** The API version the installed `stripe` package pins, and sends as Stripe-Version. */
const API_VERSION = Stripe.API_VERSION;

export type Failure = { kind: '500' | '429' | 'drop' | 'lost-answer' } | { kind: '400'; message: string; code?: string } | { kind: 'slow'; ms: number };

export interface FakeRequest {
  method: string;
  path: string;
  key: string | undefined;
  idempotencyKey: string | undefined;
  fields: Record<string, string>;
  status: number;
  replayed: boolean;
  /** What it answered (or would have: a lost answer's body is recorded too). */
  body?: unknown;
}

interface Stored {
  signature: string;
  status: number;
  body: unknown;
}

const FIELDS: Record<string, FieldSpec> = {
  balance: { required: ['amount', 'currency'], optional: ['description'] },
  coupon: { required: ['amount_off', 'currency', 'duration'], optional: ['max_redemptions', 'name', 'id', 'redeem_by', 'duration_in_months'] },
  promotion: { required: ['promotion[type]', 'promotion[coupon]'], optional: ['customer', 'code', 'max_redemptions', 'active', 'expires_at'] },
  ...CONNECT_FIELDS,
};

/** A 400 of Stripe's that a test asked for, in place of what the endpoint would have answered. */
const failed = (f: { message: string; code?: string }) => error(400, 'invalid_request_error', f.message, f.code ? { code: f.code } : {});

/** Stripe's limits on metadata: undefined when the fields keep them. */
function metadataError(fields: Record<string, string>) {
  const entries = Object.entries(metadataOf(fields));
  if (entries.length > 50) return error(400, 'invalid_request_error', 'Invalid metadata: metadata can have up to 50 keys.', { param: 'metadata' });
  for (const [k, v] of entries) {
    if (k.length > 40) return error(400, 'invalid_request_error', `Invalid metadata: keys can be at most 40 characters (${k}).`, { param: `metadata[${k}]` });
    if (v.length > 500) return error(400, 'invalid_request_error', `Invalid metadata: values can be at most 500 characters (${k}).`, { param: `metadata[${k}]` });
  }
  return undefined;
}

export class FakeStripe {
  readonly requests: FakeRequest[] = [];
  /** Customers that exist, with their balance (negative: credit). */
  readonly customers = new Map<string, number>();
  readonly coupons = new Map<string, Record<string, unknown>>();
  readonly promotionCodes = new Map<string, Record<string, unknown>>();
  /** Connect's accounts, account links and transfers (./fake-stripe-connect.ts). */
  readonly connect = new FakeConnect(() => `http://127.0.0.1:${this.port}`);
  readonly #keys = new Set<string>();
  readonly #stored = new Map<string, Stored>();
  readonly #failures: Failure[] = [];
  readonly #server = createServer((req, res) => void this.#handle(req, res));
  port = 0;

  /** Accepts requests made with this key. */
  allowKey(key: string): this {
    this.#keys.add(key);
    return this;
  }

  addCustomer(id: string): this {
    this.customers.set(id, 0);
    return this;
  }

  /** Onboarding done: the account's transfers and payouts on. Answers the account.updated event to sign and send. */
  completeOnboarding(account: string) {
    return this.connect.completeOnboarding(account);
  }

  /** Fails the next requests, one failure each, in order. */
  fail(...failures: Failure[]): void {
    this.#failures.push(...failures);
  }

  /** Failures asked for and not used up yet. */
  get pendingFailures(): number {
    return this.#failures.length;
  }

  /** The requests Stripe made something for (POSTs answered 200 the first time). */
  get made(): FakeRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.status === 200 && !r.replayed);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  /** What StripePayoutSender's `api` option needs to talk to this server. */
  get api() {
    return { host: '127.0.0.1', port: this.port, protocol: 'http' as const };
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const fields = Object.fromEntries(new URLSearchParams(text));
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const path = new URL(req.url ?? '/', 'http://stripe.test').pathname;
    const record: FakeRequest = { method: req.method ?? '', path, key, idempotencyKey, fields, status: 0, replayed: false };
    this.requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      record.body = body;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': randomId('req'), ...headers });
      res.end(JSON.stringify(body));
    };
    const refuse = (e: { status: number; body: unknown }) => answer(e.status, e.body);

    // The referrer's browser on an account link (no key, not Stripe's API): never made to fail.
    const page = req.method === 'GET' ? this.connect.onboardingPage(path) : undefined;
    if (page) {
      record.status = page.status;
      res.writeHead(page.status, page.location ? { location: page.location } : {});
      res.end();
      return;
    }

    const failure = this.#failures.shift();
    if (failure?.kind === 'drop') {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    if (failure?.kind === '500') return refuse(error(500, 'api_error', 'An unknown error occurred'));
    if (failure?.kind === '429') return refuse(error(429, 'invalid_request_error', 'Too many requests hit the API too quickly.', { code: 'rate_limit' }));

    if (!key || !/^(rk|sk)_(live|test)_[A-Za-z0-9]+$/.test(key) || !this.#keys.has(key)) {
      return refuse(error(401, 'invalid_request_error', `Invalid API Key provided: ${(key ?? '').slice(0, 8)}***`));
    }
    if (req.headers['stripe-version'] !== undefined && req.headers['stripe-version'] !== API_VERSION) {
      return refuse(error(400, 'invalid_request_error', `Invalid Stripe API version: ${String(req.headers['stripe-version'])}`));
    }
    if (req.method === 'GET') {
      const route = this.connect.route('GET', path);
      if (!route) return refuse(error(404, 'invalid_request_error', `Unrecognized request URL (GET: ${path})`));
      return this.#deliver(failure, failure?.kind === '400' ? failed(failure) : route[1]({}, route[2]), answer, res, record);
    }
    if (req.method !== 'POST') return refuse(error(405, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path})`));
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return refuse(error(400, 'invalid_request_error', 'Request bodies are form-encoded'));
    }
    if (!idempotencyKey) return refuse(error(400, 'invalid_request_error', 'This fake Stripe requires an Idempotency-Key on every POST'));

    const route = this.#route(path);
    if (!route) return refuse(error(404, 'invalid_request_error', `Unrecognized request URL (POST: ${path})`));
    const [shape, handler, pathId] = route;
    const signature = `${path} ${JSON.stringify(Object.entries(fields).sort())}`;
    const stored = this.#stored.get(`${key} ${idempotencyKey}`);
    if (stored) {
      if (stored.signature !== signature) {
        return refuse(error(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`));
      }
      record.replayed = true;
      return answer(stored.status, stored.body, { 'idempotent-replayed': 'true' });
    }
    const spec = FIELDS[shape]!;
    for (const name of Object.keys(fields)) {
      const documented = name.startsWith('metadata[') || spec.required.includes(name) || spec.optional.includes(name) || spec.patterns?.some((p) => p.test(name));
      if (!documented) return refuse(error(400, 'invalid_request_error', `Received unknown parameter: ${name}`, { code: 'parameter_unknown', param: name }));
    }
    for (const name of spec.required) {
      if (fields[name] === undefined) return refuse(error(400, 'invalid_request_error', `Missing required param: ${name}.`, { code: 'parameter_missing', param: name }));
    }
    const metadata = metadataError(fields);
    if (metadata) return refuse(metadata);
    const result = failure?.kind === '400' ? failed(failure) : handler(fields, pathId);
    // As Stripe: an answer is stored under its key once the endpoint ran (a 4xx of its own included).
    this.#stored.set(`${key} ${idempotencyKey}`, { signature, status: result.status, body: result.body });
    this.#deliver(failure, result, answer, res, record);
  }

  /** Answers what an endpoint did, or loses or delays the answer as the test asked. */
  #deliver(failure: Failure | undefined, result: Answer, answer: (status: number, body: unknown) => void, res: ServerResponse, record: FakeRequest): void {
    if (failure?.kind === 'slow') {
      record.status = result.status;
      record.body = result.body;
      setTimeout(() => {
        if (!res.destroyed) answer(result.status, result.body);
      }, failure.ms);
      return;
    }
    if (failure?.kind === 'lost-answer') {
      record.status = result.status;
      record.body = result.body;
      res.socket?.destroy();
      return;
    }
    answer(result.status, result.body);
  }

  #route(path: string): [string, Handler, string | undefined] | undefined {
    const connect = this.connect.route('POST', path);
    if (connect) return connect;
    const balance = /^\/v1\/customers\/([^/]+)\/balance_transactions$/.exec(path);
    if (balance) return ['balance', (f, id) => this.#balanceTransaction(f, id!), decodeURIComponent(balance[1]!)];
    if (path === '/v1/coupons') return ['coupon', (f) => this.#coupon(f), undefined];
    if (path === '/v1/promotion_codes') return ['promotion', (f) => this.#promotionCode(f), undefined];
    return undefined;
  }

  #balanceTransaction(f: Record<string, string>, customer: string) {
    if (!this.customers.has(customer)) return error(404, 'invalid_request_error', `No such customer: '${customer}'`, { code: 'resource_missing', param: 'id' });
    const amount = Number(f.amount);
    if (!Number.isInteger(amount) || amount === 0) return error(400, 'invalid_request_error', 'Invalid integer: amount', { param: 'amount' });
    if (!/^[a-z]{3}$/.test(f.currency!)) return error(400, 'invalid_request_error', `Invalid currency: ${f.currency}`, { param: 'currency' });
    const ending = this.customers.get(customer)! + amount;
    this.customers.set(customer, ending);
    return {
      status: 200,
      body: {
        id: randomId('cbtxn'),
        object: 'customer_balance_transaction',
        amount,
        checkout_session: null,
        created: now(),
        credit_note: null,
        currency: f.currency,
        customer,
        description: f.description ?? null,
        ending_balance: ending,
        invoice: null,
        livemode: false,
        metadata: metadataOf(f),
        type: 'adjustment',
      },
    };
  }

  #coupon(f: Record<string, string>) {
    const amountOff = Number(f.amount_off);
    if (!Number.isInteger(amountOff) || amountOff <= 0) return error(400, 'invalid_request_error', 'Invalid positive integer', { param: 'amount_off' });
    if (!['once', 'repeating', 'forever'].includes(f.duration!)) return error(400, 'invalid_request_error', `Invalid duration: ${f.duration}`, { param: 'duration' });
    const coupon = {
      id: f.id ?? randomBytes(6).toString('hex'),
      object: 'coupon',
      amount_off: amountOff,
      created: now(),
      currency: f.currency,
      duration: f.duration,
      duration_in_months: null,
      livemode: false,
      max_redemptions: f.max_redemptions === undefined ? null : Number(f.max_redemptions),
      metadata: metadataOf(f),
      name: f.name ?? null,
      percent_off: null,
      redeem_by: null,
      times_redeemed: 0,
      valid: true,
    };
    this.coupons.set(coupon.id, coupon);
    return { status: 200, body: coupon };
  }

  #promotionCode(f: Record<string, string>) {
    if (f['promotion[type]'] !== 'coupon') return error(400, 'invalid_request_error', 'Invalid promotion[type]', { param: 'promotion[type]' });
    const coupon = f['promotion[coupon]']!;
    if (!this.coupons.has(coupon)) return error(400, 'invalid_request_error', `No such coupon: '${coupon}'`, { code: 'resource_missing', param: 'promotion[coupon]' });
    if (f.customer !== undefined && !this.customers.has(f.customer)) {
      return error(400, 'invalid_request_error', `No such customer: '${f.customer}'`, { code: 'resource_missing', param: 'customer' });
    }
    const promotion = {
      id: randomId('promo'),
      object: 'promotion_code',
      active: true,
      code: f.code ?? randomBytes(4).toString('hex').toUpperCase(),
      created: now(),
      customer: f.customer ?? null,
      expires_at: null,
      livemode: false,
      max_redemptions: f.max_redemptions === undefined ? null : Number(f.max_redemptions),
      metadata: metadataOf(f),
      promotion: { type: 'coupon', coupon },
      restrictions: { currency_options: {}, first_time_transaction: false, minimum_amount: null, minimum_amount_currency: null },
      times_redeemed: 0,
    };
    this.promotionCodes.set(promotion.id, promotion);
    return { status: 200, body: promotion };
  }
}
