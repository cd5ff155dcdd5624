/**
 * A local stand-in for PayPal's REST API (PayPal cannot be reached from the machines the tests run on),
 * for what cash payouts use, written from PayPal's reference (Authentication, Payouts v1, Webhooks v1).
 * It checks each request as the reference documents it and refuses it in PayPal's error shape
 * `{name, message, debug_id, details: [{field, location, issue}], links}` (OAuth's `{error,
 * error_description}` for tokens):
 *
 * - POST /v1/oauth2/token: `Authorization: Basic base64(clientId:secret)` of a client it was given,
 *   form body `grant_type=client_credentials`; answers {scope, access_token, token_type, app_id,
 *   expires_in, nonce}. Other calls need `Authorization: Bearer <token>` of a live token: an unknown or
 *   expired one is 401 {error: 'invalid_token'} (expireTokens() ends them all).
 * - POST /v1/payments/payouts: JSON; sender_batch_header {sender_batch_id (1-256), email_subject,
 *   email_message?}; items (1-15000) {recipient_type EMAIL (the only kind this fake pays), amount {value,
 *   currency}, receiver (an email), sender_item_id (1-63), note?}. The value must be a string with
 *   exactly the currency's decimals in PayPal's list (none for HUF, JPY, TWD; two otherwise): PayPal
 *   itself accepts "1.0", the fake wants the canonical form to catch conversion bugs. Fields the
 *   reference does not list are refused. 201 {batch_header: {payout_batch_id, batch_status: PENDING,
 *   sender_batch_header}, links}. A PayPal-Request-Id seen before is answered with the stored answer
 *   (`replayed`); a sender_batch_id used before (under another request id) is 400 USER_BUSINESS_ERROR,
 *   details [{field: SENDER_BATCH_ID, issue: 'Batch with given sender_batch_id already exists', link}].
 * - GET /v1/payments/payouts/{id}?page&page_size&total_required: the batch with its items.
 * - POST /v1/notifications/verify-webhook-signature: {auth_algo, cert_url, transmission_id,
 *   transmission_sig, transmission_time, webhook_id, webhook_event}: SUCCESS when the event was signed by
 *   signedEvent() for that webhook id and is unchanged, FAILURE otherwise. Signed as PayPal does: RSA-SHA256
 *   over `transmission_id|transmission_time|webhook_id|crc32(body)`.
 *
 * Batches start PENDING and settle (batch SUCCESS, items SUCCESS) when first read, or on settle(); an
 * item's outcome is scripted with setItemStatus(), a batch's with setBatchStatus(). It can be told to
 * fail the next requests (fail(); failToken() for the token endpoint): 500, 503, 429, an error of PayPal's,
 * a dropped connection before doing anything, a lost answer (the work is done and stored, then the
 * connection drops: a process dying between PayPal's answer and its own commit), or a slow one (done and
 * stored, answered only after `ms`). What it checks and writes is in ./fake-paypal-shapes.ts.
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { batchHeader, DEFAULT_ERRORS, type FakePayPalBatch, type FakePayPalItem, itemJson, id, ITEM_EVENTS, type Json, now, oauthError, obj, paypalError, type Result, str, validate, VERIFY_FIELDS } from './fake-paypal-shapes.js';

export type { FakePayPalBatch, FakePayPalItem } from './fake-paypal-shapes.js';

export type Failure = { kind: '500' | '503' | '429' | 'drop' | 'lost-answer' } | { kind: 'slow'; ms: number } | { kind: 'error'; status: number; name: string; message?: string };

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The client the request authenticated as (Basic or its token), when it did. */
  clientId: string | undefined;
  requestId: string | undefined;
  /** The JSON body, or the form fields of the token request. */
  body: unknown;
  /** What it answered (-1: dropped before answering); a lost or slow answer's status and body too. */
  status: number;
  replayed: boolean;
  answer?: unknown;
}

let keys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

