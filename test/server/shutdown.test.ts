/**
 * Graceful shutdown under load: SIGTERM in the middle of a burst of sign-ups. Every request is either
 * answered 2xx, refused with 503 (it arrived while closing), or fails to connect; none gets a 500 from
 * a database closed under its handler; and every sign-up answered 200 is in the database afterwards.
 * Underneath: shutdown waits for handlers, not only connections, since a handler outlives a client that
 * went away.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, it } from 'node:test';
import Fastify from 'fastify';
import { RefkitClient } from '../../src/api/client.js';
import { closing as closingPlugin } from '../../src/server/http/closing.js';
import { trackHandlers } from '../../src/server/http/handlers.js';
import { databaseKinds } from './helpers/databases.js';
import { startProcess, NO_RATE_LIMITS } from './helpers/process.js';
import { startService } from './helpers/service.js';

const KEY = 'sk_test_0123456789abcdefghijklmnop';
const CONCURRENCY = 50;
/** Responses before the signal: the burst is well under way, and it keeps going while the service stops. */
const ANSWERED_BEFORE_SIGNAL = 100;
/** How fetch reports a connection the service refused, reset or closed: the outcomes a client may see. */
const CONNECTION_ERROR = /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/;

// Through PgBouncer too: transactions in flight when a process closes go through pooled sessions.
const kinds = await databaseKinds({ pgbouncer: true });

for (const kind of kinds) {
  describe(`graceful shutdown [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });

    it('SIGTERM mid-burst: 2xx, 503 or a connection error, never a 500; every 200 is stored', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      // Rate limits off: the burst comes from one IP, and a 429 would hide what this test looks for.
      const env = { DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, ...NO_RATE_LIMITS };
      const service = await startProcess(env);
      cleanup.push(() => service.stop('SIGKILL'));
      const admin = new RefkitClient({ baseUrl: service.url, secretKey: KEY });
      const id = (await admin.createCampaign({ campaignName: 'Shutdown', hostURL: 'https://shutdown.example' })).campaignId!;
      const ann = await admin.addParticipant({ id, email: 'ann@example.com' });

      const statuses = new Map<number, number>();
      const connectionErrors = new Map<string, number>();
      const stored: string[] = [];
      let next = 0;
      let answered = 0;
      let exited = false;
      let openAtSignal = -1;
      let open = 0;
      let signalled: Promise<number | null> | undefined;

      const worker = async () => {
        while (!exited) {
          const email = `burst${next++}@example.com`;
          open++;
          try {
            const res = await fetch(`${service.url}/api/v1/addParticipant`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ id, email, referredByCode: ann.referralCode }),
            });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status === 200) stored.push(email);
          } catch (err) {
            const code = String((err as { cause?: { code?: string } }).cause?.code);
            connectionErrors.set(code, (connectionErrors.get(code) ?? 0) + 1);
          } finally {
            open--;
          }
          if (++answered === ANSWERED_BEFORE_SIGNAL) {
            openAtSignal = open;
            signalled = service.stop('SIGTERM').then((code) => ((exited = true), code));
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      assert.equal(await signalled, 0, `exit code; output:\n${service.output()}`);

      assert.ok(openAtSignal > 0, 'requests were in flight when the signal came');
      const unexpected = [...statuses.keys()].filter((s) => !(s >= 200 && s < 300) && s !== 503);
      assert.deepEqual(unexpected, [], `statuses: ${JSON.stringify([...statuses])}`);
      for (const code of connectionErrors.keys()) assert.match(code, CONNECTION_ERROR, `errors: ${JSON.stringify([...connectionErrors])}`);
      assert.ok(stored.length >= ANSWERED_BEFORE_SIGNAL / 2, `sign-ups answered 200: ${stored.length}`);

      const after = await startProcess(env);
      cleanup.push(() => after.stop('SIGKILL'));
      const reader = new RefkitClient({ baseUrl: after.url, secretKey: KEY });
      const missing: string[] = [];
      for (const email of stored) {
        const p = await reader.getParticipant(id, email).catch(() => undefined);
        if (p?.email !== email) missing.push(email);
      }
      assert.deepEqual(missing, [], 'every sign-up answered 200 is in the database');
      assert.equal((await reader.getParticipant(id, 'ann@example.com')).totalReferrals, (await reader.getCampaign(id)).participants! - 1);
    });
  });
}

describe('shutdown waits for handlers, not only for connections', () => {
  it('a handler whose client went away is waited for after app.close() has returned', async () => {
    const app = Fastify({ logger: false });
    const handlersDone = trackHandlers(app);
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    app.get('/slow', async () => {
      entered();
      await gate;
      finished = true;
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const client = new AbortController();
    const request = fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/slow`, { signal: client.signal }).catch(() => 'aborted');
    await inHandler;
    client.abort();
    assert.equal(await request, 'aborted');

    // No connection is left, so the server closes while the handler is still at work.
    await app.close();
    assert.equal(finished, false);
    let drained = false;
    const draining = handlersDone().then(() => (drained = true));
    await tick();
    assert.equal(drained, false, 'still waiting for the handler');
    release();
    await draining;
    assert.equal(finished, true);
  });

  it('a reply in flight when closing begins says Connection: close, so its kept-alive connection ends with it (src/server/http/closing.ts)', { timeout: 20_000 }, async () => {
    const app = Fastify({ logger: false });
    trackHandlers(app);
    await app.register(closingPlugin);
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    app.get('/slow', async () => {
      entered();
      await gate;
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const agent = new http.Agent({ keepAlive: true });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: (app.server.address() as AddressInfo).port, path: '/slow', agent }, (res) => res.resume().on('end', () => resolve(res))).on('error', reject);
    });
    await inHandler;
    const closing = app.close();
    // Closing has begun once the server stops listening (after the preClose hooks).
    while (app.server.listening) await sleep(5);
    release();
    const res = await response;
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.connection, 'close', 'the in-flight reply ends its connection');
    // Without the header the idle kept-alive connection would hold app.close() for the keep-alive timeout (72 s), past this test's limit.
    await closing;
    agent.destroy();
  });

  it('resolves at once when no handler is running, errors included', { timeout: 10_000 }, async () => {
    const app = Fastify({ logger: false });
    const handlersDone = trackHandlers(app);
    app.get('/fails', async () => {
      throw new Error('handler error');
    });
    assert.equal((await app.inject('/fails')).statusCode, 500);
    assert.equal((await app.inject('/missing')).statusCode, 404);
    await app.close();
    await handlersDone();
  });
});

