/**
 * Reward code pools, on both databases: parallel credits draw distinct codes and wait when the pool is
 * empty, a refill serves those waiting oldest first, duplicates are skipped, a bad upload changes
 * nothing, reward_codes_low fires once per crossing, a code never goes to two credits across two
 * service processes, held credits take theirs when released, and the code shows in the ledger, the
 * reward_unlocked event and the participant's own answer.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RewardCodesLowEvent, WebhookEvent } from '../../src/api/schemas.js';
import { signEmail } from '../../src/server/referrals/domain/proof.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { DAY_MS } from '../../src/server/store/migrations.js';
import { rejects } from './helpers/assert.js';
import { startService, type TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-05-01T08:00:00Z');
const clock = { now: START };

const codes = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}-${String(from + i).padStart(4, '0')}`);

/** A campaign with Ann and `n` referees of hers, and a webhook endpoint for the events of codes. */
async function program(s: TestService, fields: Record<string, unknown>, n: number) {
  await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook', eventTypes: ['reward_unlocked', 'reward_codes_low'] });
  const id = await s.campaign(fields);
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  for (let i = 0; i < n; i += 25) {
    await Promise.all(codes('r', Math.min(25, n - i), i).map((r) => s.admin.addParticipant({ id, email: `${r}@example.com`, referredByCode: ann.referralCode! })));
  }
  return id;
}

const events = async <T>(s: TestService, type: string) =>
  (await s.ctx.store.db.selectFrom('webhook_events').select('payload').where('event_type', '=', type).orderBy('id').execute()).map((r) => JSON.parse(r.payload) as T);

