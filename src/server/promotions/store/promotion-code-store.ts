/**
 * SQL of the promotion code outbox (../domain/promotion-code-sync.ts): one row per participant, code text
 * and discount generation, made once (the unique key), claimed with a lease (claimed_until) so that one
 * process sends each; every later write of an attempt is conditional on that same lease.
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Dialect } from '../../store/connect.js';
import type { Database, PromotionCodesTable, PromotionCodeStatus } from '../../store/tables.js';

export type PromotionCodeRow = Selectable<PromotionCodesTable>;
export type ListedPromotionCode = PromotionCodeRow & { email: string };

const TO_SEND = ['queued', 'deactivating'] as const;

const unclaimed = (now: number) => (eb: ExpressionBuilder<Database, 'promotion_codes'>) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);

/** Where an attempt leaves a row: made (active), deactivated, waiting for another try, or refused for good. */
export interface CodeOutcome {
  status: PromotionCodeStatus;
  stripeId?: string;
  nextAttemptOn: number | null;
  reason: string | null;
  attempted: boolean;
}

export class PromotionCodeStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly changedCampaigns: () => void,
  ) {}

  /**
   * A new discount generation for the campaign (its discount, prefix or key changed): no coupon yet, the
   * participants to be looked through again, the rows of earlier generations retired. Answers the new
   * generation. In the caller's transaction.
   */
  async nextGeneration(campaignId: string, now: number): Promise<number> {
    const row = await this.db
      .updateTable('campaigns')
      .set({ discount_generation: sql<number>`discount_generation + 1`, discount_coupon: null, promotion_codes_through: null })
      .where('id', '=', campaignId)
      .returning('discount_generation')
      .executeTakeFirstOrThrow();
    this.changedCampaigns();
    await this.retireOlder(campaignId, row.discount_generation, now);
    return row.discount_generation;
  }

  /**
   * Retires the campaign's rows of generations before `generation`: made ones to be deactivated, those
   * never sent (and not being sent now) or refused by Stripe dropped. One sent whose answer was lost stays
   * queued: its next attempt finds what Stripe made and deactivates it. The sender runs this every pass
   * too, for a code made while its generation was being replaced.
   */
  async retireOlder(campaignId: string, generation: number, now: number): Promise<void> {
    const older = (eb: ExpressionBuilder<Database, 'promotion_codes'>) => eb.and([eb('campaign_id', '=', campaignId), eb('generation', '<', generation)]);
    await this.db.updateTable('promotion_codes').set({ status: 'deactivating', next_attempt_on: now, reason: null, updated_on: now }).where(older).where('status', '=', 'active').execute();
    await this.db
      .updateTable('promotion_codes')
      .set({ status: 'inactive', next_attempt_on: null, updated_on: now })
      .where(older)
      .where((eb) => eb.or([eb('status', '=', 'failed'), eb.and([eb('status', '=', 'queued'), eb('attempts', '=', 0), unclaimed(now)(eb)])]))
      .execute();
  }

  /** Campaigns with a discount and a key: those whose participants get codes. */
  async discountCampaigns(): Promise<string[]> {
    const rows = await this.db.selectFrom('campaigns').select('id').where('referee_discount', 'is not', null).where('stripe_reward_key', 'is not', null).execute();
    return rows.map((r) => r.id);
  }

  /** Records the coupon made for `generation`; false when the campaign has moved to another generation meanwhile. */
  async setCoupon(campaignId: string, generation: number, coupon: string): Promise<boolean> {
    const r = await this.db.updateTable('campaigns').set({ discount_coupon: coupon }).where('id', '=', campaignId).where('discount_generation', '=', generation).executeTakeFirst();
    this.changedCampaigns();
    return r.numUpdatedRows > 0n;
  }

  /**
   * Queues a code for each participant of the campaign who joined from `since` (created_on) on and has none
   * of this generation for their current code, up to `limit` of them, oldest first. Answers how many were
   * looked at and the latest created_on among them. Safe to run in several processes at once (the unique key).
   */
  async enqueue(
    campaignId: string,
    generation: number,
    prefix: string,
    since: number,
    now: number,
    limit: number,
  ): Promise<{ seen: number; through: number | undefined }> {
    const rows = await this.db
      .selectFrom('participants as p')
      .select(['p.id', 'p.code', 'p.created_on'])
      .where('p.campaign_id', '=', campaignId)
      .where('p.created_on', '>=', since)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('promotion_codes as pc')
              .select('pc.id')
              .whereRef('pc.participant_id', '=', 'p.id')
              .where('pc.generation', '=', generation)
              .whereRef('pc.code', '=', 'p.code'),
          ),
        ),
      )
      .orderBy('p.created_on')
      .orderBy('p.id')
      .limit(bound(limit))
      .execute();
    await this.queue(campaignId, generation, prefix, rows, now);
    return { seen: rows.length, through: rows.at(-1)?.created_on };
  }

  /** Queues a code of this generation for participants' earlier codes (aliases: they still name them) that have none; answers how many. */
  async enqueueAliases(campaignId: string, generation: number, prefix: string, now: number, limit: number): Promise<number> {
    const rows = await this.db
      .selectFrom('referral_code_aliases as a')
      .select(['a.participant_id', 'a.code'])
      .where('a.campaign_id', '=', campaignId)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('promotion_codes as pc').select('pc.id').whereRef('pc.participant_id', '=', 'a.participant_id').where('pc.generation', '=', generation).whereRef('pc.code', '=', 'a.code'))),
      )
      .limit(bound(limit))
      .execute();
    await this.queue(campaignId, generation, prefix, rows.map((r) => ({ id: Number(r.participant_id), code: r.code })), now);
    return rows.length;
  }

  /** Queues a code of this generation for each participant and code text given, unless one is queued or made already. */
  async queue(campaignId: string, generation: number, prefix: string, codes: readonly { id: number; code: string }[], now: number): Promise<void> {
    if (codes.length === 0) return;
    await this.db
      .insertInto('promotion_codes')
      .values(
        codes.map((p) => ({
          campaign_id: campaignId,
          participant_id: p.id,
          code: p.code,
          stripe_code: `${prefix}${p.code}`,
          generation,
          status: 'queued' as const,
          // The same on every attempt, and unique per row: Stripe makes the code once whatever is retried.
          idempotency_key: `refkit-promotion-code-${campaignId}-${p.id}-${generation}-${p.code}`,
          next_attempt_on: now,
          created_on: now,
          updated_on: now,
        })),
      )
      .onConflict((oc) => oc.columns(['participant_id', 'generation', 'code']).doNothing())
      .execute();
  }

  async through(campaignId: string): Promise<number | null> {
    const r = await this.db.selectFrom('campaigns').select('promotion_codes_through').where('id', '=', campaignId).executeTakeFirst();
    return r?.promotion_codes_through ?? null;
  }

  async setThrough(campaignId: string, generation: number, through: number): Promise<void> {
    // Not a cached column's change that readers need: the outbox reads it here, uncached.
    await this.db
      .updateTable('campaigns')
      .set({ promotion_codes_through: through })
      .where('id', '=', campaignId)
      .where('discount_generation', '=', generation)
      .where((eb) => eb.or([eb('promotion_codes_through', 'is', null), eb('promotion_codes_through', '<', through)]))
      .execute();
  }

  async anyDue(now: number): Promise<boolean> {
    const r = await this.db.selectFrom('promotion_codes').select('id').where('status', 'in', TO_SEND).where('next_attempt_on', '<=', now).where(unclaimed(now)).limit(1).executeTakeFirst();
    return r !== undefined;
  }

  /** Claims up to `limit` due rows until `now + leaseMs`, deactivations first (a new code may need the text an old one holds). */
  claimDue(now: number, leaseMs: number, limit: number): Promise<PromotionCodeRow[]> {
    const due = this.db
      .selectFrom('promotion_codes')
      .select('id')
      .where('status', 'in', TO_SEND)
      .where('next_attempt_on', '<=', now)
      .where(unclaimed(now))
      .orderBy(sql`case when status = 'deactivating' then 0 else 1 end`)
      .orderBy('next_attempt_on')
      .limit(bound(limit))
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    return this.db
      .updateTable('promotion_codes')
      .set({ claimed_until: now + leaseMs })
      .where('id', 'in', due)
      .where('status', 'in', TO_SEND)
      .where(unclaimed(now))
      .returningAll()
      .execute();
  }

  /** Records an attempt under the claim it was made with; false when the claim was lost. */
  async settle(row: PromotionCodeRow, outcome: CodeOutcome, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('promotion_codes')
      .set((eb) => ({
        status: outcome.status,
        next_attempt_on: outcome.nextAttemptOn,
        reason: outcome.reason,
        claimed_until: null,
        updated_on: now,
        ...(outcome.stripeId !== undefined && { stripe_id: outcome.stripeId }),
        ...(outcome.attempted && { attempts: eb('attempts', '+', 1) }),
      }))
      .where('id', '=', row.id)
      .where('claimed_until', '=', row.claimed_until)
      .where('status', 'in', TO_SEND)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Whether a row of the campaign with this Stripe text waits to be deactivated (a new code for it must wait too). */
  async textBeingFreed(campaignId: string, stripeCode: string): Promise<boolean> {
    const r = await this.db.selectFrom('promotion_codes').select('id').where('campaign_id', '=', campaignId).where('stripe_code', '=', stripeCode).where('status', '=', 'deactivating').limit(1).executeTakeFirst();
    return r !== undefined;
  }

  /** The participant's made codes of a generation, newest first (their current code's is the newest). */
  made(participantId: number, generation: number): Promise<Pick<PromotionCodeRow, 'code' | 'stripe_code' | 'stripe_id'>[]> {
    return this.db
      .selectFrom('promotion_codes')
      .select(['code', 'stripe_code', 'stripe_id'])
      .where('participant_id', '=', participantId)
      .where('generation', '=', generation)
      .where('status', '=', 'active')
      .orderBy('id', 'desc')
      .execute();
  }

  /** The campaign's row for a Stripe promotion code id, whatever its state. */
  byStripeId(campaignId: string, stripeId: string): Promise<PromotionCodeRow | undefined> {
    return this.db.selectFrom('promotion_codes').selectAll().where('campaign_id', '=', campaignId).where('stripe_id', '=', stripeId).executeTakeFirst();
  }

  /** The campaign's codes, newest first, of one status or all, with their participants' emails. */
  list(campaignId: string, status: PromotionCodeStatus | undefined, limit: number): Promise<ListedPromotionCode[]> {
    return this.db
      .selectFrom('promotion_codes as pc')
      .innerJoin('participants as p', 'p.id', 'pc.participant_id')
      .selectAll('pc')
      .select('p.email')
      .where('pc.campaign_id', '=', campaignId)
      .$if(status !== undefined, (q) => q.where('pc.status', '=', status!))
      .orderBy('pc.id', 'desc')
      .limit(bound(limit))
      .execute();
  }

  /** A participant's rows go with them (erasure): the codes in Stripe are deactivated first by the caller, if it can. */
  async deleteOf(participantIds: readonly number[]): Promise<void> {
    if (participantIds.length > 0) await this.db.deleteFrom('promotion_codes').where('participant_id', 'in', [...participantIds]).execute();
  }
}
