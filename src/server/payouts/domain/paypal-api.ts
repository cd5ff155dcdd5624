/**
 * A small client of PayPal's REST API for cash payouts: an OAuth2 token, create a batch payout, read it
 * back with its items, and have PayPal verify a webhook's signature. Written from PayPal's API reference
 * (Payouts v1 `payments.payouts-batch`, Webhooks v1 `verify-webhook-signature`, "Authentication").
 *
 * No SDK: PayPal's official Node SDK for Payouts (`@paypal/payouts-sdk`, last released as 1.1.1, and the
 * older `paypal-rest-sdk` before it) is deprecated: PayPal has retired its per-API SDKs (the Ruby twin,
 * `paypal-payouts-sdk`, is published as "[Deprecated]") in favour of direct REST calls or its newer
 * Server SDKs. Node 20's fetch is all this needs.
 *
 * Every call is one request (no retry here; the caller's sender loop owns its schedule), bounded by
 * `timeoutMs`, except two: the token, fetched once per client id and kept until shortly before its
 * `expires_in`; and a 401 (a token PayPal no longer knows), after which a new token is fetched once and
 * the call made again. A failure is a PayPalError that says whether it may pass (`transient`: no answer,
 * a timeout, 5xx, 429) or will not as it is (any other 4xx). Creating a batch is idempotent twice over,
 * both keyed by the caller's `senderBatchId`: as PayPal-Request-Id (PayPal stores it 30 days and answers
 * a repeat with the first answer, so a retry after a lost answer gets the batch made the first time) and
 * as `sender_batch_id` (PayPal refuses one used in the last 30 days: `duplicateBatch`).
 */
import { errorOf, PayPalError, paypalDecimals, paypalValue, record, text } from './paypal-wire.js';

export { PayPalError } from './paypal-wire.js';

export const PAYPAL_LIVE = 'https://api-m.paypal.com';
export const PAYPAL_SANDBOX = 'https://api-m.sandbox.paypal.com';

