/**
 * SQL of the retention pruner (../domain/retention.ts): its lease, its progress, and its batches. Each
 * batch is one short statement (or, for webhook events, one short transaction) over at most `limit`
 * rows, read from the start of an index range: the caller loops, and between batches other requests
 * write (on SQLite each batch is a unit of the group commit like any request's, ../../store/group-commit.ts).
 * Every batch is conditional on what it changes (an IP still set, an email no longer pending, a delivery
 * delivered), so two processes running one at once would only find less to do.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import { bound } from '../../store/bound-limit.js';
import type { Database } from '../../store/tables.js';

/**
 * The email log's rows that may be pruned: not pending (to be sent), and no reminder (its row is what
 * makes a reminder once per participant ever: without it the next scan would write another). Literal
 * SQL, the predicate of the partial index `email_outbox_prunable` (migration 0025_retention), which a
 * query can use only when its WHERE says the same.
 */
export const EMAIL_PRUNABLE = sql<boolean>`status <> 'pending' and kind <> 'reminder'`;

/** Where a keyset scan of participants stopped: the last (created_on, id) it read. */
export interface ScanPosition {
  createdOn: number;
  id: number;
}

export class RetentionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  // ---- the lease: one process at a time ----

  /** Takes (or renews) the job's lease for `holder` until `until`, if it is free, expired or already theirs. */
  async claimLease(name: string, holder: string, now: number, until: number): Promise<boolean> {
    const r = await this.db
      .updateTable('job_leases')
      .set({ holder, until })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('until', '<=', now), eb('holder', '=', holder)]))
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Gives the lease up (only if `holder` still has it). */
  async releaseLease(name: string, holder: string): Promise<void> {
    await this.db.updateTable('job_leases').set({ holder: null, until: 0 }).where('name', '=', name).where('holder', '=', holder).execute();
  }

  // ---- what to prune ----

  /** Every account, with its stored settings (null columns: none stored, the defaults) and its progress. */
  accounts() {
    return this.db
      .selectFrom('accounts as a')
      .leftJoin('account_settings as s', 's.account_id', 'a.id')
      .leftJoin('retention_marks as m', 'm.account_id', 'a.id')
      .select(['a.id', 's.ip_days', 's.webhook_days', 's.email_days', 'm.ips_cleared_before'])
      .orderBy('a.id')
      .execute();
  }

  async campaignIds(accountId: number): Promise<string[]> {
    return (await this.db.selectFrom('campaigns').select('id').where('account_id', '=', accountId).orderBy('id').execute()).map((r) => r.id);
  }

  async setIpsClearedBefore(accountId: number, before: number): Promise<void> {
    await this.db
      .insertInto('retention_marks')
      .values({ account_id: accountId, ips_cleared_before: before })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ ips_cleared_before: before }))
      .execute();
  }

  // ---- IP addresses ----

  /**
   * The next `limit` participants of a campaign who signed up in [from, before), after `after`: one range
   * of the index (campaign_id, created_on, id), its ids only.
   */
  async participantsSignedUp(campaignId: string, from: number, before: number, after: ScanPosition | undefined, limit: number): Promise<{ id: number; created_on: number }[]> {
    const rows = await this.db
      .selectFrom('participants')
      .select(['id', 'created_on'])
      .where('campaign_id', '=', campaignId)
      .where('created_on', '>=', from)
      .where('created_on', '<', before)
      .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('created_on', 'id'), '>', eb.tuple(after!.createdOn, after!.id))))
      .orderBy('created_on')
      .orderBy('id')
      .limit(bound(limit))
      .execute();
    return rows.map((r) => ({ id: Number(r.id), created_on: Number(r.created_on) }));
  }

  /** Clears the sign-up IP and network of these participants (those that still have one); how many. */
  async clearParticipantIps(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    const r = await this.db
      .updateTable('participants')
      .set({ signup_ip: null, signup_net: null })
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('signup_ip', 'is not', null), eb('signup_net', 'is not', null)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Clears the IP of up to `limit` of a campaign's unconfirmed sign-ups made before `before`; how many. */
  async clearPendingSignupIps(campaignId: string, before: number, limit: number): Promise<number> {
    const r = await this.db
      .updateTable('pending_signups')
      .set({ signup_ip: null })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('pending_signups')
          .select('id')
          .where('campaign_id', '=', campaignId)
          .where('signup_ip', 'is not', null)
          .where('created_on', '<', before)
          .limit(bound(limit)),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /**
   * Deletes up to `limit` sign-in throttle counts (keyed by a client's IP or an email) whose window and
   * delay both ended before `before`: they count for nothing any more. How many.
   */
  /** Tax details an erasure kept (../../payouts/domain/payout-privacy.ts) whose period has ended. */
  async deleteKeptTaxDetails(now: number, limit: number): Promise<number> {
    const r = await this.db
      .deleteFrom('tax_details')
      .where('participant_id', 'in', (eb) => eb.selectFrom('tax_details').select('participant_id').where('keep_until', '<=', now).limit(bound(limit)))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteSigninFailures(before: number, limit: number): Promise<number> {
    const r = await this.db
      .deleteFrom('signin_failures')
      .where('key', 'in', (eb) =>
        eb.selectFrom('signin_failures').select('key').where('window_start', '<', before).where('next_on', '<', before).limit(bound(limit)),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Makes every process forget what it caches (participants' networks among it): once per run that cleared IPs. */
  async bumpCacheEpoch(): Promise<void> {
    await sql`update cache_epoch set n = n + 1`.execute(this.db);
  }

  // ---- webhook events ----

  /**
   * The next `limit` events of the account (of one campaign, when given) with ids in (after, beforeId) (ids sort by creation time:
   * a range of the primary key), each with whether it may go: all its deliveries delivered before `before`.
   */
  async webhookEventsBefore(accountId: number, after: string, beforeId: string, before: number, limit: number, campaignId?: string): Promise<{ id: string; done: boolean }[]> {
    const rows = await this.db
      .selectFrom('webhook_events as e')
      .select((eb) => [
        'e.id',
        eb
          .not(
            eb.exists(
              eb
                .selectFrom('webhook_deliveries as d')
                .select('d.id')
                .whereRef('d.event_id', '=', 'e.id')
                .where((w) => w.or([w('d.status', '<>', 'delivered'), w('d.updated_on', '>=', before)])),
            ),
          )
          .as('done'),
      ])
      .where('e.id', '>', after)
      .where('e.id', '<', beforeId)
      .where('e.account_id', '=', accountId)
      .$if(campaignId !== undefined, (q) => q.where('e.campaign_id', '=', campaignId!))
      .orderBy('e.id')
      .limit(bound(limit))
      .execute();
    return rows.map((r) => ({ id: r.id, done: Boolean(r.done) }));
  }

  /**
   * Deletes these events with their deliveries and attempts, only where every delivery is still delivered
   * before `before` (an owner may have asked for one again meanwhile). Call in a transaction. How many events.
   */
  async deleteWebhookEvents(ids: string[], before: number): Promise<number> {
    if (ids.length === 0) return 0;
    // Deliveries are locked first on PostgreSQL, so that a redelivery waits for this transaction.
    const deliveries = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'status', 'updated_on'])
      .where('event_id', 'in', ids)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate())
      .execute();
    const kept = new Set(deliveries.filter((d) => d.status !== 'delivered' || Number(d.updated_on) >= before).map((d) => d.event_id));
    const events = ids.filter((id) => !kept.has(id));
    if (events.length === 0) return 0;
    const gone = deliveries.filter((d) => !kept.has(d.event_id)).map((d) => d.id);
    if (gone.length > 0) {
      await this.db.deleteFrom('webhook_attempts').where('delivery_id', 'in', gone).execute();
      await this.db.deleteFrom('webhook_deliveries').where('id', 'in', gone).execute();
    }
    const r = await this.db.deleteFrom('webhook_events').where('id', 'in', events).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  // ---- the email log ----

  /** Deletes up to `limit` of a campaign's prunable log rows made before `before`: one range of `email_outbox_prunable`. How many. */
  async deleteEmails(campaignId: string, before: number, limit: number): Promise<number> {
    const r = await this.db
      .deleteFrom('email_outbox')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('email_outbox')
          .select('id')
          .where('campaign_id', '=', campaignId)
          .where('created_on', '<', before)
          .where(EMAIL_PRUNABLE)
          .orderBy('created_on')
          .orderBy('id')
          .limit(bound(limit)),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
