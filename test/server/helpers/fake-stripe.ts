/**
 * A local stand-in for Stripe's API (Stripe cannot be reached from the machines the tests run on), for
 * the requests Stripe credit out makes (a customer balance transaction, here; or a coupon and a promotion
 * code), those of promotion codes (coupons, promotion codes, invoices with their discounts: in
 * ./fake-stripe-promotions.ts) and Connect's (accounts, account links, transfers: in
 * ./fake-stripe-connect.ts); those two files say what they check. It checks each request as Stripe's API
 * reference documents it, and refuses it in Stripe's error envelope otherwise:
 *
 * - `Authorization: Bearer <key>` with a key it was given (restricted keys, rk_..., or secret ones, sk_...),
 *   else 401;
 * - form-encoded bodies (`application/x-www-form-urlencoded`, nested fields as `metadata[k]`), and
 *   only the fields each endpoint documents (an unknown one is 400 parameter_unknown, as Stripe answers);
 *   metadata within Stripe's limits (50 keys, keys of 40 characters, values of 500); a GET's query is
 *   checked the same way (its fields are the query's, `expand[]` numbered `expand[0]`, ... as the `stripe`
 *   package sends them), and takes no metadata;
 * - POST /v1/customers/{id}/balance_transactions: amount (integer, negative is a credit), currency,
 *   description?, metadata[...]?; an unknown customer is 404 resource_missing;
 * - a promotion code's coupon as promotion[type]=coupon and promotion[coupon] (the shape of the API version
 *   the installed `stripe` package pins; older versions took a top-level `coupon`);
 * - an Idempotency-Key on every POST: a repeat with the same key and the same fields is answered with
 *   the stored answer (and `Idempotent-Replayed: true`), with other fields 400 idempotency_error. A GET
 *   (GET /v1/accounts/{id}, /v1/coupons/{id}, /v1/promotion_codes[/{id}], /v1/invoices/{id}) has none, and
 *   is answered from the current state every time.
 *
 * It answers with the documented objects (customer_balance_transaction, coupon, promotion_code, invoice,
 * discount, ...), and can be told to fail the next requests (any endpoint's, a GET's too): 500, 429, a 400
 * of Stripe's, a dropped connection before doing anything, a lost answer (the request is done and
 * stored, then the connection drops, as when a process dies between Stripe's answer and its own commit),
 * or a slow one (done and stored, answered only after `ms`: past the client's timeout). Note that the
 * `stripe` package retries a dropped connection once by itself, with the same key, even with
 * maxNetworkRetries 0: a test that wants the caller to see a drop (or a lost answer) fails two requests.
 * A timeout it does not retry: one slow is enough, and a second would be used up by the next request.
 * `pendingFailures` says what is left.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { type Answer, CONNECT_FIELDS, error, FakeConnect, type FieldSpec, type Handler, metadataOf, now, randomId } from './fake-stripe-connect.js';
import { FakePromotions, PROMOTION_FIELDS, type StripeObject } from './fake-stripe-promotions.js';
import { CHARGE_FIELDS, FakeCharges } from './fake-stripe-charges.js';

/** The API version the installed `stripe` package pins, and sends as Stripe-Version. */
const API_VERSION = Stripe.API_VERSION;

/**
 * One request made to fail. With `path`, only a request whose path starts with it takes the failure (a
 * test's own customer, when a sender also has other campaigns' requests in flight in an order it cannot pick).
 */
export type Failure = ({ kind: '500' | '429' | 'drop' | 'lost-answer' } | { kind: '400'; message: string; code?: string } | { kind: 'slow'; ms: number }) & { path?: string };

export interface FakeRequest {
  method: string;
  path: string;
  key: string | undefined;
  idempotencyKey: string | undefined;
  /** The form fields (a GET's: its query's). */
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
  ...PROMOTION_FIELDS,
  ...CHARGE_FIELDS,
  ...CONNECT_FIELDS,
};

/** A 400 of Stripe's that a test asked for, in place of what the endpoint would have answered. */
const failed = (f: { message: string; code?: string }) => error(400, 'invalid_request_error', f.message, f.code ? { code: f.code } : {});

