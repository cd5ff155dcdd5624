/**
 * When a failed attempt is tried again, and after how long. The service says so itself: a 429
 * (rate_limited), a 503 (service_closing, database_unavailable) and a 409 idempotency_in_progress all come
 * with Retry-After, and all are refused before anything was done, so that sending the same request again
 * is safe whatever the operation. Without an answer (the connection failed or timed out) the request may
 * or may not have been done: it is sent again only when that is harmless, a read or an operation that
 * takes an Idempotency-Key (the same key on every attempt, so the service does it at most once).
 */

/** The statuses whose refusal did nothing and asks to come back later. */
const RETRIED_STATUSES = new Set([429, 503]);

export interface RetryPolicy {
  /** Attempts after the first (default 2). */
  maxRetries: number;
  /** The longest wait before an attempt, in ms (default 30 s): a longer Retry-After is not waited. */
  maxRetryWait: number;
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Without a Retry-After: 0.5 s, 1 s, 2 s... with jitter, so that many clients refused at once spread out. */
export function backoff(attempt: number): number {
  return Math.round(500 * 2 ** attempt * (0.5 + Math.random() / 2));
}

/**
 * The wait (ms) before the next attempt after an answer with this status and code, or undefined when that
 * answer is final: not a retried one, no retries left, or a Retry-After beyond the policy's longest wait
 * (a day's wait for a code change is better said to the caller than slept through).
 */
export function waitAfterAnswer(status: number, code: string, retryAfter: number | undefined, attempt: number, policy: RetryPolicy): number | undefined {
  const retried = RETRIED_STATUSES.has(status) || (status === 409 && code === 'idempotency_in_progress');
  if (!retried || attempt >= policy.maxRetries) return undefined;
  const wait = retryAfter === undefined ? Math.min(backoff(attempt), policy.maxRetryWait) : retryAfter * 1000;
  return wait > policy.maxRetryWait ? undefined : wait;
}

/** The wait (ms) before the next attempt after no answer at all, or undefined when it is not sent again. */
export function waitAfterNoAnswer(resendable: boolean, attempt: number, policy: RetryPolicy): number | undefined {
  if (!resendable || attempt >= policy.maxRetries) return undefined;
  return Math.min(backoff(attempt), policy.maxRetryWait);
}

/** Waits ms, or less when the signal aborts (then rejects with its reason). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
