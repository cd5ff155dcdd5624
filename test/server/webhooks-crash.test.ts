/**
 * The outbox survives a crash: the real service (`refkit serve` in a child process) is killed with
 * SIGKILL after a signup has committed and before its webhook was delivered, started again on the same
 * database, and the event still arrives, with the same webhook-id, on SQLite and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { RefkitClient } from '../../src/api/client.js';
import type { WebhookEvent } from '../../src/api/schemas.js';
import type { TestDatabase } from './helpers/databases.js';
import { kindsAtOnce } from './helpers/suite.js';
import { startProcess, type ServiceProcess } from './helpers/process.js';
import { freePort, startReceiver, waitFor, type Receiver } from './helpers/receiver.js';

const KEY = 'sk_crash_test_0123456789abcdefghijklmnop';
/** Timeout below the lease, so a live sender never loses its claim; short enough for a test. */
const WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '2500', WEBHOOK_POLL_MS: '50' };

kindsAtOnce('webhooks survive SIGKILL', (kind) => {
  describe(`webhooks survive SIGKILL [${kind.name}]`, { skip: kind.skip, concurrency: 1 }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    async function database(): Promise<TestDatabase> {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      return db;
    }
    async function receiver(port?: number): Promise<Receiver> {
      const r = await startReceiver(port);
      cleanup.push(() => r.close());
      return r;
    }
    async function start(db: TestDatabase, env: Record<string, string>): Promise<{ p: ServiceProcess; admin: RefkitClient }> {
      const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, ...WEBHOOKS, ...env });
      cleanup.push(() => p.stop('SIGKILL'));
      return { p, admin: new RefkitClient({ baseUrl: p.url, secretKey: KEY }) };
    }
    async function prepare(admin: RefkitClient, url: string) {
      const endpoint = await admin.createWebhookEndpoint({ url, eventTypes: ['referrer_added', 'referee_added'] });
      const id = (await admin.createCampaign({ campaignName: 'Crash', hostURL: 'https://crash.example', referrerRewardValue: 7 })).campaignId!;
      return { endpoint, id };
    }

    it('killed while the first attempt is in flight: after a restart the event arrives, same webhook-id', async () => {
      const db = await database();
      const r = await receiver();
      // The first request is held open (never answered): the attempt is in flight, nothing is delivered.
      r.respond = (n) => (n === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 });
      const first = await start(db, { WEBHOOK_RETRY_DELAYS_MS: '200,200' });
      const { endpoint, id } = await prepare(first.admin, r.url);
      const ann = await first.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann' });
      await waitFor(() => r.received.length === 1, 'the first attempt in flight');
      assert.equal(await first.p.stop('SIGKILL'), null, 'killed by the signal');
      const inFlight = r.received[0]!;
      const webhookId = inFlight.headers['webhook-id'];

      const second = await start(db, { WEBHOOK_RETRY_DELAYS_MS: '200,200' });
      // Once the dead process's claim runs out, the new one sends the event again.
      await waitFor(() => r.received.length >= 2, 'the event after the restart');
      const [d] = await waitFor(async () => {
        const list = await second.admin.listWebhookDeliveries({ status: 'delivered' });
        return list.length === 1 && list;
      }, 'delivered');
      assert.equal(r.received.length, 2, 'sent once more, not more');
      const again = r.received[1]!;
      assert.equal(again.headers['webhook-id'], webhookId);
      assert.equal(d!.eventId, webhookId);
      assert.equal(d!.endpointId, endpoint.id);
      assert.equal(again.body, inFlight.body, 'the same event');
      const event = new Webhook(endpoint.secret).verify(again.body, again.headers as Record<string, string>) as WebhookEvent;
      assert.equal(event.eventType, 'referrer_added');
      assert.deepEqual([event.data.email, event.data.code, event.data.firstName, event.data.campaignId], ['ann@example.com', ann.referralCode, 'Ann', id]);
      // The attempt that died with the process left no record; the one that succeeded did.
      assert.equal(d!.attempts.filter((a) => a.statusCode === 200).length, 1);
      assert.equal(d!.attempts.at(-1)!.statusCode, 200);
      assert.equal((await second.admin.getParticipant(id, 'ann@example.com')).referralCode, ann.referralCode);
    });

    it('killed while the receiver is down: the pending retries survive, and the event arrives once it is up', async () => {
      const db = await database();
      const port = await freePort();
      const first = await start(db, { WEBHOOK_RETRY_DELAYS_MS: '1000,1000,1000,1000,1000,1000' });
      const { endpoint, id } = await prepare(first.admin, `http://127.0.0.1:${port}/hooks`);
      const ann = await first.admin.addParticipant({ id, email: 'ann@example.com' });
      const ben = await first.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      // Both events have been tried (nothing listens) and wait for a retry when the process dies.
      const tried = await waitFor(async () => {
        const list = await first.admin.listWebhookDeliveries({ status: 'pending' });
        return list.length === 2 && list.every((d) => d.attempts.length >= 1) && list;
      }, 'a failed attempt each');
      for (const d of tried) assert.match(d.attempts[0]!.error ?? '', /ECONNREFUSED/);
      assert.equal(await first.p.stop('SIGKILL'), null);

      const r = await receiver(port);
      const second = await start(db, { WEBHOOK_RETRY_DELAYS_MS: '1000,1000,1000,1000,1000,1000' });
      const delivered = await waitFor(async () => {
        const list = await second.admin.listWebhookDeliveries({ status: 'delivered' });
        return list.length === 2 && list;
      }, 'both delivered after the restart');
      assert.equal(r.received.length, 2);
      const ids = r.received.map((x) => x.headers['webhook-id']).sort();
      assert.deepEqual(ids, tried.map((d) => d.eventId).sort(), 'the same webhook-ids');
      assert.deepEqual(delivered.map((d) => d.id).sort(), tried.map((d) => d.id).sort());
      const events = r.received.map((x) => new Webhook(endpoint.secret).verify(x.body, x.headers as Record<string, string>) as WebhookEvent);
      assert.deepEqual(
        events.map((e) => [e.eventType, e.data.email, e.data.code]).sort(),
        [
          ['referee_added', 'ben@example.com', ben.referralCode],
          ['referrer_added', 'ann@example.com', ann.referralCode],
        ],
      );
      for (const d of delivered) {
        assert.ok(d.attempts.length >= 2);
        assert.ok(d.attempts.slice(0, -1).every((a) => a.statusCode === null && a.error !== null));
        assert.equal(d.attempts.at(-1)!.statusCode, 200);
      }
    });
  });
});
