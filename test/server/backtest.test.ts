/**
 * The offer backtest (POST /api/v1/admin/backtestRules), on both databases: a backtest of the current
 * rules makes, month by month, exactly what the ledger holds (a history built through the real API with
 * commissions, a milestone, the ceiling, the hold, refunds inside and after it, and a code pool); refunds
 * apply at their dates (and undated ones after the last credit); changed rules give a hand-computed
 * difference; it changes no row of any table; bad input is a 400 that changes nothing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BacktestFigures } from '../../src/api/backtest-schemas.js';
import { NETTED_LABEL } from '../../src/server/rewards/domain/reward-credits.js';
import { releaseDueRewards } from '../../src/server/rewards/domain/reward-release.js';
import { DAY_MS } from '../../src/server/store/migrations.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-03-01T10:00:00Z');
const clock = { now: START };
const at = (days: number) => (clock.now = START + days * DAY_MS);

const CREDITS = new Set(['referral', 'referee', 'commission', 'milestone']);
const zero = (): BacktestFigures => ({ credited: 0, paid: 0, held: 0, reversed: 0, capped: 0, capHits: 0, milestoneHits: 0, codesUsed: 0 });

/**
 * What the ledger holds, counted as the backtest counts it: each credit in the month it was made, with
 * what refunds later cancelled or took back of it (a commission re-made for what a partial refund left,
 * and a reversal of a commission, count in the month of the payment's first commission entry).
 */
async function ledgerFigures(s: TestService, id: string): Promise<Map<string, BacktestFigures>> {
  const entries = await s.ctx.store.db
    .selectFrom('reward_entries as e')
    .innerJoin('participants as p', 'p.id', 'e.participant_id')
    .selectAll('e')
    .where('p.campaign_id', '=', id)
    .orderBy('e.id')
    .execute();
  const firstOfPayment = new Map<number, number>();
  const kept = new Map<string, number>();
  const out = new Map<string, BacktestFigures>();
  const month = (ms: number) => new Date(Number(ms)).toISOString().slice(0, 7);
  const of = (m: string) => out.get(m) ?? out.set(m, zero()).get(m)!;
  const keep = (m: string, amount: number) => kept.set(m, (kept.get(m) ?? 0) + amount);
  for (const e of entries) {
    const paymentMonth = e.payment_id === null ? undefined : firstOfPayment.get(Number(e.payment_id));
    if (CREDITS.has(e.kind)) {
      const remade = e.kind === 'commission' && paymentMonth !== undefined;
      const m = remade ? month(paymentMonth) : month(e.created_on);
      if (e.kind === 'commission' && !remade) firstOfPayment.set(Number(e.payment_id), e.created_on);
      const f = of(m);
      if (!remade) {
        f.credited += e.amount;
        f.capped += e.capped;
        if (e.capped > 0) f.capHits += 1;
        if (e.kind === 'milestone') f.milestoneHits += 1;
        if (e.code_kind !== null) f.codesUsed += 1;
      }
      if (e.status !== 'cancelled') keep(m, e.amount);
      if (e.status === 'pending') f.held += e.amount;
    } else if (e.kind === 'reversal' && e.label !== NETTED_LABEL) {
      assert.doesNotMatch(e.label, /owed/, 'the history takes back only what the balance has');
      keep(month(paymentMonth!), e.amount);
    }
  }
  for (const [m, f] of out) {
    f.reversed = f.credited - (kept.get(m) ?? 0);
    f.paid = f.credited - f.reversed - f.held;
  }
  return out;
}

