/**
 * The service signs each webhook per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature
 * with the endpoint's whsec_ secret). verifyWebhook checks that with the standardwebhooks package itself,
 * rather than a copy of its HMAC, and answers the event typed from the contract's `webhooks` map.
 */
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { webhooks } from './openapi.js';

type EventOf<T extends keyof webhooks> = webhooks[T]['post']['requestBody']['content']['application/json'];

/** The type names of the webhook events (referrer_added, referee_added, reward_unlocked...). */
export type WebhookEventType = keyof webhooks;

/** One webhook event; narrow it on `eventType`. */
export type WebhookEvent = { [T in WebhookEventType]: EventOf<T> }[WebhookEventType];

/** The event of one type, e.g. `WebhookEventOf<'referee_added'>`. */
export type WebhookEventOf<T extends WebhookEventType> = EventOf<T>;

/** A Headers, a plain object, or Node's IncomingHttpHeaders (`req.headers`; repeated ones as arrays). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The three headers, found whatever their case. */
function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  if (headers instanceof Headers) {
    for (const name of NAMES) {
      const value = headers.get(name);
      if (value !== null) found[name] = value;
    }
    return found;
  }
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!(NAMES as readonly string[]).includes(lower) || value === undefined) continue;
    // A header sent twice arrives as an array: its values joined, as HTTP would have them on one line.
    found[lower] = Array.isArray(value) ? value.join(lower === 'webhook-signature' ? ' ' : ', ') : value;
  }
  return found;
}

/**
 * The event of a webhook request, once its signature verifies; else throws WebhookVerificationError
 * (a RefkitError of code invalid_signature): answer 400 and do not act on it.
 *
 * `payload` must be the raw body, byte for byte as received (the signature is over it): in express,
 * `express.raw({ type: 'application/json' })`, not `express.json()`. A timestamp more than 5 minutes
 * from now is refused too, so that a captured request cannot be replayed later.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new WebhookVerificationError('The payload must be the raw body (a string or Buffer), not the parsed JSON: the signature is over the exact bytes');
  }
  const raw = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  // A secret that is not one (empty, not base64) throws here, a plain Error: that is the receiver's
  // configuration to fix (answer 500, the service retries), not a sender to refuse.
  const webhook = new Webhook(secret);
  let event: unknown;
  try {
    event = webhook.verify(raw, signatureHeaders(headers));
  } catch (cause) {
    // standardwebhooks says why: missing headers, no matching signature, timestamp too old or too new.
    throw new WebhookVerificationError(`The webhook does not verify: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
  }
  if (typeof event !== 'object' || event === null || typeof (event as { eventType?: unknown }).eventType !== 'string') {
    throw new WebhookVerificationError('The webhook verifies but is not a Refkit event (no eventType)');
  }
  return event as WebhookEvent;
}
