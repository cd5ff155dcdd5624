/**
 * `refkit webhook listen`: a webhook receiver for development, in the spirit of `stripe listen`. It
 * registers an endpoint for a local port, prints each event it receives with whether its signature
 * verifies, optionally forwards it (same body and signature headers) to your app, and removes the
 * endpoint when stopped. Forwarding answers the service with your app's status, so a failing handler
 * is retried exactly as it would be in production. A delivery whose `webhook-id` was already handled
 * (forwarded with a 2xx answer, or printed when there is nowhere to forward) is not forwarded again: a
 * replayed request is acknowledged and flagged. Whatever the request says is printed escaped, so no
 * body, signed or not, can move the cursor, recolour or forge lines in the terminal.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LRUCache } from 'lru-cache';
import { Webhook } from 'standardwebhooks';
import type { RewardCodesLowEvent, WebhookEvent, WebhookEventType } from '../../../api/schemas.js';

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  events: WebhookEventType[];
  /** Where to send each event on to, e.g. `http://localhost:3000/webhooks/refkit`. */
  forwardTo?: string;
  /** Registers an endpoint for `url`; the service signs with the secret it returns. */
  register(url: string, events: WebhookEventType[]): Promise<{ id: string; secret: string }>;
  unregister(id: string): Promise<void>;
  print(line: string): void;
}

export interface Listener {
  url: string;
  secret: string;
  stop(): Promise<void>;
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;


/** Who or what an event is about, in a few words: a participant's email and code, an erased participant's id, a pool. */
function describe(data: Record<string, unknown> | undefined): string {
  if (!data) return '';
  if ('email' in data) return `${String(data.email)} (${String(data.code)})`;
  if ('erasedAt' in data) return `participant ${String(data.participantId)} erased`;
  return `${String(data.kind)} codes: ${String(data.available)} left`;
}

/** How many handled `webhook-id`s are remembered: far more than a development session receives. */
const REMEMBERED_IDS = 10_000;

/**
 * Text from a request, safe to print: control characters (C0, DEL, C1: escape sequences, carriage
 * returns, newlines) and the bidirectional overrides that reorder what a line seems to say are shown
 * as \u escapes instead of acting on the terminal.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

export async function listen(options: ListenOptions): Promise<Listener> {
  // The secret arrives with the endpoint, which needs the server's port first.
  const signing: { verifier?: Webhook } = {};
  // The ids handled, or being forwarded now (so that a replay sent meanwhile is not forwarded too).
  const handled = new LRUCache<string, true>({ max: REMEMBERED_IDS });
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const headers = Object.fromEntries(SIGNATURE_HEADERS.map((h) => [h, String(req.headers[h] ?? '')]));
      let verified = false;
      let event: Partial<WebhookEvent | RewardCodesLowEvent> = {};
      try {
        event = signing.verifier!.verify(body, headers) as WebhookEvent;
        verified = true;
      } catch {
        try {
          event = JSON.parse(body) as WebhookEvent;
        } catch {
          // not JSON: printed as unknown
        }
      }
      const id = headers['webhook-id']!;
      const replayed = verified && handled.has(id);
      const who = describe(event.data);
      const time = new Date().toISOString().slice(11, 19);
      const verdict = !verified ? 'SIGNATURE INVALID' : replayed ? 'signature verified, DUPLICATE webhook-id: already handled, not forwarded' : 'signature verified';
      options.print(`${time}  ${printable(`${String(event.eventType ?? 'unknown')}  ${who}  ${id}`)}  ${verdict}`);
      let status = verified ? 200 : 400;
      if (verified && !replayed) {
        handled.set(id, true);
        if (options.forwardTo) status = await forward(options.forwardTo, body, headers, options.print);
        // Not handled after all: the service's retry of it must reach the app.
        if (status < 200 || status > 299) handled.delete(id);
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/`;
  let endpoint: { id: string; secret: string };
  try {
    endpoint = await options.register(url, options.events);
  } catch (err) {
    server.close();
    throw err;
  }
  signing.verifier = new Webhook(endpoint.secret);
  return {
    url,
    secret: endpoint.secret,
    async stop() {
      await options.unregister(endpoint.id);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends the event on with its signature headers; the answer's status, or 502 when there was none. */
async function forward(target: string, body: string, headers: Record<string, string>, print: (line: string) => void): Promise<number> {
  try {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });
    print(`  -> POST ${target} [${res.status}]`);
    return res.status;
  } catch (err) {
    print(`  -> POST ${target} failed: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
    return 502;
  }
}