/** A query's fields; repeated `name[]` ones numbered as the `stripe` package numbers arrays (`expand[0]`, `expand[1]`, ...). */
function queryFields(query: URLSearchParams): Record<string, string> {
  const fields: Record<string, string> = {};
  const counts = new Map<string, number>();
  for (const [name, value] of query) {
    if (!name.endsWith('[]')) {
      fields[name] = value;
      continue;
    }
    const n = counts.get(name) ?? 0;
    counts.set(name, n + 1);
    fields[`${name.slice(0, -2)}[${n}]`] = value;
  }
  return fields;
}

/** Stripe's refusal of a field the endpoint does not document (metadata[...] only in a POST's body), or of a missing one. */
function fieldsError(spec: FieldSpec, fields: Record<string, string>, metadata: boolean) {
  for (const name of Object.keys(fields)) {
    const documented = (metadata && name.startsWith('metadata[')) || spec.required.includes(name) || spec.optional.includes(name) || spec.patterns?.some((p) => p.test(name));
    if (!documented) return error(400, 'invalid_request_error', `Received unknown parameter: ${name}`, { code: 'parameter_unknown', param: name });
  }
  for (const name of spec.required) {
    if (fields[name] === undefined) return error(400, 'invalid_request_error', `Missing required param: ${name}.`, { code: 'parameter_missing', param: name });
  }
  return undefined;
}

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
  /** Coupons, promotion codes, and the invoices and discounts tests register (./fake-stripe-promotions.ts). */
  readonly promotions = new FakePromotions(this.customers);
  /** Charges, their payment intents and balance transactions (./fake-stripe-charges.ts). */
  readonly charges = new FakeCharges();
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

  /** The coupons made, by id (the objects as they are now). */
  get coupons(): Map<string, StripeObject> {
    return this.promotions.coupons;
  }

  /** The promotion codes made, by id (the objects as they are now: an update changes them). */
  get promotionCodes(): Map<string, StripeObject> {
    return this.promotions.promotionCodes;
  }

  /** An invoice GET /v1/invoices/{id} answers (as given; `object` 'invoice' and `discounts` [] unless given). */
  addInvoice(invoice: StripeObject & { id: string }): this {
    this.promotions.addInvoice(invoice);
    return this;
  }

  /** A discount (di_...) an invoice's `discounts` may name, expanded by expand[]=discounts; answers it as Stripe renders it. */
  addDiscount(discount: { id: string; coupon?: string; promotion_code?: string | null } & StripeObject): StripeObject {
    return this.promotions.addDiscount(discount);
  }

  /** Onboarding done: the account's transfers and payouts on. Answers the account.updated event to sign and send. */
  completeOnboarding(account: string) {
    return this.connect.completeOnboarding(account);
  }

  /** Fails the next requests, one failure each, in order (a failure with a path waits for a request to it). */
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
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    const fields = req.method === 'GET' ? queryFields(url.searchParams) : Object.fromEntries(new URLSearchParams(text));
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const path = url.pathname;
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

    const at = this.#failures.findIndex((f) => f.path === undefined || path.startsWith(f.path));
    const failure = at < 0 ? undefined : this.#failures.splice(at, 1)[0];
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
      const route = this.#route('GET', path);
      if (!route) return refuse(error(404, 'invalid_request_error', `Unrecognized request URL (GET: ${path})`));
      const refused = FIELDS[route[0]] ? fieldsError(FIELDS[route[0]]!, fields, false) : undefined;
      if (refused) return refuse(refused);
      return this.#deliver(failure, failure?.kind === '400' ? failed(failure) : route[1](fields, route[2]), answer, res, record);
    }
    if (req.method !== 'POST') return refuse(error(405, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path})`));
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return refuse(error(400, 'invalid_request_error', 'Request bodies are form-encoded'));
    }
    if (!idempotencyKey) return refuse(error(400, 'invalid_request_error', 'This fake Stripe requires an Idempotency-Key on every POST'));

    const route = this.#route('POST', path);
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
    const refused = fieldsError(FIELDS[shape]!, fields, true) ?? metadataError(fields);
    if (refused) return refuse(refused);
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

  #route(method: 'GET' | 'POST', path: string): [string, Handler, string | undefined] | undefined {
    const found = this.connect.route(method, path) ?? this.promotions.route(method, path) ?? this.charges.route(method, path);
    if (found || method !== 'POST') return found;
    const balance = /^\/v1\/customers\/([^/]+)\/balance_transactions$/.exec(path);
    if (balance) return ['balance', (f, id) => this.#balanceTransaction(f, id!), decodeURIComponent(balance[1]!)];
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
}