/** Every code on a ledger entry of the campaign. */
const givenCodes = async (s: TestService, id: string) =>
  (
    await s.ctx.store.db
      .selectFrom('reward_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .select('e.code')
      .where('p.campaign_id', '=', id)
      .where('e.code', 'is not', null)
      .execute()
  ).map((r) => r.code!);

eachDatabase(
  'reward code pools',
  (service, kind) => {
    it('100 parallel credits from a pool of 60: 60 distinct codes, 40 waiting; a refill serves the 40, oldest first, in the same call', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 1, refereeRewardValue: 5 }, 100);
      assert.deepEqual(await s.admin.addRewardCodes({ id, kind: 'referee', codes: codes('GIFT', 60) }), {
        added: 60,
        duplicates: 0,
        served: 0,
        pool: { kind: 'referee', available: 60, used: 0, waiting: 0 },
      });
      const answers = await Promise.allSettled(codes('r', 100).map((r) => s.admin.qualifyParticipant({ id, email: `${r}@example.com` })));
      assert.deepEqual(answers.filter((a) => a.status === 'rejected'), []);
      const drawn = await givenCodes(s, id);
      assert.equal(drawn.length, 60);
      assert.equal(new Set(drawn).size, 60, 'no code twice');
      assert.deepEqual(await s.admin.listRewardCodePools(id), [{ kind: 'referee', available: 0, used: 60, waiting: 40 }]);
      // The referrer's rewards take none: the campaign has no referral pool.
      assert.ok((await s.admin.listRewardEntries(id, 'ann@example.com')).every((e) => e.code === undefined && e.codeWaiting === undefined));
      // A waiting credit is available all the same: the balance moved, the ledger says it waits.
      const waiting = (await s.ctx.store.rewardCodes.waiting(id, 'referee', 100)).map((e) => e.id);
      assert.equal(waiting.length, 40);
      const waiter = (await s.ctx.store.db.selectFrom('participants').select('email').where('id', '=', (await s.ctx.store.db.selectFrom('reward_entries').select('participant_id').where('id', '=', waiting[0]!).executeTakeFirstOrThrow()).participant_id).executeTakeFirstOrThrow()).email;
      assert.equal((await s.admin.getParticipant(id, waiter)).refereeRewardBalance, 5);
      assert.equal((await s.admin.listRewardEntries(id, waiter))[0]!.codeWaiting, true);

      const refill = await s.admin.addRewardCodes({ id, kind: 'referee', codes: codes('MORE', 45) });
      assert.deepEqual(refill, { added: 45, duplicates: 0, served: 40, pool: { kind: 'referee', available: 5, used: 100, waiting: 0 } });
      // Oldest first: the first waiting credit got the first code of the refill.
      const first = await s.ctx.store.db.selectFrom('reward_entries').select('code').where('id', '=', waiting[0]!).executeTakeFirstOrThrow();
      assert.equal(first.code, 'MORE-0000');
      const all = await givenCodes(s, id);
      assert.equal(all.length, 100);
      assert.equal(new Set(all).size, 100);
      const entry = (await s.admin.listRewardEntries(id, waiter))[0]!;
      assert.equal(entry.code, 'MORE-0000');
      assert.equal(entry.codeWaiting, undefined);
      // reward_unlocked: 60 with their code at once, 40 without, then 40 more with the code the refill gave.
      const unlocked = (await events<WebhookEvent>(s, 'reward_unlocked')).filter((e) => e.data.email.startsWith('r-'));
      assert.equal(unlocked.length, 140);
      const withCode = unlocked.filter((e) => e.data.rewardCode !== undefined);
      assert.equal(withCode.length, 100);
      assert.equal(new Set(withCode.map((e) => e.data.rewardCode)).size, 100);
      const late = withCode.find((e) => e.data.email === waiter)!;
      assert.deepEqual(late.data.rewardCodes, [{ code: 'MORE-0000', kind: 'referee', label: entry.label }]);
      assert.equal(late.data.refereeRewardBalance, 5);
    });

    it('reward_codes_low fires once when the pool crosses below the threshold, and again after a refill brought it back', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 0, refereeRewardValue: 5, rewardCodesLowThreshold: 3 }, 8);
      await s.admin.addRewardCodes({ id, kind: 'referee', codes: codes('C', 5) });
      for (const r of codes('r', 6)) await s.admin.qualifyParticipant({ id, email: `${r}@example.com` });
      // 5 codes: 4, 3 left, then 2 (below 3: fires), 1, 0, and one waiting: still one event.
      const low = await events<RewardCodesLowEvent>(s, 'reward_codes_low');
      assert.equal(low.length, 1);
      assert.deepEqual(low[0]!.data, { campaignId: id, threshold: 3, kind: 'referee', available: 2, used: 3, waiting: 0 });
      assert.equal(low[0]!.eventType, 'reward_codes_low');
      // A refill to 3 or more left re-arms it; the next draw below fires again.
      assert.equal((await s.admin.addRewardCodes({ id, kind: 'referee', codes: codes('D', 4) })).pool.available, 3);
      assert.equal((await events(s, 'reward_codes_low')).length, 1);
      await s.admin.qualifyParticipant({ id, email: 'r-0006@example.com' });
      assert.equal((await events(s, 'reward_codes_low')).length, 2);
      await s.admin.qualifyParticipant({ id, email: 'r-0007@example.com' });
      assert.equal((await events(s, 'reward_codes_low')).length, 2);
      // The delivery log has no participant to name for it.
      const deliveries = await s.admin.listWebhookDeliveries({ eventType: 'reward_codes_low' });
      assert.equal(deliveries.length, 2);
      assert.equal(deliveries[0]!.participantEmail, undefined);
      assert.equal((await s.admin.listCampaigns()).find((c) => c.campaignId === id)?.rewardCodesLowThreshold, 3);
    });

    it('duplicates, in the upload or already in the pool, are skipped and counted; never stored twice', async () => {
      const s = service();
      const id = await s.campaign();
      assert.deepEqual(await s.admin.addRewardCodes({ id, kind: 'referral', codes: ['A1', 'B2', 'A1', ' B2 '] }), {
        added: 2,
        duplicates: 2,
        served: 0,
        pool: { kind: 'referral', available: 2, used: 0, waiting: 0 },
      });
      const csv = 'code,note\nB2,again\nC3,new\n"=D4",quoted\nC3,twice\n';
      assert.deepEqual(await s.admin.importRewardCodes(id, 'referral', csv), {
        added: 2,
        duplicates: 2,
        served: 0,
        pool: { kind: 'referral', available: 4, used: 0, waiting: 0 },
      });
      // One per line, no header.
      assert.equal((await s.admin.importRewardCodes(id, 'referral', 'E5\r\nF6\n\nA1\n')).added, 2);
      const stored = await s.ctx.store.db.selectFrom('reward_codes').select('code').where('campaign_id', '=', id).orderBy('id').execute();
      assert.deepEqual(stored.map((r) => r.code), ['A1', 'B2', 'C3', '=D4', 'E5', 'F6']);
      // Another kind is another pool; the same code may be in it.
      assert.equal((await s.admin.addRewardCodes({ id, kind: 'milestone', codes: ['A1'] })).added, 1);
      assert.deepEqual((await s.admin.listRewardCodePools(id)).map((p) => [p.kind, p.available]), [['milestone', 1], ['referral', 6]]);
    });

    it('an upload with a bad code changes nothing: a 400 naming its line (CSV) or field (JSON)', async () => {
      const s = service();
      const id = await s.campaign();
      await s.admin.addRewardCodes({ id, kind: 'referee', codes: ['KEEP'] });
      const before = await s.admin.listRewardCodePools(id);
      const bad = await rejects(() => s.admin.importRewardCodes(id, 'referee', `NEW1\nNEW2\nBAD\u0007CODE\n${'x'.repeat(101)}\nNEW3\n`), 400, 'invalid_request', 'file');
      assert.deepEqual(bad.rows?.map((r) => [r.line, r.field]), [[3, 'code'], [4, 'code']]);
      assert.match(bad.rows![1]!.message, /at most 100/);
      await rejects(() => s.admin.importRewardCodes(id, 'referee', 'code\nNEW1\n""\n'), 400, 'invalid_request', 'file');
      await rejects(() => s.admin.addRewardCodes({ id, kind: 'referee', codes: ['NEW1', '   '] }), 400, 'invalid_request', 'codes.1');
      await rejects(() => s.admin.addRewardCodes({ id, kind: 'referee', codes: ['NEW1', 'tab\there'] }), 400, 'invalid_request');
      await rejects(() => s.admin.importRewardCodes(id, 'referee', 'a,b\n'), 400, 'invalid_request', 'file');
      assert.deepEqual(await s.admin.listRewardCodePools(id), before);
      assert.equal(Number((await s.ctx.store.db.selectFrom('reward_codes').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n), 1);
      // Another account's campaign is not found.
      await rejects(() => s.admin.addRewardCodes({ id: 'nope', kind: 'referee', codes: ['X'] }), 404, 'campaign_not_found');
    });

    it('a pool code never goes to two credits across two service processes on one database', async () => {
      clock.now = START;
      const s = service();
      const id = await program(s, { referrerRewardValue: 0, refereeRewardValue: 2 }, 40);
      await s.admin.addRewardCodes({ id, kind: 'referee', codes: codes('X', 30) });
      const other = await startService(kind, { database: s.database, now: () => clock.now });
      try {
        const calls = codes('r', 40).map((r, i) => () => (i % 2 === 0 ? s : other).admin.qualifyParticipant({ id, email: `${r}@example.com` }));
        // PostgreSQL: at once. SQLite: in turn (two services in one process cannot wait on each other's write lock).
        if (kind.dialect === 'postgres') await Promise.all(calls.map((c) => c()));
        else for (const c of calls) await c();
        const drawn = await givenCodes(s, id);
        assert.equal(drawn.length, 30);
        assert.equal(new Set(drawn).size, 30);
        assert.deepEqual(await other.admin.listRewardCodePools(id), [{ kind: 'referee', available: 0, used: 30, waiting: 10 }]);
      } finally {
        await other.stop();
      }
    });

    it('held credits take their code when the hold ends; referral and milestone pools; commissions take none; the participant sees theirs', async () => {
      clock.now = START;
      const s = service();
      const milestones = [{ referrals: 2, reward: 20, label: 'Free month' }];
      const id = await program(s, { referrerRewardValue: 10, refereeRewardValue: 0, referrerRewardPercent: 10, milestones, holdDays: 1 }, 2);
      await s.admin.addRewardCodes({ id, kind: 'referral', codes: ['REF-1', 'REF-2'] });
      await s.admin.addRewardCodes({ id, kind: 'milestone', codes: ['MILE-1'] });
      for (const r of codes('r', 2)) await s.admin.qualifyParticipant({ id, email: `${r}@example.com`, amountPaid: '100.00' });
      assert.deepEqual(await givenCodes(s, id), [], 'pending credits take no code');
      clock.now = START + DAY_MS;
      await releaseDueRewards(s.ctx);
      const ledger = await s.admin.listRewardEntries(id, 'ann@example.com');
      const codeOf = (kind: string) => ledger.filter((e) => e.kind === kind).map((e) => e.code).sort();
      assert.deepEqual(codeOf('referral'), ['REF-1', 'REF-2']);
      assert.deepEqual(codeOf('milestone'), ['MILE-1']);
      assert.deepEqual(codeOf('commission'), [undefined, undefined]);
      const secret = (await s.admin.getSigningSecret(id)).secret;
      const mine = await s.browser.getMyReferrals(id, { emailSignature: signEmail(secret, 'ann@example.com') }, 'ann@example.com');
      assert.deepEqual(mine.rewards?.codes?.map((c) => [c.kind, c.code]).sort(), [['milestone', 'MILE-1'], ['referral', 'REF-1'], ['referral', 'REF-2']]);
      assert.equal(mine.rewards?.codesWaiting, undefined);
      // A released reward_unlocked carries the codes it gave.
      const unlocked = (await events<WebhookEvent>(s, 'reward_unlocked')).filter((e) => e.data.email === 'ann@example.com');
      assert.deepEqual(unlocked.map((e) => e.data.rewardCodes?.map((c) => c.code).sort()).sort(), [['MILE-1', 'REF-2'], ['REF-1']].sort());
    });

    it('a campaign without pools: no code anywhere, as before', async () => {
      const s = service();
      const id = await program(s, { referrerRewardValue: 3, refereeRewardValue: 2 }, 1);
      await s.admin.qualifyParticipant({ id, email: 'r-0000@example.com' });
      assert.deepEqual(await s.admin.listRewardCodePools(id), []);
      const entries = await s.admin.listRewardEntries(id, 'ann@example.com');
      assert.ok(entries.length > 0 && entries.every((e) => !('code' in e) && !('codeWaiting' in e)));
      const secret = (await s.admin.getSigningSecret(id)).secret;
      const mine = await s.browser.getMyReferrals(id, { emailSignature: signEmail(secret, 'ann@example.com') }, 'ann@example.com');
      assert.equal(mine.rewards?.codes, undefined);
      assert.ok((await events<WebhookEvent>(s, 'reward_unlocked')).every((e) => !('rewardCode' in e.data)));
    });
  },
  { now: () => clock.now },
);
