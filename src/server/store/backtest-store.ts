/**
 * The reads of the offer backtest (../domain/backtest.ts): a campaign's referral credits and its referees'
 * payments, each read for the whole campaign in a few big queries (not a query or two per referrer, nor
 * per page of them). Nothing here writes.
 */
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

/** A credit of a referral: the referee's own reward entry (one per credit, whatever its amount). */
export interface ReferralCreditRow {
  referrerId: number;
  refereeId: number;
  creditedOn: number;
  /** A refund of the qualifying payment cancelled it. */
  cancelled: boolean;
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
  /** Recorded by the call that qualified the payer: its full refund can undo the referral. */
  qualifying: boolean;
}

/** Payments read by id at a time: under both databases' limits on a statement's parameters. */
const IDS = 10_000;

export class BacktestStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Each credit of a referral of the campaign made before `before`, in the order they were made. */
  async referralCredits(campaignId: string, before: number): Promise<ReferralCreditRow[]> {
    const rows = await this.db
      .selectFrom('participants as p')
      .innerJoin('reward_entries as e', 'e.participant_id', 'p.id')
      .select(['p.referred_by_id', 'e.participant_id', 'e.created_on', 'e.status'])
      .where('p.campaign_id', '=', campaignId)
      .where('p.referred_by_id', 'is not', null)
      .where('e.kind', '=', 'referee')
      .where('e.created_on', '<', before)
      .orderBy('e.created_on')
      .orderBy('e.id')
      .execute();
    return rows.map((r) => ({ referrerId: Number(r.referred_by_id), refereeId: Number(r.participant_id), creditedOn: Number(r.created_on), cancelled: r.status === 'cancelled' }));
  }

  /**
   * The payments made before `before` by the campaign's referees, in no order (the replay orders each
   * referrer's). Payments have no index by payer (migration 0021): each referee's are a chain from their
   * latest, walked for the whole campaign a link at a time, each link's payments read by id in big batches
   * (a recursive query walking the same chains took twice as long on SQLite).
   */
  async refereePayments(campaignId: string, before: number): Promise<RefereePaymentRow[]> {
    const referees = await this.db
      .selectFrom('participants')
      .select(['id', 'referred_by_id', 'last_payment_id'])
      .where('campaign_id', '=', campaignId)
      .where('referred_by_id', 'is not', null)
      .where('last_payment_id', 'is not', null)
      .execute();
    const referrerOf = new Map<number, number>();
    for (const r of referees) referrerOf.set(Number(r.id), Number(r.referred_by_id));
    const out: RefereePaymentRow[] = [];
    for (let ids = referees.map((r) => Number(r.last_payment_id)); ids.length > 0; ) {
      const prev: number[] = [];
      for (let i = 0; i < ids.length; i += IDS) {
        const rows = await this.db
          .selectFrom('payments')
          .select(['id', 'prev_id', 'participant_id', 'seq', 'amount_cents', 'refunded_cents', 'paid_on', 'qualifying'])
          .where('id', 'in', ids.slice(i, i + IDS))
          .execute();
        for (const r of rows) {
          if (r.prev_id !== null) prev.push(Number(r.prev_id));
          if (Number(r.paid_on) >= before) continue;
          const refereeId = Number(r.participant_id);
          out.push({
            referrerId: referrerOf.get(refereeId)!,
            id: Number(r.id),
            refereeId,
            seq: Number(r.seq),
            amountCents: Number(r.amount_cents),
            refundedCents: Number(r.refunded_cents),
            paidOn: Number(r.paid_on),
            qualifying: Number(r.qualifying) === 1,
          });
        }
      }
      ids = prev;
    }
    return out;
  }
}
