/** A webhook receiver on loopback that records every request and answers as the test says. */
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** Path and query, as requested. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, byte for byte as sent (what a signature is computed over). */
  body: string;
}

export interface Answer {
  status: number;
  /** Answer only after this long (a request held open longer than the sender's timeout is a timeout). */
  delayMs?: number;
  headers?: OutgoingHttpHeaders;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How to answer the n-th request (1-based): a status, optionally after a delay; default 200 at once. */
  respond: (n: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver = { received: [] as Received[], respond: () => ({ status: 200 }) } as unknown as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, delayMs, headers } = receiver.respond(receiver.received.length);
      const answer = () => {
        if (!res.destroyed) res.writeHead(status, headers).end();
      };
      if (delayMs) setTimeout(answer, delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Polls until `check` returns a truthy value (bounded), and returns it. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A loopback port where nothing listens (yet): taken from the OS, then released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
