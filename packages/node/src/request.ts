/**
 * One operation's request on the wire: which of the caller's fields go in the query string and which in
 * the body (the generated table, ./operations.ts, says), and one attempt at sending it, whose every failure
 * without an answer becomes a RefkitError of status 0.
 */
import { RefkitError } from './errors.js';
import type { OPERATIONS, OperationId } from './operations.js';

/** The generated table's entry of one operation. */
export type Entry = (typeof OPERATIONS)[OperationId];

export interface Request {
  url: URL;
  body: string | undefined;
  contentType: string | undefined;
}

/** A query value as the service reads it: numbers and booleans as their text. */
const text = (value: unknown) => (typeof value === 'string' ? value : String(value));

/**
 * The query string and body of a call. Fields the table does not list as query parameters are the JSON
 * body; for a CSV upload, `csv` is the body and the rest the query. A read (no body) sends any other field
 * in the query too, so that the service, not the client, says which field it does not know.
 */
export function buildRequest(baseUrl: string, entry: Entry, params: Record<string, unknown>): Request {
  const url = new URL(baseUrl + entry.path);
  const query = new Set<string>(entry.query);
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (query.has(name) || (entry.body === 'none' && name !== 'csv')) url.searchParams.set(name, text(value));
    else fields[name] = value;
  }
  if (entry.body === 'csv') {
    const { csv, ...rest } = fields;
    for (const [name, value] of Object.entries(rest)) url.searchParams.set(name, text(value));
    return { url, body: typeof csv === 'string' ? csv : '', contentType: 'text/csv; charset=utf-8' };
  }
  if (entry.body === 'json') return { url, body: JSON.stringify(fields), contentType: 'application/json' };
  return { url, body: undefined, contentType: undefined };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Sends once and reads the whole answer within `timeout` ms (the body's read too: a stalled stream is a
 * timeout, not a hang). No answer is a RefkitError: aborted by the caller, timeout, or network_error.
 */
export async function attempt(fetchFn: typeof fetch, url: URL, init: RequestInit, timeout: number, signal: AbortSignal | undefined): Promise<Answer> {
  const timer = AbortSignal.timeout(timeout);
  try {
    const response = await fetchFn(url, { ...init, signal: signal ? AbortSignal.any([signal, timer]) : timer });
    return { status: response.status, headers: response.headers, text: await response.text() };
  } catch (cause) {
    if (signal?.aborted) throw abortedError(signal);
    if (timer.aborted) throw new RefkitError({ status: 0, code: 'timeout', message: `No answer from ${url.origin} within ${timeout} ms`, cause });
    const reason = cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
    throw new RefkitError({ status: 0, code: 'network_error', message: `Could not reach ${url.origin}${reason}`, cause });
  }
}

/** The caller's signal aborted the call (during an attempt or a wait between attempts). */
export function abortedError(signal: AbortSignal): RefkitError {
  return new RefkitError({ status: 0, code: 'aborted', message: 'The call was aborted', cause: signal.reason });
}
