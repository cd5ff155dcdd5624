/**
 * Campaigns, key hashes and webhook endpoints are cached in each process (src/server/store/caches.ts).
 * A change takes effect at once in the process that made it, and in every other process on the same
 * database within the documented bound (CACHE_CHECK_MS, or a NOTIFY on PostgreSQL): a revoked key is
 * refused, a paused campaign takes no sign-ups, a new endpoint gets the next event. Referral codes'
 * owners are kept without invalidation (a code is its participant's for good), so only committed rows
 * may be kept, and an unknown code never is.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { startProcess, type ServiceProcess } from './helpers/process.js';
import { waitFor } from './helpers/receiver.js';
import { eachDatabase } from './helpers/suite.js';

eachDatabase('caches in one process', (service) => {
  it('a revoked key is refused at once, though it was just used (and so cached)', async () => {
    const s = service();
    const id = await s.campaign();
    const { id: keyId, key } = await s.admin.createApiKey('short-lived');
    const client = new RefkitClient({ baseUrl: s.url, secretKey: key });
    assert.deepEqual(await client.getAllParticipants(id), []);
    await s.admin.revokeApiKey(keyId);
    await rejects(() => client.getAllParticipants(id), 401, 'unauthorized');
  });

  it('a paused campaign takes no sign-up at once, and its edits show at once', async () => {
    const s = service();
    const id = await s.campaign();
    await s.browser.addParticipant({ id, email: 'ann@example.com' });
    assert.equal((await s.browser.getCampaign(id)).status, 'Active');
    await s.admin.setCampaignStatus(id, 'Pause');
    await rejects(() => s.browser.addParticipant({ id, email: 'ben@example.com' }), 409, 'campaign_paused');
    await s.admin.updateCampaign({ id, rewardHeader: 'Now paused' });
    const c = await s.browser.getCampaign(id);
    assert.deepEqual([c.status, c.rewardHeader, c.participants], ['Pause', 'Now paused', 1]);
  });

  it('an endpoint added after events were emitted (and the empty list cached) gets the next event; a removed one does not', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'before@example.com' });
    const endpoint = await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] });
    await s.admin.addParticipant({ id, email: 'during@example.com' });
    await s.admin.deleteWebhookEndpoint(endpoint.id);
    await s.admin.addParticipant({ id, email: 'after@example.com' });
    const deliveries = await s.admin.listWebhookDeliveries({ endpointId: endpoint.id });
    assert.equal(deliveries.length, 1, 'only the event emitted while the endpoint existed');
  });

  it('a code checked before its participant joined is valid from the moment they have; a code only a rolled-back transaction saw never is', async () => {
    const s = service();
    const id = await s.campaign();
    const { store } = s.ctx;
    const now = s.ctx.now();
    const row = (email: string, code: string) => ({ campaign_id: id, email, email_key: email, code, created_on: now, updated_on: now, signup_source: 'api' as const });

    // Unknown, then taken: the first answer was not kept.
    assert.equal(await s.browser.validateCode(id, 'LATE0001'), false);
    await store.insertParticipant(row('late@example.com', 'LATE0001'));
    assert.equal(await s.browser.validateCode(id, 'LATE0001'), true);
    assert.equal(await s.browser.validateCode(id, 'LATE0001'), true, 'and again, from the cache');

    // Read inside a transaction that then rolls back: that participant never existed.
    const undone = new Error('rolled back');
    await assert.rejects(
      store.transaction(async (tx) => {
        const inserted = await tx.insertParticipant(row('gone@example.com', 'GONE0001'));
        assert.equal((await tx.codeOwner(id, 'GONE0001'))?.id, inserted!.id);
        throw undone;
      }),
      undone,
    );
    assert.equal(await store.codeOwner(id, 'GONE0001'), undefined);
    assert.equal(await s.browser.validateCode(id, 'GONE0001'), false);
  });
});

// Through PgBouncer too: a pooler cannot carry LISTEN: other processes' changes must still reach the caches.
const kinds = await databaseKinds({ pgbouncer: true });
const KEY = 'sk_caches_test_0123456789abcdefghijklmnop';

for (const kind of kinds) {
  describe(`caches across processes [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    async function start(db: TestDatabase): Promise<ServiceProcess> {
      const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY });
      cleanup.push(() => p.stop('SIGKILL'));
      return p;
    }

    it('a key revoked and a campaign paused in one process take effect in the other within the bound', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      const [a, b] = await Promise.all([start(db), start(db)]);
      const adminA = new RefkitClient({ baseUrl: a.url, secretKey: KEY });
      const id = (await adminA.createCampaign({ campaignName: 'Two', hostURL: 'https://two.example' })).campaignId!;
      const { id: keyId, key } = await adminA.createApiKey('shared');
      const inA = new RefkitClient({ baseUrl: a.url, secretKey: key });
      const inB = new RefkitClient({ baseUrl: b.url, secretKey: key });
      const browserB = new RefkitClient({ baseUrl: b.url });
      // Both processes have read (and cached) the key and the campaign.
      await inA.getAllParticipants(id);
      await inB.getAllParticipants(id);
      await browserB.addParticipant({ id, email: 'ann@example.com' });

      await adminA.revokeApiKey(keyId);
      await rejects(() => inA.getAllParticipants(id), 401, 'unauthorized');
      await waitFor(
        () => inB.getAllParticipants(id).then(() => false, (err: { status?: number }) => err.status === 401),
        'the revocation in the other process',
      );

      await adminA.setCampaignStatus(id, 'Pause');
      await waitFor(
        () => browserB.addParticipant({ id, email: `ben${Date.now()}@example.com` }).then(() => false, (err: { code?: string }) => err.code === 'campaign_paused'),
        'the pause in the other process',
      );
      assert.equal((await browserB.getCampaign(id)).status, 'Pause');
    });
  });
}