/** Ann's and Cid's history over March and April 2026 (see the comments), through the API. */
async function history(s: TestService): Promise<string> {
  at(0);
  const id = await s.campaign({
    referrerRewardValue: 10,
    refereeRewardValue: 5,
    referrerRewardPercent: 20,
    commissionPayments: 3,
    milestones: [{ referrals: 2, reward: 50, label: 'Bonus' }],
    maxReferralReward: 100,
    holdDays: 30,
  });
  await s.admin.addRewardCodes({ id, kind: 'referral', codes: ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'] });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  const cid = await s.admin.addParticipant({ id, email: 'cid@example.com' });
  for (const b of ['b0', 'b1', 'b2', 'b3', 'b4']) await s.admin.addParticipant({ id, email: `${b}@example.com`, referredByCode: ann.referralCode! });
  await s.admin.addParticipant({ id, email: 'd0@example.com', referredByCode: cid.referralCode! });
  const pay = (email: string, amountPaid: string) => s.admin.qualifyParticipant({ id, email, amountPaid });
  const refund = (email: string, amount: string) => s.admin.refundPayment({ id, email, amount });
  await pay('b0@example.com', '49.99'); // 5 + 10 + commission 9 (0.998 carried)
  at(1);
  await pay('b1@example.com', '49.99'); // 5 + 10 + milestone 50 + commission 10
  at(2);
  await pay('b2@example.com', '100.00'); // 5 + 10; commission 20, 1 under the ceiling of 100 (19 capped)
  at(4);
  await pay('b3@example.com', '30.00'); // 5 + 0 (10 capped); commission 0 (6 capped)
  at(9);
  await refund('b3@example.com', '30.00'); // inside the hold: b3's referral is undone
  at(35);
  await releaseDueRewards(s.ctx); // March's credits become available (and take their codes)
  await pay('b4@example.com', '20.00'); // April: 5 + 0 (capped) + commission 0 (capped)
  await pay('d0@example.com', '80.00'); // Cid: 5 + 10 + commission 16, pending
  await pay('d0@example.com', '20.00'); // commission 4
  at(36);
  await refund('b0@example.com', '25.00'); // after the hold: 5 of March's commission 9 reversed from Ann's balance
  await refund('d0@example.com', '50.00'); // inside the hold: the 20.00 (4 cancelled) and 30.00 of the 80.00 (16 cancelled, 10 re-made)
  at(37);
  await refund('b1@example.com', '49.99'); // the qualifying payment, after the hold: the commission goes, the referral stays
  return id;
}

eachDatabase(
  'offer backtest',
  (service) => {
    it('a backtest of the current rules makes, month by month, what the ledger holds; it changes no row of any table', async () => {
      const s = service();
      const id = await history(s);
      const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
      const current = await s.admin.backtestRules({ id, rules: {}, from: '2026-03', to: '2026-04' });
      const proposed = await s.admin.backtestRules({ id, rules: { referrerRewardValue: 25, holdDays: 0, maxReferralReward: null }, from: '2026-01', to: '2026-06' });
      assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before, 'nothing was written');

      const ledger = await ledgerFigures(s, id);
      assert.deepEqual([...ledger.keys()], ['2026-03', '2026-04']);
      assert.deepEqual(
        current.months.map((m) => m.month),
        ['2026-03', '2026-04'],
      );
      for (const m of current.months) {
        assert.deepEqual(m.current, ledger.get(m.month), m.month);
        assert.deepEqual(m.proposed, m.current, `${m.month}: no change proposed`);
        assert.deepEqual(m.difference, zero());
      }
      // The history reaches every rule: a sanity check that the figures compared are not all zero.
      const march = ledger.get('2026-03')!;
      assert.ok(march.capHits >= 2 && march.milestoneHits === 1 && march.codesUsed >= 3 && march.reversed > 0 && march.paid > 0, JSON.stringify(march));
      assert.ok(ledger.get('2026-04')!.held > 0);
      assert.equal(current.asOf, new Date(clock.now).toISOString());
      assert.ok(current.limitations.length > 0);

      // The longer period has the empty months too, and the same current figures.
      assert.deepEqual(proposed.months.map((m) => m.month), ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06']);
      assert.deepEqual(proposed.total.current, current.total.current);
      assert.deepEqual(proposed.months[0]!.current, zero());

      // With no period: the campaign's first month to its month now; a far `to` reaches back 120 months.
      const whole = await s.admin.backtestRules({ id, rules: {} });
      assert.deepEqual([whole.from, whole.to], ['2026-03', '2026-04']);
      assert.deepEqual(whole.months, current.months);
      const far = await s.admin.backtestRules({ id, rules: {}, to: '2040-01' });
      assert.deepEqual([far.from, far.to, far.months.length], ['2030-02', '2040-01', 120]);
      const early = await s.admin.backtestRules({ id, rules: {}, to: '2025-12' });
      assert.deepEqual([early.from, early.to], ['2025-12', '2025-12'], 'a to before the campaign began: that month alone');
    });

    it('changed rules: the hand-computed difference', async () => {
      at(0);
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5 });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      for (const [i, b] of ['b0', 'b1', 'b2'].entries()) {
        await s.admin.addParticipant({ id, email: `${b}@example.com`, referredByCode: ann.referralCode! });
        at(i);
        await s.admin.qualifyParticipant({ id, email: `${b}@example.com`, amountPaid: '100.00' });
      }
      at(3);
      await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '50.00' });
      const answer = await s.admin.backtestRules({
        id,
        rules: { referrerRewardValue: 20, referrerRewardPercent: 10, milestones: [{ referrals: 2, reward: 30, label: 'Two' }], maxReferralReward: 100 },
        from: '2026-03',
        to: '2026-03',
      });
      // Now: 3 x (10 + 5). Proposed: b0 20 + 10; b1 20 + 30 (milestone) + 10 (90 earned); b2 10 of 20 (10 capped), commission 0 of 10 (capped);
      // the refund of half of b0's payment takes back 5 of its commission 10. The referees' 5 each are the same.
      const current = { ...zero(), credited: 45, paid: 45 };
      const proposed = { ...zero(), credited: 115, reversed: 5, paid: 110, capped: 20, capHits: 2, milestoneHits: 1 };
      assert.deepEqual(answer.total, {
        current,
        proposed,
        difference: { ...zero(), credited: 70, reversed: 5, paid: 65, capped: 20, capHits: 2, milestoneHits: 1 },
      });
      assert.deepEqual(answer.months[0]!.proposed, proposed);
    });

    it('a refund is applied at its date: the ceiling room and the milestone it freed are used again, as the ledger did; an undated one after the last credit', async () => {
      at(0);
      const s = service();
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, milestones: [{ referrals: 2, reward: 20, label: 'Two' }], maxReferralReward: 40, holdDays: 30 });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      for (const b of ['b0', 'b1', 'b2']) await s.admin.addParticipant({ id, email: `${b}@example.com`, referredByCode: ann.referralCode! });
      const pay = (email: string) => s.admin.qualifyParticipant({ id, email, amountPaid: '10.00' });
      await pay('b0@example.com'); // 5 + 10
      at(1);
      await pay('b1@example.com'); // 5 + 10 + milestone 20: Ann is at the ceiling of 40
      at(2);
      await s.admin.refundPayment({ id, email: 'b1@example.com', amount: '10.00' }); // inside the hold: b1's 35 cancelled, Ann back to 10 and 1 referral
      at(35);
      await releaseDueRewards(s.ctx); // b0's credits become available
      await pay('b2@example.com'); // April: 5 + 10 + the milestone again, all under the ceiling
      const refunds = await s.ctx.store.db.selectFrom('refunds').select(['cents', 'refunded_on']).where('campaign_id', '=', id).execute();
      assert.deepEqual(refunds.map((r) => [Number(r.cents), Number(r.refunded_on)]), [[1000, START + 2 * DAY_MS]]);

      const march = { ...zero(), credited: 50, reversed: 35, paid: 15, milestoneHits: 1 };
      const april = { ...zero(), credited: 35, held: 35, milestoneHits: 1 };
      const dated = await s.admin.backtestRules({ id, rules: {}, from: '2026-03', to: '2026-04' });
      assert.deepEqual(dated.months.map((m) => m.current), [march, april]);
      const ledger = await ledgerFigures(s, id);
      assert.deepEqual(dated.months.map((m) => m.current), [ledger.get('2026-03'), ledger.get('2026-04')], 'as the ledger holds');

      // The same refund made before refunds were dated (no row): after Ann's last credit, so b2 finds her at the ceiling.
      await s.ctx.store.db.deleteFrom('refunds').where('campaign_id', '=', id).execute();
      const undated = await s.admin.backtestRules({ id, rules: {}, from: '2026-03', to: '2026-04' });
      assert.deepEqual(undated.months.map((m) => m.current), [march, { ...zero(), credited: 5, held: 5, capped: 10, capHits: 1 }]);
    });

    it('bad rules or periods are 400, an unknown campaign 404, and nothing changes', async () => {
      at(0);
      const s = service();
      const id = await s.campaign();
      const before = await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect);
      const run = (body: Record<string, unknown>) => s.admin.backtestRules({ id, rules: {}, from: '2026-01', to: '2026-03', ...body } as never);
      await rejects(() => run({ from: '2026-04' }), 400, 'invalid_request', 'to');
      await rejects(() => run({ from: '2016-01', to: '2026-03' }), 400, 'invalid_request', 'to');
      await rejects(() => run({ to: '2026-13' }), 400, 'invalid_request', 'to');
      await rejects(() => run({ from: 'march' }), 400, 'invalid_request', 'from');
      await rejects(() => run({ from: '0001-01' }), 400, 'invalid_request', 'from');
      await rejects(() => run({ rules: { referrerRewardPercent: 150 } }), 400, 'invalid_request', 'rules.referrerRewardPercent');
      await rejects(() => run({ rules: { holdDays: -1 } }), 400, 'invalid_request', 'rules.holdDays');
      await rejects(() => run({ rules: { nope: 1 } }), 400, 'invalid_request');
      await rejects(
        () => run({ rules: { milestones: [{ referrals: 2, reward: 1, label: 'A' }, { referrals: 2, reward: 2, label: 'B' }] } }),
        400,
        'invalid_request',
        'milestones',
      );
      await rejects(() => run({ id: 'no-such-campaign' }), 404, 'campaign_not_found', 'id');
      assert.equal(await dumpDatabase(s.ctx.store.db, s.ctx.store.dialect), before);
    });
  },
  { now: () => clock.now },
);
