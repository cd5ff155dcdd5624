/**
 * SQL of Stripe credit out (../domain/stripe-payouts.ts): the outbox of credits to pay into Stripe.
 * Rows are written in the transaction that makes their credit available; a sender claims due rows with a
 * lease (claimed_until), and every later write of an attempt is conditional on that same lease, so a
 * sender whose lease ran out (another process took the row) changes nothing.
 */
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import { dueInCampaignTime } from '../../store/campaign-clock-store.js';
import type { Dialect } from '../../store/connect.js';
import type { ListStart } from '../../store/list-start.js';
import type { Database, StripePayoutStatus, StripePayoutsTable } from '../../store/tables.js';

export type StripePayoutRow = Selectable<StripePayoutsTable>;
export type NewStripePayout = Insertable<StripePayoutsTable>;
/** A payout as listed: with its participant's email. */
export type ListedStripePayout = StripePayoutRow & { email: string };

/** Where an attempt leaves a payout that is not paid: queued again, waiting (with why), or failed. */
export interface PayoutOutcome {
  status: Exclude<StripePayoutStatus, 'paid'>;
  nextAttemptOn: number | null;
  error: string;
  customer?: string | null;
  /** Counts as an attempt at Stripe (a payout that waits for its customer has made none). */
  attempted: boolean;
}

const STILL_TO_SEND = ['queued', 'waiting'] as const;

/** Not held by a sender: never claimed, or its claim has run out. */
const unclaimed = (now: number) => (eb: ExpressionBuilder<Database, 'stripe_payouts'>) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);

export class StripePayoutStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(rows: readonly NewStripePayout[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('stripe_payouts').values([...rows]).execute();
  }

  /** Whether any payout is due: a read, so that a sender with nothing to do writes nothing (no commit, no sync). */
  async anyDue(now: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('stripe_payouts')
      .select('id')
      .where('status', 'in', STILL_TO_SEND)
      .where(dueInCampaignTime('stripe_payouts.next_attempt_on', 'stripe_payouts.campaign_id', now))
      .where(unclaimed(now))
      .limit(1)
      .executeTakeFirst();
    return r !== undefined;
  }

  /**
   * Claims up to `limit` due payouts until `now + leaseMs`; answers them. One statement: the rows are
   * picked and leased together, and on PostgreSQL rows another claimer holds are skipped, so each due
   * payout goes to one sender however many processes look at once.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<StripePayoutRow[]> {
    const due = this.db
      .selectFrom('stripe_payouts')
      .select('id')
      .where('status', 'in', STILL_TO_SEND)
      // Due in the campaign's own time: a test campaign's clock may be ahead (../../store/campaign-clock-store.ts).
      .where(dueInCampaignTime('stripe_payouts.next_attempt_on', 'stripe_payouts.campaign_id', now))
      .where(unclaimed(now))
      .orderBy('next_attempt_on')
      .limit(bound(limit))
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    return this.db
      .updateTable('stripe_payouts')
      .set({ claimed_until: now + leaseMs })
      .where('id', 'in', due)
      .where('status', 'in', STILL_TO_SEND)
      .where(unclaimed(now))
      .returningAll()
      .execute();
  }

  /** Marks a claimed payout paid; false (nothing changed) when the claim was lost or it was settled already. */
  async markPaid(row: StripePayoutRow, fields: Pick<StripePayoutRow, 'customer' | 'stripe_id' | 'promotion_code'>, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('stripe_payouts')
      .set((eb) => ({ ...fields, status: 'paid', paid_on: now, updated_on: now, next_attempt_on: null, claimed_until: null, last_error: null, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', row.id)
      .where('claimed_until', '=', row.claimed_until)
      .where('status', 'in', STILL_TO_SEND)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Records an attempt that did not pay, under the claim it was made with. */
  async settle(row: StripePayoutRow, outcome: PayoutOutcome, now: number): Promise<void> {
    await this.db
      .updateTable('stripe_payouts')
      .set((eb) => ({
        status: outcome.status,
        next_attempt_on: outcome.nextAttemptOn,
        last_error: outcome.error,
        claimed_until: null,
        updated_on: now,
        ...(outcome.customer !== undefined && { customer: outcome.customer }),
        ...(outcome.attempted && { attempts: eb('attempts', '+', 1) }),
      }))
      .where('id', '=', row.id)
      .where('claimed_until', '=', row.claimed_until)
      .where('status', 'in', STILL_TO_SEND)
      .execute();
  }

  /**
   * Makes a failed or waiting payout (or a queued one between attempts) due now; a failed one gets a new
   * generation, so the next attempt is a new Stripe request. Undefined when there is no such payout of the
   * campaign or it cannot be retried (paid, or being sent at this moment).
   */
  async retry(campaignId: string, id: number, now: number): Promise<StripePayoutRow | undefined> {
    return this.db
      .updateTable('stripe_payouts')
      .set({
        status: 'queued',
        next_attempt_on: now,
        updated_on: now,
        generation: sql<number>`case when status = 'failed' then generation + 1 else generation end`,
      })
      .where('campaign_id', '=', campaignId)
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'waiting', 'failed'])
      .where(unclaimed(now))
      .returningAll()
      .executeTakeFirst();
  }

  find(campaignId: string, id: number): Promise<StripePayoutRow | undefined> {
    return this.db.selectFrom('stripe_payouts').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
  }

  /** A campaign's payouts, newest first (created_on, then id), of one status or all. */
  list(campaignId: string, status: StripePayoutStatus | undefined, start: ListStart, limit: number): Promise<ListedStripePayout[]> {
    let q = this.db
      .selectFrom('stripe_payouts as o')
      .innerJoin('participants as p', 'p.id', 'o.participant_id')
      .selectAll('o')
      .select('p.email as email')
      .where('o.campaign_id', '=', campaignId);
    if (status) q = q.where('o.status', '=', status);
    if ('after' in start) q = q.where((eb) => eb(eb.refTuple('o.created_on', 'o.id'), '<', eb.tuple(start.after.createdOn, start.after.id)));
    else q = q.offset(bound(start.offset));
    return q.orderBy('o.created_on', 'desc').orderBy('o.id', 'desc').limit(bound(limit)).execute();
  }
}
