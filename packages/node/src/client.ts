/**
 * The client: `new Refkit({ apiKey })`, then a method per operation a secret key may call, named by its
 * operationId. The methods are made at load from the generated table (./operations.ts), not written one
 * by one, and typed by the interface merged into the class below (./types.ts), so that a new route is a
 * new method after `npm run api:generate`, with no code here.
 */
import { randomUUID } from 'node:crypto';
import { RefkitError, errorFromAnswer } from './errors.js';
import { OPERATIONS, type OperationId } from './operations.js';
import { PagedList, nextLink, type Page } from './paging.js';
import { abortedError, attempt, buildRequest, type Answer, type Entry, type Request } from './request.js';
import { retryAfterSeconds, sleep, waitAfterAnswer, waitAfterNoAnswer, type RetryPolicy } from './retry.js';
import type { Methods, RequestOptions } from './types.js';
import { VERSION } from './version.js';

export interface RefkitOptions {
  /** A secret key of your Refkit account (`npx refkit key create`, or the dashboard's API keys). */
  apiKey: string;
  /** Where the service answers (default http://localhost:8787, the service's default PORT). */
  baseUrl?: string;
  /** Per attempt, in ms, the answer's body included (default 30000). */
  timeout?: number;
  /** Attempts after the first, for the refusals that ask to come back and, when safe, for no answer (default 2). */
  maxRetries?: number;
  /** The longest wait before a retry, in ms (default 30000): a Retry-After beyond it is thrown, not waited. */
  maxRetryWait?: number;
  /** The fetch to send with (default: the global one); e.g. one with a proxy agent, or a test's. */
  fetch?: typeof fetch;
  /** The User-Agent (default `@refkit/node/<version>`); put your app's name in front of it, say. */
  userAgent?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8787';

// The class and this interface merge: the class is made at runtime with a method per operation, and the
// interface tells TypeScript each one's parameters and answer.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the methods are defined on the prototype in the static block
export interface Refkit extends Methods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Refkit {
  /** The service's address, without a trailing slash. */
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #timeout: number;
  readonly #policy: RetryPolicy;
  readonly #userAgent: string;

  constructor(options: RefkitOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey === '') throw new TypeError('new Refkit({ apiKey }): apiKey, a secret key of your account, is required');
    this.#apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    // Said now rather than as a network_error at the first call: 'refkit.example.com' or 'localhost:8787'
    // (which URL reads as the scheme "localhost:") lack the http(s):// the calls need.
    if (!/^https?:\/\/[^/]/i.test(this.baseUrl)) throw new TypeError(`new Refkit({ baseUrl }): "${this.baseUrl}" is not an http(s):// address`);
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeout = options.timeout ?? 30_000;
    this.#policy = { maxRetries: options.maxRetries ?? 2, maxRetryWait: options.maxRetryWait ?? 30_000 };
    this.#userAgent = options.userAgent ?? `@refkit/node/${VERSION}`;
  }

  static {
    for (const id of Object.keys(OPERATIONS) as OperationId[]) {
      Object.defineProperty(Refkit.prototype, id, {
        value: function (this: Refkit, params?: Record<string, unknown>, options?: RequestOptions) {
          return this.#call(OPERATIONS[id], params ?? {}, options ?? {});
        },
        writable: true,
        configurable: true,
      });
    }
  }

  #call(entry: Entry, params: Record<string, unknown>, options: RequestOptions): Promise<unknown> | PagedList<unknown> {
    if (!entry.paged) return this.#request(entry, params, options);
    return new PagedList(async (next): Promise<Page<unknown>> => {
      const request = buildRequest(this.baseUrl, entry, params);
      // The next page is the same operation with the Link's query (its cursor), asked of this client's
      // baseUrl: the service writes the Link from the Host it saw, which behind a proxy is not always the
      // address the client uses, and the key goes nowhere else.
      const url = new URL(request.url);
      if (next) url.search = next.search;
      const answer = await this.#send(entry, { ...request, url }, options);
      const items = this.#parse(entry, answer);
      return { items: Array.isArray(items) ? items : [], next: nextLink(answer.headers.get('link'), url) };
    });
  }

  async #request(entry: Entry, params: Record<string, unknown>, options: RequestOptions): Promise<unknown> {
    const answer = await this.#send(entry, buildRequest(this.baseUrl, entry, params), options);
    return this.#parse(entry, answer);
  }

  /** Sends the request until it has a final answer (./retry.ts says which are not); throws unless it is a 2xx. */
  async #send(entry: Entry, request: Request, options: RequestOptions): Promise<Answer> {
    const headers = new Headers(options.headers);
    headers.set('authorization', `Bearer ${this.#apiKey}`);
    headers.set('accept', entry.answer === 'text' ? 'text/csv, application/json;q=0.9' : 'application/json');
    headers.set('user-agent', this.#userAgent);
    if (request.contentType) headers.set('content-type', request.contentType);
    // One key per call, the same on every attempt: a retry after a lost answer gets the first answer back.
    if (entry.idempotent) headers.set('idempotency-key', options.idempotencyKey ?? randomUUID());
    const init: RequestInit = { method: entry.method, headers, ...(request.body !== undefined && { body: request.body }) };
    const resendable = entry.method === 'GET' || entry.idempotent;
    const { signal } = options;
    for (let tries = 0; ; tries++) {
      let answer: Answer;
      try {
        answer = await attempt(this.#fetch, request.url, init, options.timeout ?? this.#timeout, signal);
      } catch (error) {
        const wait = error instanceof RefkitError && error.code !== 'aborted' ? waitAfterNoAnswer(resendable, tries, this.#policy) : undefined;
        if (wait === undefined) throw error;
        await this.#sleep(wait, signal);
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return answer;
      const retryAfter = retryAfterSeconds(answer.headers.get('retry-after'));
      const error = errorFromAnswer(answer.status, answer.headers, answer.text, retryAfter);
      const wait = waitAfterAnswer(answer.status, error.code, retryAfter, tries, this.#policy);
      if (wait === undefined) throw error;
      await this.#sleep(wait, signal);
    }
  }

  async #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, signal);
    } catch {
      throw abortedError(signal!);
    }
  }

  /** The answer's JSON (a CSV export's text as is). */
  #parse(entry: Entry, answer: Answer): unknown {
    if (entry.answer === 'text') return answer.text;
    if (answer.text === '') return undefined;
    try {
      return JSON.parse(answer.text);
    } catch (cause) {
      const requestId = answer.headers.get('request-id') ?? undefined;
      throw new RefkitError({ status: answer.status, code: 'invalid_response', message: 'The answer is not JSON', requestId, body: answer.text, cause });
    }
  }
}
