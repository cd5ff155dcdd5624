/**
 * The reads of the offer backtest (../domain/backtest.ts): a campaign's referrers a page at a time (keyset,
 * so memory stays bounded however big the campaign), and for one page the credits of their referrals and
 * their referees' payments. Nothing here writes.
 */
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

export interface ReferralCreditRow {
  referrer_id: number;
  referee_id: number;
  created_on: number;
  status: string;
}

/** A referee's payment, in the shape the replay takes (../domain/backtest-replay.ts ReplayPayment), with the referrer. */
export interface RefereePaymentRow {
  referrerId: number;
  id: number;
  refereeId: number;
  seq: number;
  amountCents: number;
  refundedCents: number;
  paidOn: number;
}

/** Where a page of participants ends. */
export interface ParticipantKey {
  created_on: number;
  id: number;
}

export class BacktestStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The next `limit` participants of the campaign after `after`, in the order of its index by sign-up
   * (created_on, id), so that no page sorts the campaign: those who referred nobody read nothing more.
   */
  async referrers(campaignId: string, after: ParticipantKey | undefined, limit: number): Promise<ParticipantKey[]> {
    let q = this.db.selectFrom('participants').select(['created_on', 'id']).where('campaign_id', '=', campaignId);
    if (after) q = q.where((eb) => eb(eb.refTuple('created_on', 'id'), '>', eb.tuple(after.created_on, after.id)));
    const rows = await q.orderBy('created_on').orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ created_on: Number(r.created_on), id: Number(r.id) }));
  }

  /**
   * Each credit of a referral of these referrers made before `before`: the referee's own reward entry (one
   * per credit, whatever its amount), in the order they were made.
   */
  async referralCredits(referrerIds: readonly number[], before: number): Promise<ReferralCreditRow[]> {
    const rows = await this.db
      .selectFrom('participants as p')
      .innerJoin('reward_entries as e', 'e.participant_id', 'p.id')
      .select(['p.referred_by_id as referrer_id', 'e.participant_id as referee_id', 'e.created_on', 'e.status', 'e.id'])
      .where('p.referred_by_id', 'in', referrerIds)
      .where('e.kind', '=', 'referee')
      .where('e.created_on', '<', before)
      .orderBy('e.created_on')
      .orderBy('e.id')
      .execute();
    return rows.map((r) => ({ referrer_id: Number(r.referrer_id), referee_id: Number(r.referee_id), created_on: Number(r.created_on), status: r.status }));
  }

  /**
   * The payments made before `before` by these referrers' referees, in no order (the replay orders each
   * referrer's; sorting them all here would cost more): each
   * referee's chain from their latest payment (migration 0021: payments have no index by payer, and the
   * chain walk reads each by its id).
   */
  async refereePayments(referrerIds: readonly number[], before: number): Promise<RefereePaymentRow[]> {
    const rows = await this.db
      .withRecursive('chain', (db) =>
        db
          .selectFrom('participants as p')
          .innerJoin('payments as pay', 'pay.id', 'p.last_payment_id')
          .select(['p.referred_by_id as referrer_id', 'pay.id', 'pay.prev_id', 'pay.participant_id', 'pay.seq', 'pay.amount_cents', 'pay.refunded_cents', 'pay.paid_on'])
          .where('p.referred_by_id', 'in', referrerIds)
          .unionAll((db) =>
            db
              .selectFrom('chain')
              .innerJoin('payments as pay', 'pay.id', 'chain.prev_id')
              .select(['chain.referrer_id', 'pay.id', 'pay.prev_id', 'pay.participant_id', 'pay.seq', 'pay.amount_cents', 'pay.refunded_cents', 'pay.paid_on']),
          ),
      )
      .selectFrom('chain')
      .select(['referrer_id', 'id', 'participant_id', 'seq', 'amount_cents', 'refunded_cents', 'paid_on'])
      .where('paid_on', '<', before)
      .execute();
    return rows.map((r) => ({
      referrerId: Number(r.referrer_id),
      id: Number(r.id),
      refereeId: Number(r.participant_id),
      seq: Number(r.seq),
      amountCents: Number(r.amount_cents),
      refundedCents: Number(r.refunded_cents),
      paidOn: Number(r.paid_on),
    }));
  }
}
