/**
 * The reward engine under parallel calls, on both databases: payments of many referees of one referrer
 * at once credit each milestone exactly once and never pass the ceiling; duplicates of one refund's
 * Idempotency-Key refund once; the hold's releaser releases each credit once when several processes run
 * it together, and picks up after a restart what fell due while the service was down.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { DAY_MS } from '../../src/server/store/migrations.js';
import { waitFor } from './helpers/receiver.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import { startService, type TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-05-01T08:00:00Z');
const clock = { now: START };

async function referees(s: TestService, rules: Record<string, unknown>, n: number) {
  const id = await s.campaign(rules);
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await Promise.all(Array.from({ length: n }, (_, i) => s.admin.addParticipant({ id, email: `r${i}@example.com`, referredByCode: ann.referralCode! })));
  return id;
}

const unlockedEvents = async (s: TestService) =>
  Number((await s.ctx.store.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number | string>().as('n')).where('event_type', '=', 'reward_unlocked').executeTakeFirstOrThrow()).n);

// Through PgBouncer too: concurrent transactions on pooled server sessions must still serialize as one after another.
eachDatabase(
  'reward engine under parallel calls',
  (service, kind) => {
    it('50 parallel first payments of one referrer\'s referees: each milestone credited exactly once, the ceiling never passed', async () => {
      clock.now = START;
      const s = service();
      const milestones = [5, 10, 25, 50].map((referrals) => ({ referrals, reward: 15, label: `At ${referrals}` }));
      const id = await referees(s, { referrerRewardValue: 10, referrerRewardPercent: 10, milestones, maxReferralReward: 1000 }, 50);
      const answers = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => s.admin.qualifyParticipant({ id, email: `r${i}@example.com`, amountPaid: '100.00' })));
      assert.deepEqual(answers.filter((a) => a.status === 'rejected'), []);
      const ann = await s.ctx.store.findParticipantByEmail(id, 'ann@example.com');
      const ledger = (await s.ctx.store.db.selectFrom('reward_entries').selectAll().where('participant_id', '=', ann!.id).execute());
      const reached = ledger.filter((e) => e.kind === 'milestone');
      assert.deepEqual(reached.map((e) => e.label.match(/^Milestone: At (\d+)/)![1]).sort(), ['10', '25', '5', '50']);
      // 50 x (10 + 10 commission) + 4 x 15 = 1060 without the ceiling: 1000 with it, the 60 over recorded as capped.
      const earned = ledger.reduce((sum, e) => sum + e.amount, 0);
      assert.equal(earned, 1000);
      assert.equal(ledger.reduce((sum, e) => sum + e.capped, 0), 60);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 1000);
      await assertCountersAreTheLedger(s, id);
    });

    it('parallel duplicates of one refund\'s Idempotency-Key: one refund, one reversal; the same key later answers the first answer', async () => {
      clock.now = START;
      const s = service();
      const id = await referees(s, { referrerRewardValue: 0, refereeRewardValue: 0, referrerRewardPercent: 10 }, 1);
      await s.admin.qualifyParticipant({ id, email: 'r0@example.com', amountPaid: '200.00' });
      const body = { id, email: 'r0@example.com', amount: '50.00' };
      const answers = await Promise.allSettled(Array.from({ length: 20 }, () => s.admin.refundPayment(body, 'refund-1')));
      const ok = answers.filter((a) => a.status === 'fulfilled');
      assert.ok(ok.length >= 1);
      for (const a of answers) if (a.status === 'rejected') assert.equal((a.reason as { code: string }).code, 'idempotency_in_progress');
      const payments = await s.ctx.store.db.selectFrom('payments').select(['refunded_cents', 'commission_reversed']).execute();
      assert.deepEqual(payments, [{ refunded_cents: 5000, commission_reversed: 5 }]);
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 15);
      await s.admin.refundPayment(body, 'refund-1');
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralRewardBalance, 15);
      await assertCountersAreTheLedger(s, id);
    });

    it('several processes release held credits at once: each credit once, one reward_unlocked for each side of each referral', async () => {
      clock.now = START;
      const s = service();
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook', eventTypes: ['reward_unlocked'] });
      const id = await referees(s, { referrerRewardValue: 3, refereeRewardValue: 2, holdDays: 1 }, 20);
      for (let i = 0; i < 20; i++) await s.admin.qualifyParticipant({ id, email: `r${i}@example.com` });
      const other = await startService(kind, { database: s.database, now: () => clock.now });
      try {
        clock.now = START + DAY_MS;
        // PostgreSQL: at once. SQLite: in turn, as its processes take the write lock (two services in one
        // process cannot wait on each other's lock: better-sqlite3 waits on the event loop's thread).
        const runs = [s.ctx, other.ctx, s.ctx].map((ctx) => () => releaseDueRewards(ctx));
        const released = kind.dialect === 'postgres' ? await Promise.all(runs.map((r) => r())) : [await runs[0]!(), await runs[1]!(), await runs[2]!()];
        assert.equal(released.reduce((a, b) => a + b, 0), 21, 'Ann and her 20 referees, each released by one of them');
        assert.equal(await unlockedEvents(s), 40);
        assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 60);
        await assertCountersAreTheLedger(s, id);
      } finally {
        await other.stop();
      }
    });

    it('a restart picks up what fell due while the service was down: the releaser runs at start', async () => {
      clock.now = START;
      const s = service();
      const id = await referees(s, { referrerRewardValue: 7, holdDays: 2 }, 1);
      await s.admin.qualifyParticipant({ id, email: 'r0@example.com' });
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 0);
      clock.now = START + 3 * DAY_MS;
      const restarted = await startService(kind, { database: s.database, now: () => clock.now, releaseEveryMs: 60_000 });
      try {
        await waitFor(async () => (await restarted.admin.getParticipant(id, 'ann@example.com')).referralReward === 7, 'released at start');
      } finally {
        await restarted.stop();
      }
    });
  },
  { now: () => clock.now, pgbouncer: true },
);