/** PayPal's live or sandbox API, or the PAYPAL_API_URL setting (an origin, e.g. a test's stand-in). */
export function paypalBaseUrl(sandbox: boolean, override?: string): string {
  if (override === undefined || override.trim() === '') return sandbox ? PAYPAL_SANDBOX : PAYPAL_LIVE;
  let url: URL;
  try {
    url = new URL(override.trim());
  } catch {
    throw new TypeError(`PAYPAL_API_URL is not a URL: ${override}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`PAYPAL_API_URL must be http(s): ${override}`);
  return url.origin;
}

export interface PayPalCredentials {
  clientId: string;
  clientSecret: string;
  /** The id of the webhook registered in the PayPal app (Developer Dashboard); null: none, nothing verifies. */
  webhookId: string | null;
}

export interface PayPalItem {
  /** Ours, at most 63 characters: it comes back on the item and in its webhook events. */
  senderItemId: string;
  /** The receiver's email address (recipient_type EMAIL). */
  receiver: string;
  /** In the currency's smallest unit as PayPal counts it: cents, or whole units for HUF, JPY, TWD (./paypal-wire.ts). */
  amountMinor: number;
  currency: string;
  note: string;
}

export interface PayPalBatch {
  batchId: string;
  /** DENIED, PENDING, PROCESSING, SUCCESS or CANCELED. */
  batchStatus: string;
  /** transactionStatus: SUCCESS, FAILED, PENDING, UNCLAIMED, RETURNED, ONHOLD, BLOCKED, REFUNDED or REVERSED. */
  items: { payoutItemId: string; senderItemId: string; transactionStatus: string; error?: string }[];
}

const refused = (name: string, message: string) => new PayPalError(message, { status: undefined, name, transient: false });

/** Keep a token until this long before PayPal says it expires (its tokens live about nine hours). */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** The headers PayPal signs a webhook delivery with, and the verify request's field for each. */
const TRANSMISSION_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

interface Token {
  token: string;
  refreshAt: number;
}

/** A client id's token: the request for it, and the token once it came. */
interface TokenSlot {
  secret: string;
  promise: Promise<Token>;
  token?: Token;
}

export class PayPalApi {
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  /** Per client id: its token, or the request for one in flight (concurrent calls share it). */
  readonly #tokens = new Map<string, TokenSlot>();

  /** `now` is for tests (the token's expiry); the real clock otherwise. */
  constructor(options: { baseUrl: string; timeoutMs: number; now?: () => number }) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
  }

  /** POST /v1/payments/payouts: sender_batch_id and PayPal-Request-Id are both `senderBatchId`. */
  async createBatch(
    creds: PayPalCredentials,
    input: { senderBatchId: string; emailSubject: string; emailMessage: string; items: PayPalItem[] },
  ): Promise<{ batchId: string; batchStatus: string }> {
    if (input.items.length === 0 || input.items.length > 15_000) throw refused('INVALID_BATCH', `A PayPal batch holds 1 to 15000 items, not ${input.items.length}`);
    const items = input.items.map((item) => {
      if (paypalDecimals(item.currency) === undefined) throw refused('UNSUPPORTED_CURRENCY', `PayPal does not pay out in ${item.currency}`);
      const value = paypalValue(item.amountMinor, item.currency);
      if (value === undefined) throw refused('INVALID_AMOUNT', `Not an amount PayPal can pay: ${item.amountMinor} (smallest unit of ${item.currency})`);
      return {
        recipient_type: 'EMAIL',
        amount: { value, currency: item.currency.toUpperCase() },
        note: item.note,
        receiver: item.receiver,
        sender_item_id: item.senderItemId,
      };
    });
    const body = {
      sender_batch_header: { sender_batch_id: input.senderBatchId, email_subject: input.emailSubject, email_message: input.emailMessage },
      items,
    };
    const answer = record(await this.#call(creds, 'POST', '/v1/payments/payouts', JSON.stringify(body), input.senderBatchId));
    const header = record(answer.batch_header);
    const batchId = text(header.payout_batch_id);
    const batchStatus = text(header.batch_status);
    if (!batchId || !batchStatus) throw new PayPalError('PayPal answered the payout without a batch_header', { status: undefined, name: 'invalid_response', transient: true });
    return { batchId, batchStatus };
  }

  /** GET /v1/payments/payouts/{batchId}, every page of its items (1000 a page, PayPal's most). */
  async getBatch(creds: PayPalCredentials, batchId: string): Promise<PayPalBatch> {
    const batch: PayPalBatch = { batchId, batchStatus: '', items: [] };
    for (let page = 1, pages = 1; page <= pages; page++) {
      const path = `/v1/payments/payouts/${encodeURIComponent(batchId)}?page=${page}&page_size=1000&total_required=true`;
      const answer = record(await this.#call(creds, 'GET', path));
      const header = record(answer.batch_header);
      batch.batchStatus = text(header.batch_status) ?? '';
      if (!batch.batchStatus) throw new PayPalError(`PayPal answered batch ${batchId} without a batch_status`, { status: undefined, name: 'invalid_response', transient: true });
      for (const raw of Array.isArray(answer.items) ? answer.items : []) {
        const item = record(raw);
        const errors = record(item.errors);
        const error = text(errors.name) ? [errors.name, errors.message].filter(Boolean).join(': ') : undefined;
        batch.items.push({
          payoutItemId: text(item.payout_item_id) ?? '',
          senderItemId: text(record(item.payout_item).sender_item_id) ?? '',
          transactionStatus: text(item.transaction_status) ?? '',
          ...(error !== undefined && { error }),
        });
      }
      // At most 15 pages: a batch holds at most 15000 items.
      pages = typeof answer.total_pages === 'number' ? Math.min(answer.total_pages, 15) : 1;
    }
    return batch;
  }

  /**
   * POST /v1/notifications/verify-webhook-signature: PayPal checks the delivery's transmission headers
   * against the event for our webhook id. True when it answers SUCCESS; false when it answers FAILURE,
   * or nothing can be checked (no webhook id, a transmission header missing). Throws a PayPalError when
   * PayPal cannot be asked (then the delivery should be refused with a 5xx, for PayPal to send it again).
   *
   * `event` is best the raw body as received (a string): it is sent as is, for PayPal checks its CRC32
   * and a re-serialized copy may differ from what it signed; a parsed object is sent as JSON.stringify
   * writes it.
   */
  async verifyWebhook(creds: PayPalCredentials, headers: Record<string, string | string[] | undefined>, event: unknown): Promise<boolean> {
    if (!creds.webhookId) return false;
    const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v[0] : v]));
    const fields: Record<string, string> = {};
    for (const [field, header] of Object.entries(TRANSMISSION_HEADERS)) {
      const value = lower.get(header);
      if (!value) return false;
      fields[field] = value;
    }
    let eventJson: string;
    if (typeof event === 'string') {
      try {
        const parsed: unknown = JSON.parse(event);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
      } catch {
        return false;
      }
      eventJson = event.trim();
    } else {
      eventJson = JSON.stringify(event);
    }
    // The event spliced in as it came (see above); every other field written by JSON.stringify.
    const body = `${JSON.stringify({ ...fields, webhook_id: creds.webhookId }).slice(0, -1)},"webhook_event":${eventJson}}`;
    const answer = record(await this.#call(creds, 'POST', '/v1/notifications/verify-webhook-signature', body));
    return answer.verification_status === 'SUCCESS';
  }

  /** One call with a token; on a 401 a new token and the call once more (the same PayPal-Request-Id). */
  async #call(creds: PayPalCredentials, method: string, path: string, body?: string, requestId?: string): Promise<unknown> {
    const headers = (token: Token) => ({
      authorization: `Bearer ${token.token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(requestId !== undefined && { 'paypal-request-id': requestId }),
    });
    let token = await this.#token(creds);
    let res = await this.#send(method, path, headers(token), body);
    if (res.status === 401) {
      await res.body?.cancel();
      if (this.#tokens.get(creds.clientId)?.token === token) this.#tokens.delete(creds.clientId);
      token = await this.#token(creds);
      res = await this.#send(method, path, headers(token), body);
    }
    return this.#read(res);
  }

  /**
   * The cached token of this client id, or a new one (POST /v1/oauth2/token, client credentials). Not
   * async: the slot is taken before any await, so concurrent calls share one token request.
   */
  #token(creds: PayPalCredentials): Promise<Token> {
    const slot = this.#tokens.get(creds.clientId);
    if (slot && slot.secret === creds.clientSecret && (slot.token === undefined || this.#now() < slot.token.refreshAt)) return slot.promise;
    const fresh: TokenSlot = { secret: creds.clientSecret, promise: this.#newToken(creds) };
    this.#tokens.set(creds.clientId, fresh);
    fresh.promise.then(
      (token) => (fresh.token = token),
      () => this.#tokens.get(creds.clientId) === fresh && this.#tokens.delete(creds.clientId),
    );
    return fresh.promise;
  }

  async #newToken(creds: PayPalCredentials): Promise<Token> {
    const basic = Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64');
    const res = await this.#send('POST', '/v1/oauth2/token', { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
    const answer = record(await this.#read(res));
    const token = text(answer.access_token);
    const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : 0;
    if (!token) throw new PayPalError('PayPal answered the token request without an access_token', { status: undefined, name: 'invalid_response', transient: true });
    return { token, refreshAt: this.#now() + expiresIn - Math.min(TOKEN_MARGIN_MS, expiresIn / 2) };
  }

  async #send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
    try {
      return await fetch(`${this.#baseUrl}${path}`, { method, headers: { accept: 'application/json', ...headers }, body, signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (err) {
      throw this.#unanswered(err, path);
    }
  }

  /** The answer's JSON when 2xx; a PayPalError from PayPal's error body otherwise. */
  async #read(res: Response): Promise<unknown> {
    let raw: string;
    try {
      raw = await res.text();
    } catch (err) {
      throw this.#unanswered(err, new URL(res.url).pathname);
    }
    let json: unknown;
    try {
      json = raw === '' ? {} : JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const debugId = res.headers.get('paypal-debug-id') ?? undefined;
    if (res.ok) {
      if (json === undefined) throw new PayPalError(`PayPal answered ${res.status} with a body that is not JSON`, { status: res.status, name: 'invalid_response', transient: true, debugId });
      return json;
    }
    throw errorOf(res.status, record(json), debugId);
  }

  #unanswered(err: unknown, path: string): PayPalError {
    const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const message = timeout ? `PayPal did not answer ${path} within ${this.#timeoutMs} ms` : `PayPal could not be reached (${path}): ${err instanceof Error ? err.message : String(err)}${cause}`;
    return new PayPalError(message, { status: undefined, name: 'network', transient: true });
  }
}
