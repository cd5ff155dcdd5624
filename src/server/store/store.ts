/**
 * All SQL lives here. Each method is one statement or one short transaction, written once with Kysely
 * for both SQLite and PostgreSQL. Rules that must hold under concurrency are single conditional
 * statements (`UPDATE ... WHERE <precondition>`), whose affected-row count tells the caller whether it
 * won, or unique constraints; never a read followed by a write.
 */
import { sql, type Kysely, type Selectable, type Insertable, type Updateable } from 'kysely';
import type { ApiKeysTable, CampaignsTable, Database, ParticipantsTable } from './tables.js';
import type { Dialect } from './connect.js';
import { DirectoryStore } from './directory-store.js';
import { OwnerStore } from './owner-store.js';
import { StatsStore } from './stats-store.js';
import { WebhookStore } from './webhook-store.js';

export type CampaignRow = Selectable<CampaignsTable>;
export type ParticipantRow = Selectable<ParticipantsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewParticipant = Insertable<ParticipantsTable>;
export type RewardKind = 'referral' | 'referee';

/** Where a list starts: an offset (page numbers) or after a (createdOn, id) key (cursors). */
export type ListStart = { offset: number } | { after: { createdOn: number; id: number } };
export type ParticipantFilter = { campaignId: string; referredById?: number };

