/**
 * SQL of cash payouts (../domain/payout-runs.ts, ../domain/cash-payout-sender.ts): the outbox of payouts,
 * and the reservation of their amounts on the participant's row. A payout is inserted in the transaction
 * that reserves its amount; every later change of its status is conditional on the status it leaves (and,
 * for the sender, on its claim), so two approvals, two senders or a webhook beside the poller change a
 * payout once.
 */
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import { dueInCampaignTime } from '../../store/campaign-clock-store.js';
import type { Dialect } from '../../store/connect.js';
import type { ListStart } from '../../store/list-start.js';
import type { CampaignsTable, CashPayoutStatus, CashPayoutsTable, Database } from '../../store/tables.js';

/** The name of the advisory lock a claim of due payouts holds on PostgreSQL (claimDue). */
export const CLAIM_LOCK = 'cash-payouts claim';

type CampaignRow = Selectable<CampaignsTable>;

export type CashPayoutRow = Selectable<CashPayoutsTable>;
export type NewCashPayout = Insertable<CashPayoutsTable>;
export type ListedCashPayout = CashPayoutRow & { email: string };

/** A participant's balances that a payout may take: earned, less redeemed, less what open payouts hold. */
export interface PayableBalance {
  participant_id: number;
  email: string;
  referral: number;
  referee: number;
  /** 0: held for review (fraud scoring or an owner's control): not paid until approved. */
  approval: number;
}

/** The statuses the sender works on: sending (to send, or waiting), sent (to poll). */
const IN_FLIGHT = ['sending', 'sent'] as const;
/** The statuses that hold a reservation. */
export const OPEN_STATUSES = ['pending_approval', 'sending', 'sent'] as const;

const unclaimed = (now: number) => (eb: ExpressionBuilder<Database, 'cash_payouts'>) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);