describe('a request that reaches a closing service', () => {
  it('is answered 503 service_closing in the envelope, with Retry-After and Connection: close, and runs no handler', { timeout: 20_000 }, async () => {
    const [sqlite] = await databaseKinds({ pgbouncer: true });
    const s = await startService(sqlite!);
    const id = await s.campaign();
    try {
      // Two connections, each with a request begun before closing begins, so that neither is idle (closing
      // ends idle connections). The first is routed then (its headers are in) and held by its unfinished
      // body; the second's request line is unfinished, so that it reaches the service once closing has.
      /** A sign-up's request as it goes on the wire. */
      const signUp = (email: string) => {
        const body = JSON.stringify({ id, email });
        return `POST /api/v1/addParticipant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      };
      const [first, second] = [signUp('first@example.com'), signUp('second@example.com')];
      const { port } = new URL(s.url);
      /** A connection to the service, and what came back on it once the service closed it. */
      const connection = async () => {
        const socket = net.connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
        const ended = once(socket, 'close').then(() => received.split(/(?=HTTP\/1\.1 )/));
        return { socket, ended };
      };
      const [a, b] = [await connection(), await connection()];
      a.socket.write(first.slice(0, -5));
      b.socket.write(second.slice(0, 10));
      await sleep(100);
      const closed = s.app.close();
      while (s.app.server.listening) await sleep(5);
      a.socket.write(first.slice(-5));
      b.socket.write(second.slice(10));
      const [onA, onB] = [await a.ended, await b.ended];
      await closed;
      assert.equal(onA.length, 1, onA.join());
      assert.match(onA[0]!, /^HTTP\/1\.1 200 /);
      assert.match(onA[0]!, /\r\nconnection: close\r\n/i, 'the reply in flight ends its connection');
      assert.equal(onB.length, 1, onB.join());
      assert.match(onB[0]!, /^HTTP\/1\.1 503 /);
      assert.match(onB[0]!, /\r\nretry-after: 1\r\n/i);
      assert.match(onB[0]!, /\r\nconnection: close\r\n/i);
      const [, json] = onB[0]!.split('\r\n\r\n');
      assert.deepEqual(JSON.parse(json!), { error: { code: 'service_closing', message: 'This process is shutting down; send the request again (to another process) after the time in Retry-After' } });
      // The first was stored; the second never reached its handler.
      const emails = (await s.ctx.store.db.selectFrom('participants').select('email').where('campaign_id', '=', id).execute()).map((r) => r.email);
      assert.deepEqual(emails, ['first@example.com']);
    } finally {
      await s.close();
    }
  });
});