export class FakePayPal {
  readonly requests: FakeRequest[] = [];
  readonly batches = new Map<string, FakePayPalBatch>();
  /** The webhook id signedEvent() signs for: the credentials' webhookId. */
  readonly webhookId = id(17);
  /** How long a token lives, in seconds (PayPal's are about nine hours). */
  tokenLifetimeS = 32_400;
  /** Whether a pending batch settles when read; false: only settle() does. */
  settleOnRead = true;
  port = 0;
  readonly #clients = new Map<string, string>();
  readonly #tokens = new Map<string, { clientId: string; expiresAt: number }>();
  readonly #replays = new Map<string, Result>();
  readonly #itemScript = new Map<string, { status: string; error?: { name: string; message: string } }>();
  readonly #batchScript = new Map<string, string>();
  readonly #failures: Failure[] = [];
  readonly #tokenFailures: Failure[] = [];
  readonly #server = createServer((req, res) => void this.#handle(req, res));

  /** Accepts this client id and secret at the token endpoint. */
  allowClient(clientId: string, clientSecret: string): this {
    this.#clients.set(clientId, clientSecret);
    return this;
  }

  /** Fails the next requests other than the token's, one failure each, in order. */
  fail(...failures: Failure[]): void {
    this.#failures.push(...failures);
  }

  /** Fails the next token requests. */
  failToken(...failures: Failure[]): void {
    this.#tokenFailures.push(...failures);
  }

  /** Every token issued so far stops working (401 invalid_token), as when PayPal's expire. */
  expireTokens(): void {
    this.#tokens.clear();
  }

  /** PayPal no longer knows the PayPal-Request-Ids seen (its 30 days passed; or another sender). */
  forgetRequestIds(): void {
    this.#replays.clear();
  }

  /** Scripts the outcome of the items with this sender_item_id: applied when their batch settles, or now if it has. */
  setItemStatus(senderItemId: string, status: string, error?: { name: string; message: string }): void {
    this.#itemScript.set(senderItemId, { status, ...(error && { error }) });
    for (const batch of this.batches.values()) {
      if (batch.timeCompleted === undefined) continue;
      for (const item of batch.items.filter((i) => i.senderItemId === senderItemId)) this.#apply(batch, item);
    }
  }

  /** Scripts the status the batch with this sender_batch_id settles to (DENIED: its items FAILED unless scripted). */
  setBatchStatus(senderBatchId: string, status: string): void {
    this.#batchScript.set(senderBatchId, status);
  }

  /** Settles one pending batch (or all): SUCCESS unless scripted, each item as scripted or SUCCESS. */
  settle(batchId?: string): void {
    if (batchId !== undefined && !this.batches.has(batchId)) throw new Error(`No batch ${batchId}`);
    for (const batch of batchId === undefined ? this.batches.values() : [this.batches.get(batchId)!]) {
      if (batch.timeCompleted !== undefined) continue;
      batch.status = this.#batchScript.get(batch.senderBatchId) ?? 'SUCCESS';
      batch.timeCompleted = now();
      for (const item of batch.items) this.#apply(batch, item);
    }
  }

  batchOf(senderBatchId: string): FakePayPalBatch | undefined {
    return [...this.batches.values()].find((b) => b.senderBatchId === senderBatchId);
  }