export class Store {
  /** The webhook outbox, over the same connection (and so the same transaction) as this store. */
  readonly webhooks: WebhookStore;
  /** Dashboard owners and their sessions. */
  readonly owners: OwnerStore;
  /** Per-campaign daily counters of the dashboard's analytics. */
  readonly stats: StatsStore;
  /** The owner's participant table: search, orders, review state. */
  readonly directory: DirectoryStore;

  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: Dialect,
  ) {
    this.webhooks = new WebhookStore(db, dialect);
    this.owners = new OwnerStore(db);
    this.stats = new StatsStore(db);
    this.directory = new DirectoryStore(db, dialect);
  }

  /** Runs `fn` in one transaction with a store bound to it; everything commits together or not at all. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new Store(trx, this.dialect)));
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  // ---- campaigns ----

  async insertCampaign(row: Insertable<CampaignsTable>): Promise<void> {
    await this.db.insertInto('campaigns').values(row).execute();
  }

  async updateCampaign(id: string, patch: Updateable<CampaignsTable>): Promise<void> {
    await this.db.updateTable('campaigns').set(patch).where('id', '=', id).execute();
  }

  /** Moves a campaign to `status` only if it is in one of `from` now; false if it was not. */
  async transitionCampaign(id: string, from: CampaignRow['status'][], status: CampaignRow['status'], now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('campaigns')
      .set({ status, updated_on: now })
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  findCampaign(id: string): Promise<CampaignRow | undefined> {
    return this.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listCampaigns(accountId: number): Promise<CampaignRow[]> {
    return this.db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).orderBy('created_on', 'desc').orderBy('id').execute();
  }

  async countParticipants(campaignId: string): Promise<number> {
    const r = await this.db
      .selectFrom('participants')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** host_url and allowed_origins of every campaign: the sources of the origins CORS preflights may use. */
  campaignOrigins(): Promise<Pick<CampaignRow, 'host_url' | 'allowed_origins'>[]> {
    return this.db.selectFrom('campaigns').select(['host_url', 'allowed_origins']).execute();
  }

  // ---- participants ----

  /** Inserts unless the email or the code is taken in the campaign; the new id, or undefined if taken. */
  async insertParticipant(row: NewParticipant): Promise<number | undefined> {
    const r = await this.db
      .insertInto('participants')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id;
  }

  findParticipantByEmail(campaignId: string, email: string): Promise<ParticipantRow | undefined> {
    return this.db
      .selectFrom('participants')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('email', '=', email)
      .executeTakeFirst();
  }

  findParticipantByCode(campaignId: string, code: string): Promise<ParticipantRow | undefined> {
    return this.db
      .selectFrom('participants')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('code', '=', code)
      .executeTakeFirst();
  }

  findParticipant(id: number): Promise<ParticipantRow | undefined> {
    return this.db.selectFrom('participants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listParticipants(filter: ParticipantFilter, start: ListStart, limit: number): Promise<ParticipantRow[]> {
    let q = this.db.selectFrom('participants').selectAll().where('campaign_id', '=', filter.campaignId);
    if (filter.referredById !== undefined) q = q.where('referred_by_id', '=', filter.referredById);
    if ('after' in start) {
      const { createdOn, id } = start.after;
      q = q.where((eb) =>
        eb.or([eb('created_on', '>', createdOn), eb.and([eb('created_on', '=', createdOn), eb('id', '>', id)])]),
      );
    } else if (start.offset > 0) {
      q = q.offset(start.offset);
    }
    return q.orderBy('created_on').orderBy('id').limit(limit).execute();
  }

  /** Counts signups from one IP in a campaign since a time: the "same IP burst" fraud signal. */
  async countSignupsFromIp(campaignId: string, ip: string, since: number): Promise<number> {
    const r = await this.db
      .selectFrom('participants')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('campaign_id', '=', campaignId)
      .where('signup_ip', '=', ip)
      .where('created_on', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async incrementReferrals(referrerId: number, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({ total_referrals: eb('total_referrals', '+', 1), updated_on: now }))
      .where('id', '=', referrerId)
      .execute();
  }

  /** Marks the qualifying event done; true only for the one call that flipped it. */
  async completeRewardEvent(id: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('participants')
      .set({ reward_event_completed: 1, reward_event_completed_on: now, updated_on: now })
      .where('id', '=', id)
      .where('reward_event_completed', '=', 0)
      .executeTakeFirst();
    if (r.numUpdatedRows > 0n) await this.stats.addForParticipant(id, 'qualified', 1, now);
    return r.numUpdatedRows > 0n;
  }

  async incrementCompletedReferred(referrerId: number, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({ total_completed_referred: eb('total_completed_referred', '+', 1), updated_on: now }))
      .where('id', '=', referrerId)
      .execute();
  }

  /** Adds a payment to the payer and the revenue it brought to the payer's referrer. */
  async recordPayment(payerId: number, referrerId: number | null, cents: number, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({
        amount_paid_cents: eb('amount_paid_cents', '+', cents),
        payment_count: eb('payment_count', '+', 1),
        updated_on: now,
      }))
      .where('id', '=', payerId)
      .execute();
    if (referrerId !== null) {
      await this.stats.addForParticipant(payerId, 'referred_revenue_cents', cents, now);
      await this.db
        .updateTable('participants')
        .set((eb) => ({ revenue_generated_cents: eb('revenue_generated_cents', '+', cents), updated_on: now }))
        .where('id', '=', referrerId)
        .execute();
    }
  }

  /**
   * Claims the credit of a referee whose event is complete and who is approved, crediting the referee's
   * own reward in the same statement; true only for the one call that claimed it.
   */
  async claimRefereeCredit(id: number, refereeReward: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('participants')
      .set((eb) => ({ reward_credited: 1, referee_reward: eb('referee_reward', '+', refereeReward), updated_on: now }))
      .where('id', '=', id)
      .where('reward_event_completed', '=', 1)
      .where('approval', '=', 1)
      .where('reward_credited', '=', 0)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async addReferralReward(referrerId: number, amount: number, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({ referral_reward: eb('referral_reward', '+', amount), updated_on: now }))
      .where('id', '=', referrerId)
      .execute();
  }

  async approve(id: number, now: number): Promise<void> {
    await this.db.updateTable('participants').set({ approval: 1, updated_on: now }).where('id', '=', id).execute();
  }

  /** Redeems from a balance only if the balance covers it; false (and nothing changed) otherwise. */
  async redeem(id: number, kind: RewardKind, amount: number, now: number): Promise<boolean> {
    const earned = kind === 'referral' ? 'referral_reward' : 'referee_reward';
    const redeemed = kind === 'referral' ? 'referral_reward_redeemed' : 'referee_reward_redeemed';
    const r = await this.db
      .updateTable('participants')
      .set((eb) => ({ [redeemed]: eb(redeemed, '+', amount), updated_on: now }))
      .where('id', '=', id)
      .where((eb) => eb(eb(earned, '-', eb.ref(redeemed)), '>=', amount))
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** `now` dates the impression in the daily counters; callers without a clock at hand get the wall clock. */
  async addImpression(id: number, now: number = Date.now()): Promise<void> {
    await this.db
      .updateTable('participants')
      .set((eb) => ({ impression_count: eb('impression_count', '+', 1) }))
      .where('id', '=', id)
      .execute();
    await this.stats.addForParticipant(id, 'impressions', 1, now);
  }

  // ---- API keys ----

  async insertApiKey(row: Insertable<ApiKeysTable>): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
  }

  findApiKey(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async revokeApiKey(id: string, accountId: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ revoked_on: now })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('revoked_on', 'is', null)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  listApiKeys(accountId: number): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_on').execute();
  }
}