export class CashPayoutStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Reserves the amounts on the participant's balances: false (nothing changed) when either balance no
   * longer covers its part, as a redemption or another run took it meanwhile.
   */
  async reserve(participantId: number, referral: number, referee: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('participants')
      .set((eb) => ({
        referral_reward_reserved: eb('referral_reward_reserved', '+', referral),
        referee_reward_reserved: eb('referee_reward_reserved', '+', referee),
        updated_on: now,
      }))
      .where('id', '=', participantId)
      .where(sql<boolean>`referral_reward - referral_reward_redeemed - referral_reward_reserved >= ${referral}`)
      .where(sql<boolean>`referee_reward - referee_reward_redeemed - referee_reward_reserved >= ${referee}`)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Lets go of a payout's reservation (it was paid, failed, returned, unclaimed or cancelled). */
  async release(row: Pick<CashPayoutRow, 'participant_id' | 'referral_amount' | 'referee_amount'>, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({
        referral_reward_reserved: eb('referral_reward_reserved', '-', Number(row.referral_amount)),
        referee_reward_reserved: eb('referee_reward_reserved', '-', Number(row.referee_amount)),
        updated_on: now,
      }))
      .where('id', '=', row.participant_id)
      .execute();
  }

  async insert(row: NewCashPayout): Promise<CashPayoutRow> {
    return this.db.insertInto('cash_payouts').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Participants of the campaign with something payable, by id after `afterId`. */
  payable(campaignId: string, afterId: number, limit: number): Promise<PayableBalance[]> {
    return this.db
      .selectFrom('participants')
      .select([
        'id as participant_id',
        'email',
        'approval',
        sql<number>`referral_reward - referral_reward_redeemed - referral_reward_reserved`.as('referral'),
        sql<number>`referee_reward - referee_reward_redeemed - referee_reward_reserved`.as('referee'),
      ])
      .where('campaign_id', '=', campaignId)
      .where('id', '>', afterId)
      .where(
        sql<boolean>`(referral_reward - referral_reward_redeemed - referral_reward_reserved) + (referee_reward - referee_reward_redeemed - referee_reward_reserved) > 0`,
      )
      .orderBy('id')
      .limit(bound(limit))
      .execute();
  }

  /** What was paid or is on its way to a participant with `created_on` in [from, to), in one currency. */
  async totalSince(participantId: number, currency: string, from: number, to: number): Promise<number> {
    const r = await this.db
      .selectFrom('cash_payouts')
      .select(sql<number>`coalesce(sum(referral_amount + referee_amount), 0)`.as('total'))
      .where('participant_id', '=', participantId)
      .where('currency', '=', currency)
      .where('status', 'in', [...OPEN_STATUSES, 'paid'])
      .where('created_on', '>=', from)
      .where('created_on', '<', to)
      .executeTakeFirstOrThrow();
    return Number(r.total);
  }

  /** Moves payouts from one status to another (approve, cancel), all of the campaign's given ids that are in `from`; answers those moved. */
  move(campaignId: string, ids: readonly number[], from: CashPayoutStatus, set: Partial<CashPayoutRow>, now: number): Promise<CashPayoutRow[]> {
    return this.db
      .updateTable('cash_payouts')
      .set({ ...set, updated_on: now })
      .where('campaign_id', '=', campaignId)
      .where('id', 'in', [...ids])
      .where('status', '=', from)
      .returningAll()
      .execute();
  }

  async anyDue(now: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('cash_payouts')
      .select('id')
      .where('status', 'in', IN_FLIGHT)
      .where(dueInCampaignTime('cash_payouts.next_attempt_on', 'cash_payouts.campaign_id', now))
      .where(unclaimed(now))
      .limit(1)
      .executeTakeFirst();
    return r !== undefined;
  }

  /**
   * Claims up to `limit` due payouts, and with each one to send by PayPal every other payout of its batch
   * (a batch is sent whole, under one sender_batch_id), until `now + leaseMs`. In the caller's transaction.
   *
   * On PostgreSQL one claim at a time (a transaction's advisory lock): two senders at once each took some
   * of a batch's rows (SKIP LOCKED), then each waited for the other's to claim the siblings, a deadlock.
   * Serial, the first claims the whole batch and the second finds it claimed. A claim is two short
   * statements; the senders poll, so the wait costs nothing a request waits for.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<CashPayoutRow[]> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${CLAIM_LOCK}, 0))`.execute(this.db);
    const due = this.db
      .selectFrom('cash_payouts')
      .select('id')
      .where('status', 'in', IN_FLIGHT)
      .where(dueInCampaignTime('cash_payouts.next_attempt_on', 'cash_payouts.campaign_id', now))
      .where(unclaimed(now))
      .orderBy('next_attempt_on')
      .limit(bound(limit))
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    const claimed = await this.db
      .updateTable('cash_payouts')
      .set({ claimed_until: now + leaseMs })
      .where('id', 'in', due)
      .where('status', 'in', IN_FLIGHT)
      .where(unclaimed(now))
      .returningAll()
      .execute();
    const batches = [...new Set(claimed.filter((r) => r.status === 'sending' && r.batch_key !== null).map((r) => r.batch_key!))];
    if (batches.length === 0) return claimed;
    const siblings = await this.db
      .updateTable('cash_payouts')
      .set({ claimed_until: now + leaseMs })
      .where('batch_key', 'in', batches)
      .where('status', '=', 'sending')
      .where(unclaimed(now))
      .returningAll()
      .execute();
    return [...claimed, ...siblings];
  }

  /** How many payouts of a batch are still to send: a sender sends a batch only when it holds them all. */
  async batchSize(batchKey: string): Promise<number> {
    const r = await this.db
      .selectFrom('cash_payouts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('batch_key', '=', batchKey)
      .where('status', '=', 'sending')
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * Records what a claimed payout became, conditional on the claim it was claimed with and the status it
   * had (so a lost claim or a webhook that settled it first changes nothing); false when nothing changed.
   */
  async update(row: CashPayoutRow, set: Partial<CashPayoutRow>, now: number): Promise<boolean> {
    let q = this.db
      .updateTable('cash_payouts')
      .set({ ...set, updated_on: now })
      .where('id', '=', row.id)
      .where('status', '=', row.status);
    q = row.claimed_until === null ? q.where('claimed_until', 'is', null) : q.where('claimed_until', '=', row.claimed_until);
    const r = await q.executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Settles a payout found by the provider's id (a webhook), whatever claim it has: false when it was settled already. */
  async settleOpen(id: number, set: Partial<CashPayoutRow>, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('cash_payouts')
      .set({ ...set, updated_on: now })
      .where('id', '=', id)
      .where('status', 'in', IN_FLIGHT)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Retries an attempt later: counts it, keeps the reason, lets the claim go. */
  async later(row: CashPayoutRow, reason: string, nextAttemptOn: number, attempted: boolean, now: number): Promise<void> {
    await this.update(row, { reason, next_attempt_on: nextAttemptOn, claimed_until: null, ...(attempted && { attempts: row.attempts + 1 }) }, now);
  }

  /** Campaigns whose cash payouts run on a schedule (the sender looks whether a month began). */
  scheduled(): Promise<CampaignRow[]> {
    return this.db.selectFrom('campaigns').selectAll().where('cash_payouts', 'like', '%"schedule":"monthly"%').where('status', '=', 'Active').execute();
  }

  /** Claims a campaign's scheduled run (the month's mark moved from what it was): true for one process only. */
  async claimScheduledRun(campaignId: string, was: number | null, now: number): Promise<boolean> {
    let q = this.db.updateTable('campaigns').set({ payouts_run_on: now }).where('id', '=', campaignId);
    q = was === null ? q.where('payouts_run_on', 'is', null) : q.where('payouts_run_on', '=', was);
    return (await q.executeTakeFirst()).numUpdatedRows > 0n;
  }

  /** A PayPal batch's event: its sent payouts (of the account's campaigns) are polled now. */
  async pollNow(accountId: number, providerBatchId: string, now: number): Promise<number> {
    const r = await this.db
      .updateTable('cash_payouts')
      .set({ next_attempt_on: now })
      .where('provider_batch_id', '=', providerBatchId)
      .where('status', '=', 'sent')
      .where('campaign_id', 'in', this.db.selectFrom('campaigns').select('id').where('account_id', '=', accountId))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  find(campaignId: string, id: number): Promise<CashPayoutRow | undefined> {
    return this.db.selectFrom('cash_payouts').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
  }

  findById(id: number): Promise<CashPayoutRow | undefined> {
    return this.db.selectFrom('cash_payouts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The payout a provider knows by its item id (PayPal's payout_item_id) or by our key (sender_item_id). */
  findByProvider(key: { providerId?: string; idempotencyKey?: string }): Promise<CashPayoutRow | undefined> {
    let q = this.db.selectFrom('cash_payouts').selectAll();
    q = key.providerId !== undefined ? q.where('provider_id', '=', key.providerId) : q.where('idempotency_key', '=', key.idempotencyKey ?? '');
    return q.executeTakeFirst();
  }

  /** A campaign's payouts, newest first, of one status or run, or all. */
  list(campaignId: string, filter: { status?: CashPayoutStatus; runId?: string }, start: ListStart, limit: number): Promise<ListedCashPayout[]> {
    let q = this.db
      .selectFrom('cash_payouts as o')
      .innerJoin('participants as p', 'p.id', 'o.participant_id')
      .selectAll('o')
      .select('p.email as email')
      .where('o.campaign_id', '=', campaignId);
    if (filter.status) q = q.where('o.status', '=', filter.status);
    if (filter.runId) q = q.where('o.run_id', '=', filter.runId);
    if ('after' in start) q = q.where((eb) => eb(eb.refTuple('o.created_on', 'o.id'), '<', eb.tuple(start.after.createdOn, start.after.id)));
    else q = q.offset(bound(start.offset));
    return q.orderBy('o.created_on', 'desc').orderBy('o.id', 'desc').limit(bound(limit)).execute();
  }

  /** A participant's payouts, newest first (the portal, exportPerson). */
  ofParticipant(participantId: number, limit: number): Promise<CashPayoutRow[]> {
    return this.db.selectFrom('cash_payouts').selectAll().where('participant_id', '=', participantId).orderBy('created_on', 'desc').orderBy('id', 'desc').limit(bound(limit)).execute();
  }

  /** Payouts paid in [from, to) in USD, summed per participant: the year's 1099-NEC candidates. */
  paidPerPerson(accountId: number, from: number, to: number) {
    return this.db
      .selectFrom('cash_payouts as o')
      .innerJoin('campaigns as c', 'c.id', 'o.campaign_id')
      .innerJoin('participants as p', 'p.id', 'o.participant_id')
      .leftJoin('tax_details as t', 't.participant_id', 'o.participant_id')
      .select(['p.email', 'o.participant_id', 'o.method', 't.form', 't.legal_name', 't.tin_last4', 't.address', 't.country'])
      .select(sql<number>`sum(o.referral_amount + o.referee_amount)`.as('total'))
      .select(sql<number>`count(*)`.as('payouts'))
      .where('c.account_id', '=', accountId)
      .where('c.test', '=', 0)
      .where('o.status', '=', 'paid')
      .where('o.currency', '=', 'USD')
      .where('o.settled_on', '>=', from)
      .where('o.settled_on', '<', to)
      .groupBy(['p.email', 'o.participant_id', 'o.method', 't.form', 't.legal_name', 't.tin_last4', 't.address', 't.country'])
      .orderBy('p.email')
      .execute();
  }
}