  /** The batches PayPal made (first answers, not replays). */
  get made(): FakeRequest[] {
    return this.requests.filter((r) => r.path === '/v1/payments/payouts' && r.status === 201 && !r.replayed);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  /** The origin to give PayPalApi (the PAYPAL_API_URL setting). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get certUrl(): string {
    return `${this.baseUrl}/v1/notifications/certs/CERT-360caa42-fca2a594-fake0001`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The payouts_item resource of the (latest) item with this sender_item_id, as GET /v1/payments/payouts-item shows it. */
  itemResource(senderItemId: string): Json {
    for (const batch of [...this.batches.values()].reverse()) {
      const item = batch.items.find((i) => i.senderItemId === senderItemId);
      if (item) return { ...itemJson(batch, item, (path, rel) => this.#link(path, rel)), sender_batch_id: batch.senderBatchId };
    }
    throw new Error(`No payout item ${senderItemId}`);
  }

  /** The payouts resource of a batch (its header: PAYOUTSBATCH events carry no items). */
  batchResource(batchId: string): Json {
    const batch = this.batches.get(batchId);
    if (!batch) throw new Error(`No batch ${batchId}`);
    return { batch_header: batchHeader(batch), links: [this.#link(`/v1/payments/payouts/${batchId}`, 'self')] };
  }

  /**
   * A webhook delivery of an event of `type` about `resource`, signed for `webhookId` (this.webhookId):
   * the `body` to POST byte for byte, its `headers` (lower case, as a server receives them), and the event.
   */
  signedEvent(type: string, resource: Json, options: { webhookId?: string } = {}): { headers: Record<string, string>; body: string; event: Json } {
    const eventId = `WH-${id(17)}-${id(17)}`;
    const itemEvent = type.startsWith('PAYMENT.PAYOUTS-ITEM.');
    const suffix = type.split('.').pop()!;
    const summary = itemEvent ? (Object.values(ITEM_EVENTS).find(([e]) => e === suffix)?.[1] ?? type) : `Payouts batch ${suffix.toLowerCase()}`;
    const event = {
      id: eventId,
      event_version: '1.0',
      create_time: now(),
      resource_type: itemEvent ? 'payouts_item' : 'payouts',
      event_type: type,
      summary,
      resource,
      links: [this.#link(`/v1/notifications/webhooks-events/${eventId}`, 'self'), { ...this.#link(`/v1/notifications/webhooks-events/${eventId}/resend`, 'resend'), method: 'POST' }],
    };
    const body = JSON.stringify(event);
    const transmissionId = randomUUID();
    const time = now();
    const signed = `${transmissionId}|${time}|${options.webhookId ?? this.webhookId}|${crc32(body)}`;
    const headers = {
      'content-type': 'application/json',
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': this.certUrl,
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-sig': sign('sha256', Buffer.from(signed), this.#keyPair().privateKey).toString('base64'),
      'paypal-transmission-time': time,
    };
    return { headers, body, event };
  }

  /** The PAYMENT.PAYOUTS-ITEM.* event of an item's status (setting it first when given): SUCCEEDED for SUCCESS, HELD for ONHOLD... */
  itemEvent(senderItemId: string, status?: string): ReturnType<FakePayPal['signedEvent']> {
    if (status !== undefined) this.setItemStatus(senderItemId, status);
    const resource = this.itemResource(senderItemId);
    const event = ITEM_EVENTS[resource.transaction_status as string];
    if (!event) throw new Error(`No item event for ${String(resource.transaction_status)}`);
    return this.signedEvent(`PAYMENT.PAYOUTS-ITEM.${event[0]}`, resource);
  }

  /** The PAYMENT.PAYOUTSBATCH.* event of a batch's status (SUCCESS, DENIED, PROCESSING). */
  batchEvent(batchId: string): ReturnType<FakePayPal['signedEvent']> {
    const resource = this.batchResource(batchId);
    return this.signedEvent(`PAYMENT.PAYOUTSBATCH.${String((resource.batch_header as Json).batch_status)}`, resource);
  }

  #apply(batch: FakePayPalBatch, item: FakePayPalItem): void {
    const scripted = this.#itemScript.get(item.senderItemId);
    item.status = scripted?.status ?? (batch.status === 'DENIED' ? 'FAILED' : 'SUCCESS');
    item.error = scripted?.error ?? DEFAULT_ERRORS[item.status];
    item.transactionId ??= item.status === 'FAILED' ? undefined : id(17);
    item.timeProcessed = now();
  }

  /** One RSA key for every stand-in of the process (making one is slow): certUrl, which has the port, tells them apart. */
  #keyPair() {
    return (keys ??= generateKeyPairSync('rsa', { modulusLength: 2048 }));
  }

  #link(path: string, rel: string): Json {
    return { href: `${this.baseUrl}${path}`, rel, method: 'GET', encType: 'application/json' };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://paypal.test');
    const requestId = req.headers['paypal-request-id'] as string | undefined;
    const record: FakeRequest = { method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), clientId: undefined, requestId, body: undefined, status: 0, replayed: false };
    this.requests.push(record);
    const answer = ({ status, body }: Result) => {
      record.status = status;
      record.answer = body;
      const debugId = (obj(body)?.debug_id as string | undefined) ?? randomBytes(7).toString('hex').slice(0, 13);
      res.writeHead(status, { 'content-type': 'application/json', 'paypal-debug-id': debugId });
      res.end(JSON.stringify(body));
    };
    const failure = (url.pathname === '/v1/oauth2/token' ? this.#tokenFailures : this.#failures).shift();
    if (failure?.kind === 'drop') {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    if (failure?.kind === '500') return answer(paypalError(500, 'INTERNAL_SERVER_ERROR', 'An internal server error occurred.'));
    if (failure?.kind === '503') return answer(paypalError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable.'));
    if (failure?.kind === '429') return answer(paypalError(429, 'RATE_LIMIT_REACHED', 'Too many requests. Blocked due to rate limiting.'));
    if (failure?.kind === 'error') return answer(paypalError(failure.status, failure.name, failure.message ?? failure.name, { details: [] }));

    const result = this.#route(req, raw, url, record);
    if (failure?.kind === 'lost-answer') {
      record.status = result.status;
      record.answer = result.body;
      req.socket.destroy();
      return;
    }
    if (failure?.kind === 'slow') {
      record.status = result.status;
      record.answer = result.body;
      setTimeout(() => !res.destroyed && answer(result), failure.ms);
      return;
    }
    answer(result);
  }

  #route(req: IncomingMessage, raw: string, url: URL, record: FakeRequest): Result {
    const path = url.pathname;
    const route = `${req.method} ${path.replace(/^\/v1\/payments\/payouts\/[^/]+$/, '/v1/payments/payouts/{id}')}`;
    if (route === 'POST /v1/oauth2/token') return this.#token(req, raw, record);
    const known = ['POST /v1/payments/payouts', 'GET /v1/payments/payouts/{id}', 'POST /v1/notifications/verify-webhook-signature'];
    if (!known.includes(route)) return paypalError(404, 'RESOURCE_NOT_FOUND', 'The specified resource does not exist.');
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed due to missing authorization header, or invalid authentication credentials.');
    const token = this.#tokens.get(auth.slice('Bearer '.length));
    if (!token || token.expiresAt <= Date.now()) return oauthError(401, 'invalid_token', 'Access Token not found in cache');
    record.clientId = token.clientId;
    if (req.method === 'GET') return this.#get(token.clientId, decodeURIComponent(path.split('/').pop()!), url.searchParams);
    if (!String(req.headers['content-type']).startsWith('application/json')) return paypalError(415, 'UNSUPPORTED_MEDIA_TYPE', "The server does not support the request payload's media type.");
    let body: Json | undefined;
    try {
      body = obj(JSON.parse(raw));
    } catch {
      body = undefined;
    }
    record.body = body;
    if (!body) return paypalError(400, 'INVALID_REQUEST', 'Request is not well-formed, syntactically incorrect, or violates schema.');
    return path === '/v1/payments/payouts' ? this.#create(token.clientId, body, record) : this.#verify(body);
  }

  #token(req: IncomingMessage, raw: string, record: FakeRequest): Result {
    const auth = req.headers.authorization ?? '';
    const [clientId = '', secret] = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(/:(.*)/s) : [];
    const fields = Object.fromEntries(new URLSearchParams(raw));
    record.body = fields;
    if (secret === undefined || this.#clients.get(clientId) !== secret) return oauthError(401, 'invalid_client', 'Client Authentication failed');
    record.clientId = clientId;
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return oauthError(400, 'invalid_request', 'Request body must be form-encoded');
    if (fields.grant_type !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', `Grant Type is ${fields.grant_type ? 'not supported' : 'NULL'}`);
    const token = `A21AA${randomBytes(40).toString('base64url')}`;
    this.#tokens.set(token, { clientId, expiresAt: Date.now() + this.tokenLifetimeS * 1000 });
    const scope = 'https://uri.paypal.com/services/payments/payouts https://uri.paypal.com/services/applications/webhooks';
    return { status: 200, body: { scope, access_token: token, token_type: 'Bearer', app_id: `APP-${id(17)}`, expires_in: this.tokenLifetimeS, nonce: `${now()}${id(20)}` } };
  }

  #create(clientId: string, body: Json, record: FakeRequest): Result {
    const replay = record.requestId && this.#replays.get(`${clientId} ${record.requestId}`);
    if (replay) {
      record.replayed = true;
      return replay;
    }
    const details = validate(body);
    if (details.length) return paypalError(400, 'VALIDATION_ERROR', 'Invalid request - see details', { details, links: [] });
    const header = body.sender_batch_header as Json;
    const items = body.items as Json[];
    if (new Set(items.map((i) => i.sender_item_id)).size !== items.length) {
      return paypalError(400, 'DUPLICATE_ITEM', 'This transaction is duplicated in this batch. Please check the Ref_ID / Sender_Item_ID.');
    }
    const senderBatchId = header.sender_batch_id as string;
    const existing = [...this.batches.values()].find((b) => b.clientId === clientId && b.senderBatchId === senderBatchId);
    if (existing) {
      const link = [this.#link(`/v1/payments/payouts/${existing.batchId}`, 'self')];
      const issue = { field: 'SENDER_BATCH_ID', location: 'body', issue: 'Batch with given sender_batch_id already exists', link };
      return paypalError(400, 'USER_BUSINESS_ERROR', 'User business error.', { details: [issue], links: [] });
    }
    const batch: FakePayPalBatch = {
      clientId,
      batchId: id(),
      senderBatchId,
      emailSubject: header.email_subject as string,
      emailMessage: header.email_message as string | undefined,
      status: 'PENDING',
      timeCreated: now(),
      timeCompleted: undefined,
      items: items.map((i) => {
        const amount = i.amount as Json;
        const base = { payoutItemId: id(), transactionId: undefined, status: 'PENDING', error: undefined, timeProcessed: undefined };
        return { ...base, senderItemId: i.sender_item_id as string, receiver: i.receiver as string, value: amount.value as string, currency: amount.currency as string, note: i.note as string | undefined };
      }),
    };
    this.batches.set(batch.batchId, batch);
    const sender_batch_header = { sender_batch_id: senderBatchId, email_subject: batch.emailSubject, ...(batch.emailMessage !== undefined && { email_message: batch.emailMessage }) };
    const result = { status: 201, body: { batch_header: { payout_batch_id: batch.batchId, batch_status: 'PENDING', sender_batch_header }, links: [this.#link(`/v1/payments/payouts/${batch.batchId}`, 'self')] } };
    if (record.requestId) this.#replays.set(`${clientId} ${record.requestId}`, result);
    return result;
  }

  #get(clientId: string, batchId: string, query: URLSearchParams): Result {
    const batch = this.batches.get(batchId);
    if (!batch || batch.clientId !== clientId) return paypalError(404, 'RESOURCE_NOT_FOUND', 'The specified resource does not exist.');
    if (this.settleOnRead) this.settle(batchId);
    const page = Number(query.get('page') ?? 1);
    const size = Number(query.get('page_size') ?? 1000);
    if (!Number.isInteger(page) || page < 1 || page > 1000 || !Number.isInteger(size) || size < 1 || size > 1000) {
      return paypalError(400, 'VALIDATION_ERROR', 'Invalid request - see details', { details: [{ field: 'page_size', location: 'query', issue: 'page and page_size are 1 to 1000' }] });
    }
    const items = batch.items.slice((page - 1) * size, page * size).map((item) => itemJson(batch, item, (path, rel) => this.#link(path, rel)));
    const totals = query.get('total_required') === 'true' ? { total_items: batch.items.length, total_pages: Math.ceil(batch.items.length / size) } : {};
    return { status: 200, body: { ...totals, batch_header: batchHeader(batch), items, links: [this.#link(`/v1/payments/payouts/${batchId}?page_size=${size}&page=${page}`, 'self')] } };
  }

  #verify(body: Json): Result {
    const missing = VERIFY_FIELDS.filter((f) => (f === 'webhook_event' ? !obj(body[f]) : !str(body[f], 2000)));
    if (missing.length) return paypalError(400, 'VALIDATION_ERROR', 'Invalid request - see details', { details: missing.map((field) => ({ field, location: 'body', issue: 'MISSING_REQUIRED_PARAMETER' })), links: [] });
    const signed = `${body.transmission_id}|${body.transmission_time}|${body.webhook_id}|${crc32(JSON.stringify(body.webhook_event))}`;
    const ok = body.auth_algo === 'SHA256withRSA' && body.cert_url === this.certUrl && verify('sha256', Buffer.from(signed), this.#keyPair().publicKey, Buffer.from(body.transmission_sig as string, 'base64'));
    return { status: 200, body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
  }
}
