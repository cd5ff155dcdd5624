/**
 * `refkit webhook listen`: a webhook receiver for development, in the spirit of `stripe listen`. It
 * registers an endpoint for a local port, prints each event it receives with whether its signature
 * verifies, optionally forwards it (same body and signature headers) to your app, and removes the
 * endpoint when stopped. Forwarding answers the service with your app's status, so a failing handler
 * is retried exactly as it would be in production.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent, WebhookEventType } from '../../api/schemas.js';

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
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const headers = Object.fromEntries(SIGNATURE_HEADERS.map((h) => [h, String(req.headers[h] ?? '')]));
      let verified = false;
      let event: Partial<WebhookEvent> = {};
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
      const who = event.data ? `${event.data.email} (${event.data.code})` : '';
      const time = new Date().toISOString().slice(11, 19);
      options.print(`${time}  ${event.eventType ?? 'unknown'}  ${who}  ${headers['webhook-id']}  ${verified ? 'signature verified' : 'SIGNATURE INVALID'}`);
      let status = verified ? 200 : 400;
      if (verified && options.forwardTo) status = await forward(options.forwardTo, body, headers, options.print);
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
