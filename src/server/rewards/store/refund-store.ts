/**
 * Refunds, dated (migration 0029): one row per refund of a payment, written in the refund's transaction
 * (../domain/refunds.ts), so that the offer backtest (../domain/backtest.ts) applies each at its date.
 * Refunds made before the table existed have no row; a payment's refunded_cents beyond its rows' sum is
 * undated.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';

/** A dated refund, as the backtest reads it. */
export interface DatedRefund {
  paymentId: number;
  cents: number;
  refundedOn: number;
}

export class RefundStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records that `cents` of a payment of the campaign were refunded at `now`. */
  async record(campaignId: string, paymentId: number, cents: number, now: number): Promise<void> {
    await this.db.insertInto('refunds').values({ campaign_id: campaignId, payment_id: paymentId, cents, refunded_on: now }).execute();
  }

  /** The campaign's refunds, in the order they were made. */
  async ofCampaign(campaignId: string): Promise<DatedRefund[]> {
    const rows = await this.db
      .selectFrom('refunds')
      .select(['payment_id', 'cents', 'refunded_on'])
      .where('campaign_id', '=', campaignId)
      .orderBy('refunded_on')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ paymentId: Number(r.payment_id), cents: Number(r.cents), refundedOn: Number(r.refunded_on) }));
  }
}
