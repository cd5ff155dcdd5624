/**
 * A fault test: the real service (`refkit serve`) is killed with SIGKILL in the middle of a burst of
 * concurrent addParticipant and qualifyParticipant calls, then started again on the same database
 * (SQLite and PostgreSQL). Every call answered 200 is in the database; every referrer's balance is the
 * sum of its credited referrals; every committed change has its event, delivered after the restart; and
 * no event exists for a change that did not commit.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import type { Participant, WebhookEvent } from '../../src/api/schemas.js';
import { databaseKinds } from './helpers/databases.js';
import { startProcess, type ServiceProcess, fastWebhooks } from './helpers/process.js';
import { startReceiver, waitFor } from './helpers/receiver.js';
import { burstUntilKilled } from './helpers/bursts.js';

// Not through PgBouncer: a burst under SIGKILL tests what PostgreSQL keeps, which the pooler does not
// change, and is one of the suite's longest files (docs/testing.md).
const kinds = await databaseKinds({ pgbouncer: false });
const KEY = 'sk_burst_test_Qm4r9XvT2bLp8WzK1nYc7HdJ';
const ENV = { REFKIT_SECRET_KEY: KEY, ...fastWebhooks({ WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200', WEBHOOK_TIMEOUT_MS: '1000' }) };
const REFERRER_REWARD = 10;
const REFEREE_REWARD = 5;
const REFERRERS = 4;
const WAITING = 40;
const NEW = 120;
/** The service is killed once this many calls of the burst have been answered. */
const KILL_AFTER = 30;
/**
 * Calls in flight at once: enough for many to share a group commit, few enough that the kill lands with
 * most of the burst still to come. With all 160 sent at once, one batch could answer them all before the
 * signal arrived (seen on a fast machine: 160 of 160 answered).
 */
const IN_FLIGHT = 16;

interface Call {
  kind: 'add' | 'qualify';
  email: string;
  answered?: Participant;
}

async function all(admin: RefkitClient, id: string): Promise<Participant[]> {
  const out: Participant[] = [];
  for (let page = 1; ; page++) {
    const rows = await admin.getAllParticipants(id, { page, pageSize: 100 });
    out.push(...rows);
    if (rows.length < 100) return out;
  }
}

for (const kind of kinds) {
  describe(`SIGKILL during a burst [${kind.name}]`, { skip: kind.skip }, () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    async function start(url: string): Promise<{ p: ServiceProcess; admin: RefkitClient }> {
      const p = await startProcess({ DATABASE_URL: url, ...ENV });
      cleanup.push(() => p.stop('SIGKILL'));
      return { p, admin: new RefkitClient({ baseUrl: p.url, secretKey: KEY }) };
    }

    it('every answered call is kept, balances add up, and every committed change is delivered once restarted', async () => {
      const db = await kind.create();
      cleanup.push(() => db.drop());
      const r = await startReceiver();
      cleanup.push(() => r.close());
      const first = await start(db.url);
      const id = (await first.admin.createCampaign({ campaignName: 'Burst', hostURL: 'https://burst.example', referrerRewardValue: REFERRER_REWARD, refereeRewardValue: REFEREE_REWARD })).campaignId!;
      await first.admin.createWebhookEndpoint({ url: r.url, eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] });
      const referrers: Participant[] = [];
      for (let i = 0; i < REFERRERS; i++) referrers.push(await first.admin.addParticipant({ id, email: `referrer${i}@example.com` }));
      const codeOf = (i: number) => referrers[i % REFERRERS]!.referralCode!;
      for (let i = 0; i < WAITING; i++) await first.admin.addParticipant({ id, email: `waiting${i}@example.com`, referredByCode: codeOf(i) });

      // The burst: new referred sign-ups and qualifications of waiting referees, all at once, interleaved.
      const calls: Call[] = [];
      for (let i = 0; i < NEW; i++) {
        calls.push({ kind: 'add', email: `new${i}@example.com` });
        if (i < WAITING) calls.push({ kind: 'qualify', email: `waiting${i}@example.com` });
      }
      // Each worker sends its next call as soon as the last is answered; calls sent once the service is
      // gone fail, and are not answered.
      const killed = burstUntilKilled(calls, {
        inFlight: IN_FLIGHT,
        killAfter: KILL_AFTER,
        send: (call, i) =>
          call.kind === 'add'
            ? first.admin.addParticipant({ id, email: call.email, referredByCode: codeOf(i) })
            : first.admin.qualifyParticipant({ id, email: call.email, amountPaid: '12.50' }),
        answered: (call, answer) => void (call.answered = answer),
        kill: () => first.p.stop('SIGKILL'),
      });
      assert.equal(await killed, null, 'killed by the signal');
      const ok = calls.filter((c) => c.answered);
      assert.ok(ok.length >= KILL_AFTER && ok.length < calls.length, `killed in the middle: ${ok.length} of ${calls.length} answered`);

      const { admin } = await start(db.url);
      const participants = await all(admin, id);
      const byEmail = new Map(participants.map((p) => [p.email!, p]));
      for (const c of ok) {
        const p = byEmail.get(c.email);
        assert.ok(p, `${c.email} was answered 200 and is kept`);
        assert.equal(p.referralCode, c.answered!.referralCode);
        if (c.kind === 'qualify') assert.equal(p.rewardEventCompleted, true, `${c.email} was answered qualified`);
      }

      // Balances: each referrer holds exactly the rewards of its credited referrals.
      const referees = participants.filter((p) => p.referredByCode);
      for (const ref of referrers) {
        const mine = referees.filter((p) => p.referredByCode === ref.referralCode);
        const credited = mine.filter((p) => p.rewardEventCompleted);
        const now = byEmail.get(ref.email!)!;
        assert.equal(now.totalReferrals, mine.length, `${ref.email} referrals`);
        assert.equal(now.referralReward, credited.length * REFERRER_REWARD, `${ref.email} reward`);
        assert.equal(now.referralRewardBalance, now.referralReward);
      }
      for (const p of referees) assert.equal(p.refereeReward, p.rewardEventCompleted ? REFEREE_REWARD : 0, p.email);

      // Webhooks: one event per committed change, each delivered (at least once) after the restart.
      const completed = referees.filter((p) => p.rewardEventCompleted);
      const expected = participants.length + completed.length * 2;
      const unique = () => new Map(r.received.map((x) => [x.headers['webhook-id'] as string, JSON.parse(x.body) as WebhookEvent]));
      await waitFor(() => unique().size >= expected, `${expected} distinct events`, 30_000);
      await waitFor(async () => (await admin.listWebhookDeliveries({ status: 'pending' })).length === 0, 'nothing pending', 30_000);
      assert.deepEqual(await admin.listWebhookDeliveries({ status: 'failed' }), []);
      const events = [...unique().values()];
      assert.equal(events.length, expected, 'no event for a change that did not commit');
      const joined = events.filter((e) => e.eventType !== 'reward_unlocked').map((e) => e.data.email).sort();
      assert.deepEqual(joined, participants.map((p) => p.email).sort(), 'one sign-up event per participant');
      const unlocked = events.filter((e) => e.eventType === 'reward_unlocked').map((e) => e.data.email);
      assert.deepEqual(unlocked.filter((e) => !e.startsWith('referrer')).sort(), completed.map((p) => p.email).sort(), 'one unlock per credited referee');
      for (const ref of referrers) {
        const n = completed.filter((p) => p.referredByCode === ref.referralCode).length;
        assert.equal(unlocked.filter((e) => e === ref.email).length, n, `${ref.email}: one unlock per credited referral`);
      }
    });
  });
}
