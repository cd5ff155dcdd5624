/**
 * The service as it is deployed: real `refkit serve` processes on SQLite and PostgreSQL. Restarts keep
 * everything; SIGKILL loses nothing a client was told succeeded (nor its webhook); SIGTERM is graceful;
 * several processes on one PostgreSQL agree; WORKERS=N runs a cluster.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { startProcess, type ServiceProcess, fastWebhooks } from './helpers/process.js';
import { startReceiver, waitFor } from './helpers/receiver.js';

// Through PgBouncer too: several processes share the pooler's server sessions.
const kinds = await databaseKinds({ pgbouncer: true });
const KEY = 'sk_test_0123456789abcdefghijklmnop';
const FAST_WEBHOOKS = fastWebhooks();

for (const kind of kinds) {
  describe(`service processes [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    async function database(): Promise<TestDatabase> {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      return db;
    }
    async function start(db: TestDatabase, env: Record<string, string> = {}): Promise<ServiceProcess> {
      const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, ...env });
      cleanup.push(() => p.stop('SIGKILL'));
      return p;
    }

    it('production (plain serve) seeds nothing and serves no demo; it says where the first key comes from', async () => {
      const db = await database();
      const p = await startProcess({ DATABASE_URL: db.url, NODE_ENV: 'production' });
      cleanup.push(() => p.stop('SIGKILL'));
      assert.match(p.output(), /Secret key:\s+none yet: set REFKIT_SECRET_KEY, or run: DATABASE_URL=\S+ npx refkit key create --name ops/);
      assert.doesNotMatch(p.output(), /Demo/);
      assert.equal((await fetch(`${p.url}/demo/`)).status, 404);
      assert.equal((await fetch(`${p.url}/api/v1/getCampaign?id=demo`)).status, 404);
      assert.equal(await p.stop('SIGTERM'), 0);
    });

    it('demo mode (serve --demo): a fresh database is seeded once; the printed key works; SIGTERM exits cleanly', async () => {
      const db = await database();
      const first = await startProcess({ DATABASE_URL: db.url }, ['--demo']);
      cleanup.push(() => first.stop('SIGKILL'));
      const key = /Secret key:\s+(sk_\S+)/.exec(first.output())![1]!;
      const admin = new RefkitClient({ baseUrl: first.url, secretKey: key });
      assert.equal((await admin.getCampaign('demo')).campaignName, 'Acme Notes launch');
      // The waitlist demo: its own page, a campaign in waitlist mode, and a sign-up there gets a place.
      const waitlistPage = await (await fetch(`${first.url}/demo/waitlist.html`)).text();
      assert.match(waitlistPage, /<referral-widget campaign-id="demo-waitlist"/);
      assert.deepEqual((await admin.listCampaigns()).find((c) => c.campaignId === 'demo-waitlist')?.waitlist, { spotsPerReferral: 5, counts: 'signups' });
      await admin.addParticipant({ id: 'demo-waitlist', email: 'wes@example.com' });
      assert.deepEqual((await admin.getWaitlist('demo-waitlist')).queue.map((e) => [e.position, e.email]), [[1, 'wes@example.com']]);
      assert.equal(await first.stop('SIGTERM'), 0);
      const second = await startProcess({ DATABASE_URL: db.url }, ['--demo']);
      cleanup.push(() => second.stop('SIGKILL'));
      assert.match(second.output(), /shown at first start only/);
      assert.equal((await fetch(`${second.url}/demo/`)).status, 200);
      assert.equal((await new RefkitClient({ baseUrl: second.url, secretKey: key }).listApiKeys()).length, 1);
    });

    it('SIGKILL after commits loses nothing: participants, balances, and the pending webhook', async () => {
      const db = await database();
      const receiver = await startReceiver();
      cleanup.push(() => receiver.close());
      // The first attempt hangs, so the event is committed but not delivered when the process dies.
      receiver.respond = (n) => (n === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 });
      let p = await start(db, FAST_WEBHOOKS);
      let admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
      const id = (await admin.createCampaign({ campaignName: 'Crash', hostURL: 'https://crash.example', referrerRewardValue: 7 })).campaignId!;
      await admin.createWebhookEndpoint({ url: receiver.url, eventTypes: ['referee_added'] });
      const ann = await admin.addParticipant({ id, email: 'ann@example.com' });
      for (let i = 0; i < 5; i++) await admin.addParticipant({ id, email: `r${i}@example.com`, referredByCode: ann.referralCode! });
      await admin.qualifyParticipant({ id, email: 'r0@example.com' });
      await admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 3 });
      const before = await admin.getAllParticipants(id);
      await waitFor(() => receiver.received.length >= 1, 'first attempt in flight');
      assert.equal(await p.stop('SIGKILL'), null);

      p = await start(db, FAST_WEBHOOKS);
      admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
      assert.deepEqual(await admin.getAllParticipants(id), before);
      const annAfter = await admin.getParticipant(id, 'ann@example.com');
      assert.deepEqual([annAfter.totalReferrals, annAfter.referralReward, annAfter.referralRewardRedeemed, annAfter.referralRewardBalance], [5, 7, 3, 4]);
      // Every referee_added event arrives after the restart, including the one that was in flight.
      await waitFor(() => new Set(receiver.received.map((r) => r.headers['webhook-id'])).size === 5, 'all five events');
      const delivered = await waitFor(async () => {
        const list = await admin.listWebhookDeliveries({ status: 'delivered' });
        return list.length === 5 && list;
      }, 'all marked delivered');
      assert.ok(delivered.every((d) => d.status === 'delivered'));
    });

    it('several processes on one database: one participant per email, one credit per referral', async () => {
      const db = await database();
      const [a, b] = await Promise.all([start(db), start(db)]);
      const clients = [a, b].map((p) => new RefkitClient({ baseUrl: p.url, secretKey: KEY }));
      const id = (await clients[0]!.createCampaign({ campaignName: 'Two', hostURL: 'https://two.example', referrerRewardValue: 10 })).campaignId!;
      const ann = await clients[1]!.addParticipant({ id, email: 'ann@example.com' });
      const same = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2]!.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! })));
      assert.equal(new Set(same.map((p) => p.referralCode)).size, 1);
      await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2]!.qualifyParticipant({ id, email: 'ben@example.com' })));
      const annAfter = await clients[0]!.getParticipant(id, 'ann@example.com');
      assert.equal(annAfter.totalReferrals, 1);
      assert.equal(annAfter.referralReward, 10);
      assert.equal((await clients[1]!.getAllParticipants(id)).length, 2);
    });

    if (kind.dialect === 'postgres') {
      it('WORKERS=2 serves from a cluster and stops on SIGTERM', async () => {
        const db = await database();
        const p = await start(db, { WORKERS: '2' });
        assert.match(p.output(), /\(2 workers\)/);
        const admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
        const id = (await admin.createCampaign({ campaignName: 'Cluster', hostURL: 'https://c.example' })).campaignId!;
        await Promise.all(Array.from({ length: 20 }, (_, i) => admin.addParticipant({ id, email: `w${i}@example.com` })));
        assert.equal((await admin.getCampaign(id)).participants, 20);
        assert.equal(await p.stop('SIGTERM'), 0);
      });
    }
  });
}
