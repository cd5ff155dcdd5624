/**
 * The offer backtest's payment read (src/server/rewards/store/backtest-store.ts refereePayments), on both
 * databases, by each of its two ways: a campaign holding most of the payments table is read by a scan, a
 * small one by walking its referees' chains; the scan by one range of ids or by several. Each gives exactly the campaign's referees' payments made
 * before the end of the period, whatever the other campaign's.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BacktestStore, SCAN_SHARE, type RefereePaymentRow } from '../../src/server/rewards/store/backtest-store.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

/** A campaign with one referrer and `referees` referees who pay `each` times, a day apart from `t0` */
async function campaign(s: TestService, referees: number, each: number, t0: number, clock: { now: number }): Promise<string> {
  const id = await s.campaign({ referrerRewardValue: 10, referrerRewardPercent: 10 });
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  for (let i = 0; i < referees; i++) await s.admin.addParticipant({ id, email: `b${i}@example.com`, referredByCode: ann.referralCode! });
  for (let k = 0; k < each; k++) {
    clock.now = t0 + k * 86_400_000;
    for (let i = 0; i < referees; i++) await s.admin.qualifyParticipant({ id, email: `b${i}@example.com`, amountPaid: `${10 + i}.${k}0` });
  }
  await s.admin.refundPayment({ id, email: 'b0@example.com', amount: '1.00' });
  return id;
}

/** What the read must give: the campaign's referees' payments made before `before`, read plainly (by id). */
async function expected(s: TestService, id: string, before: number): Promise<RefereePaymentRow[]> {
  const rows = await s.ctx.store.db
    .selectFrom('payments as pay')
    .innerJoin('participants as p', 'p.id', 'pay.participant_id')
    .select(['p.referred_by_id', 'pay.id', 'pay.participant_id', 'pay.seq', 'pay.amount_cents', 'pay.refunded_cents', 'pay.paid_on', 'pay.qualifying'])
    .where('p.campaign_id', '=', id)
    .where('p.referred_by_id', 'is not', null)
    .where('pay.paid_on', '<', before)
    .orderBy('pay.id')
    .execute();
  return rows.map((r) => ({
    referrerId: Number(r.referred_by_id),
    id: Number(r.id),
    refereeId: Number(r.participant_id),
    seq: Number(r.seq),
    amountCents: Number(r.amount_cents),
    refundedCents: Number(r.refunded_cents),
    paidOn: Number(r.paid_on),
    qualifying: Number(r.qualifying) === 1,
  }));
}

const clock = { now: Date.parse('2026-03-01T10:00:00Z') };

eachDatabase(
  'offer backtest: payments read',
  (service) => {
    it("a small campaign's payments (walked) and a big one's (scanned): exactly the referees' payments before the period's end", async () => {
      const s = service();
      const t0 = clock.now;
      const small = await campaign(s, 2, 3, t0, clock);
      const big = await campaign(s, 6, 4, t0, clock);
      // The two ways are both taken: the small campaign's payments are under SCAN_SHARE of the table, the big one's over it.
      const counts = await s.ctx.store.db
        .selectFrom('payments as pay')
        .innerJoin('participants as p', 'p.id', 'pay.participant_id')
        .select((eb) => ['p.campaign_id', eb.fn.countAll().as('n')])
        .where('p.referred_by_id', 'is not', null)
        .groupBy('p.campaign_id')
        .execute();
      const [{ total }] = (await s.ctx.store.db.selectFrom('payments').select((eb) => eb.fn.countAll().as('total')).execute()) as [{ total: number }];
      const share = (id: string) => Number(counts.find((c) => c.campaign_id === id)!.n) / Number(total);
      assert.ok(share(small) < SCAN_SHARE && share(big) >= SCAN_SHARE, `${share(small)} ${share(big)}`);

      // The scan reads a range of ids a statement, two at a time: also by ranges of 3 ids (an odd number of them).
      const inRanges = new BacktestStore(s.ctx.store.db, s.ctx.store.dialect, 3);
      for (const id of [small, big]) {
        for (const before of [t0 + 1, t0 + 2 * 86_400_000, clock.now + 1]) {
          const want = await expected(s, id, before);
          assert.ok(want.length > 0);
          for (const store of [s.ctx.store.backtest, inRanges]) assert.deepEqual((await store.refereePayments(id, before)).sort((a, b) => a.id - b.id), want);
        }
      }
      assert.deepEqual(await s.ctx.store.backtest.refereePayments(small, t0), [], 'none before the first');
    });
  },
  { now: () => clock.now },
);
