/**
 * SIGKILL in the middle of a burst of sign-ups (on SQLite, group-committed: many requests per COMMIT):
 * every sign-up that was answered 200 is on disk after a restart, with its referral counted and its
 * webhook event in the outbox. Requests cut off by the kill may or may not have landed; none landed half.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import type { WebhookEvent } from '../../src/api/schemas.js';
import { connect } from '../../src/server/store/connect.js';
import { referralsExact } from '../../src/server/store/referral-count-store.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { startProcess, NO_RATE_LIMITS } from './helpers/process.js';

// Not through PgBouncer: a burst under SIGKILL tests what PostgreSQL keeps, which the pooler does not
// change, and is one of the suite's longest files (docs/testing.md).
const kinds = await databaseKinds({ pgbouncer: false });
const KEY = 'sk_burst_test_0123456789abcdefghijklmnop';
const BURST = 400;
/** Kill once this many answers are in: the rest of the burst is still in flight. */
const KILL_AFTER = 40;

for (const kind of kinds) {
  describe(`SIGKILL during a burst of sign-ups [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });

    it('every answered sign-up is on disk with its event and its referral counted', async () => {
      const db: TestDatabase = await kind.create();
      cleanup.push(() => db.drop());
      const p = await startProcess({ DATABASE_URL: db.url, REFKIT_SECRET_KEY: KEY, ...NO_RATE_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
      cleanup.push(() => p.stop('SIGKILL'));
      const admin = new RefkitClient({ baseUrl: p.url, secretKey: KEY });
      const id = (await admin.createCampaign({ campaignName: 'Burst', hostURL: 'https://burst.example' })).campaignId!;
      // An endpoint takes the sign-ups' events, so that each is written to the outbox (none is without one).
      // Nothing listens on the discard port: the deliveries stay in the outbox, pending.
      await admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added', 'referee_added'] });
      const ann = await admin.addParticipant({ id, email: 'ann@example.com' });

      const answered: string[] = [];
      let killed: Promise<number | null> | undefined;
      const signUp = async (i: number) => {
        const email = `b${i}@example.com`;
        try {
          const res = await fetch(`${p.url}/api/v1/addParticipant`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ id, email, referredByCode: ann.referralCode }),
          });
          if (res.status !== 200) throw new Error(`${email}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
          answered.push(email);
          if (answered.length === KILL_AFTER) killed = p.stop('SIGKILL');
        } catch (err) {
          // Cut off by the kill: no answer, no promise made.
          if (killed === undefined) throw err;
        }
      };
      await Promise.all(Array.from({ length: BURST }, (_, i) => signUp(i)));
      assert.ok(killed, 'the service was killed during the burst');
      assert.equal(await killed, null, 'killed by the signal');
      assert.ok(answered.length >= KILL_AFTER);

      const after = connect(db.url);
      try {
        // total_referrals as the interface reads it: the column plus the deltas not yet folded into it.
        const rows = await after.db.selectFrom('participants').select(['email', referralsExact('participants').as('total_referrals')]).where('campaign_id', '=', id).execute();
        const stored = new Set(rows.map((r) => r.email));
        const missing = answered.filter((e) => !stored.has(e));
        assert.deepEqual(missing, [], 'answered 200 but not on disk');
        const events = await after.db.selectFrom('webhook_events').select('payload').where('campaign_id', '=', id).execute();
        const evented = new Set(events.map((e) => (JSON.parse(e.payload) as WebhookEvent).data.email));
        assert.deepEqual(answered.filter((e) => !evented.has(e)), [], 'answered 200 but no event in the outbox');
        // Nothing landed half: each stored participant has its event, and the counters agree with the rows.
        assert.deepEqual([...stored].filter((e) => !evented.has(e)), []);
        const referees = rows.length - 1;
        assert.equal(rows.find((r) => r.email === 'ann@example.com')!.total_referrals, referees);
        const counted = await after.db.selectFrom('campaign_counters').select('participants').where('campaign_id', '=', id).execute();
        assert.equal(counted.reduce((n, c) => n + Number(c.participants), 0), rows.length);
      } finally {
        await after.close();
      }
    });
  });
}
