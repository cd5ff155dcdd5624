/**
 * SQL of the lifecycle emails: the outbox (written in the transaction of the change that causes each
 * email, claimed by the sender like the webhook outbox), the owner's texts, and the unsubscribes.
 * Claiming is one statement that takes due rows nobody holds (`FOR UPDATE SKIP LOCKED` on PostgreSQL,
 * so several processes share the work; SQLite has a single writer). A change never makes two emails of a
 * kind to one person: (participant, kind, change) is unique and the insert does nothing when taken.
 */
import { dueInCampaignTime } from '../../store/campaign-clock-store.js';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import { bound } from '../../store/bound-limit.js';
import { prepare, preparedWrite, type Write } from '../../store/prepared.js';
import type { Database, EmailOutboxTable, EmailTextsTable } from '../../store/tables.js';

export type EmailRow = Selectable<EmailOutboxTable>;
export type EmailTextRow = Selectable<EmailTextsTable>;

/** An email a change causes, about to be written. */
export type NewEmail = Pick<EmailRow, 'id' | 'campaign_id' | 'participant_id' | 'kind' | 'change_key' | 'data' | 'created_on'>;

// Written with every sign-up of a campaign with welcome emails: compiled once (../../store/prepared.ts).
const emailInsert = prepare(
  (db, id: string, campaign_id: string, participant_id: number, kind: string, change_key: string, data: string, at: number) =>
    db
      .insertInto('email_outbox')
      .values({ id, campaign_id, participant_id, kind, change_key, data, status: 'pending', next_attempt_on: at, created_on: at, updated_on: at })
      .onConflict((oc) => oc.columns(['participant_id', 'kind', 'change_key']).doNothing()),
);

/** A claimed email with what rendering it needs of its recipient. */
export interface DueEmail extends EmailRow {
  email: string;
  first_name: string | null;
  code: string;
  locale: string;
  unsubscribed: boolean;
}

export interface EmailLogFilter {
  campaignId: string;
  status?: EmailRow['status'];
  /** Rows created before this (created_on, id): the next page of the log, newest first. */
  before?: { createdOn: number; id: string };
  limit: number;
}

export class EmailStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** Whether this process writes lifecycle emails at all: only when it can send them (SMTP_URL). */
    readonly enabled: boolean,
    /** Tells the owning store that a campaign changed (its caches are dropped once that commits). */
    private readonly changed: () => void,
  ) {}

  /** A campaign's email settings as stored now (not from the cache: a change is decided on them). */
  async settingsOf(campaignId: string): Promise<string | null | undefined> {
    return (await this.db.selectFrom('campaigns').select('email_settings').where('id', '=', campaignId).executeTakeFirst())?.email_settings;
  }

  /** Replaces a campaign's email settings only if they are still `from`; false when another change came first. */
  async replaceSettings(campaignId: string, from: string | null, to: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('campaigns')
      .set({ email_settings: to, updated_on: now })
      .where('id', '=', campaignId)
      .where((eb) => (from === null ? eb('email_settings', 'is', null) : eb('email_settings', '=', from)))
      .executeTakeFirst();
    this.changed();
    return r.numUpdatedRows > 0n;
  }

  /** The inserts of `emails`, for the caller to run (or to put in a sign-up's one statement). */
  writes(emails: readonly NewEmail[]): Write[] {
    return emails.map((e) => preparedWrite(emailInsert, this.db, e.id, e.campaign_id, e.participant_id, e.kind, e.change_key, e.data, e.created_on));
  }

  /** Writes emails to the outbox; call inside the transaction of the change that causes them. */
  async insert(emails: readonly NewEmail[]): Promise<void> {
    for (const w of this.writes(emails)) await w.run();
  }

  /** Claims up to `limit` due emails until `now + leaseMs`; returns them with their recipients. */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<DueEmail[]> {
    const due = this.db
      .selectFrom('email_outbox')
      .select('id')
      .where('status', '=', 'pending')
      // Due in the campaign's own time: a test campaign's clock may be ahead (../../store/campaign-clock-store.ts).
      .where(dueInCampaignTime('email_outbox.next_attempt_on', 'email_outbox.campaign_id', now))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('next_attempt_on')
      .limit(bound(limit))
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    const claimed = await this.db.updateTable('email_outbox').set({ claimed_until: now + leaseMs }).where('id', 'in', due).returning('id').execute();
    if (claimed.length === 0) return [];
    const rows = await this.db
      .selectFrom('email_outbox as o')
      .innerJoin('participants as p', 'p.id', 'o.participant_id')
      .leftJoin('email_unsubscribes as u', 'u.participant_id', 'o.participant_id')
      .selectAll('o')
      .select(['p.email', 'p.first_name', 'p.code', 'p.locale', 'u.created_on as unsubscribed_on'])
      .where(
        'o.id',
        'in',
        claimed.map((c) => c.id),
      )
      .orderBy('o.next_attempt_on')
      .execute();
    return rows.map(({ unsubscribed_on, ...r }) => ({ ...r, unsubscribed: unsubscribed_on !== null }));
  }

  /**
   * Writes the reminder of every participant of the campaign who joined before `joinedBefore`, has referred
   * no one and has not unsubscribed: one statement, and once per participant ever (the outbox's unique
   * key); answers how many were written.
   */
  async queueReminders(campaignId: string, joinedBefore: number, now: number): Promise<number> {
    const rows = await this.db
      .insertInto('email_outbox')
      .columns(['id', 'campaign_id', 'participant_id', 'kind', 'change_key', 'data', 'status', 'next_attempt_on', 'created_on', 'updated_on'])
      .expression(
        this.db
          .selectFrom('participants as p')
          .select([
            sql<string>`'eml_reminder_' || cast(p.id as text)`.as('id'),
            'p.campaign_id',
            'p.id',
            sql<string>`'reminder'`.as('kind'),
            sql<string>`'reminder'`.as('change_key'),
            sql<string>`'{}'`.as('data'),
            sql<string>`'pending'`.as('status'),
            sql<number>`cast(${now} as bigint)`.as('next_attempt_on'),
            sql<number>`cast(${now} as bigint)`.as('created_on'),
            sql<number>`cast(${now} as bigint)`.as('updated_on'),
          ])
          .where('p.campaign_id', '=', campaignId)
          // No referral yet, folded or not (../../store/referral-count-store.ts).
          .where('p.total_referrals', '=', 0)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('referral_count_deltas as d').select('d.referrer_id').whereRef('d.referrer_id', '=', 'p.id'))))
          .where('p.created_on', '<', joinedBefore)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('email_unsubscribes as u').select('u.participant_id').whereRef('u.participant_id', '=', 'p.id')))),
      )
      // Once per participant ever: a reminder already written (sent or not) is left as it is.
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    return rows.length;
  }

  /** Emails sent to each of these domains since `since`: what the per-domain throttle counts. */
  async sentToDomains(domains: string[], since: number): Promise<Map<string, number>> {
    if (domains.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('email_outbox')
      .select(['domain', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('domain', 'in', domains)
      .where('sent_on', '>=', since)
      .groupBy('domain')
      .execute();
    return new Map(rows.map((r) => [r.domain ?? '', Number(r.n)]));
  }

  /** Ends a claim: sent, skipped, failed, or pending again at `nextAttemptOn` (`attempted`: it counts as an attempt). */
  async finish(
    id: string,
    now: number,
    outcome: { status: EmailRow['status']; nextAttemptOn: number | null; error: string | null; attempted: boolean; domain?: string },
  ): Promise<void> {
    await this.db
      .updateTable('email_outbox')
      .set((eb) => ({
        status: outcome.status,
        next_attempt_on: outcome.nextAttemptOn,
        claimed_until: null,
        last_error: outcome.error,
        updated_on: now,
        ...(outcome.status === 'sent' && { sent_on: now, domain: outcome.domain ?? null }),
        ...(outcome.attempted && { attempt_count: eb('attempt_count', '+', 1) }),
      }))
      .where('id', '=', id)
      .execute();
  }

  /** A campaign's outbox, newest first: the dashboard's delivery log. */
  async log(f: EmailLogFilter): Promise<(EmailRow & { email: string })[]> {
    let q = this.db
      .selectFrom('email_outbox as o')
      .innerJoin('participants as p', 'p.id', 'o.participant_id')
      .selectAll('o')
      .select('p.email')
      .where('o.campaign_id', '=', f.campaignId);
    if (f.status) q = q.where('o.status', '=', f.status);
    const { before } = f;
    if (before) q = q.where((eb) => eb(eb.refTuple('o.created_on', 'o.id'), '<', eb.tuple(before.createdOn, before.id)));
    return q.orderBy('o.created_on', 'desc').orderBy('o.id', 'desc').limit(bound(f.limit)).execute();
  }

  // ---- the owner's texts ----

  texts(campaignId: string): Promise<EmailTextRow[]> {
    return this.db.selectFrom('email_texts').selectAll().where('campaign_id', '=', campaignId).orderBy('kind').orderBy('locale').execute();
  }

  text(campaignId: string, kind: string, locale: string): Promise<EmailTextRow | undefined> {
    return this.db
      .selectFrom('email_texts')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('kind', '=', kind)
      .where('locale', '=', locale)
      .executeTakeFirst();
  }

  async putText(row: EmailTextRow): Promise<void> {
    await this.db
      .insertInto('email_texts')
      .values(row)
      .onConflict((oc) => oc.columns(['campaign_id', 'kind', 'locale']).doUpdateSet({ subject: row.subject, body: row.body, updated_on: row.updated_on }))
      .execute();
  }

  /** Back to the default text; false when there was no text of the owner's. */
  async deleteText(campaignId: string, kind: string, locale: string): Promise<boolean> {
    const r = await this.db.deleteFrom('email_texts').where('campaign_id', '=', campaignId).where('kind', '=', kind).where('locale', '=', locale).executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  // ---- unsubscribes ----

  /** Records that a participant wants no more emails of its campaign; false when it already had. */
  async unsubscribe(participantId: number, campaignId: string, now: number): Promise<boolean> {
    const r = await this.db
      .insertInto('email_unsubscribes')
      .values({ participant_id: participantId, campaign_id: campaignId, created_on: now })
      .onConflict((oc) => oc.column('participant_id').doNothing())
      .returning('participant_id')
      .executeTakeFirst();
    return r !== undefined;
  }

  async isUnsubscribed(participantId: number): Promise<boolean> {
    return (await this.db.selectFrom('email_unsubscribes').select('participant_id').where('participant_id', '=', participantId).executeTakeFirst()) !== undefined;
  }

  /** Stores a campaign's unsubscribe key if it has none yet (campaigns made before it existed); the key it has. */
  async emailSecret(campaignId: string, fresh: string): Promise<string> {
    await this.db.updateTable('campaigns').set({ email_secret: fresh }).where('id', '=', campaignId).where('email_secret', 'is', null).execute();
    const row = await this.db.selectFrom('campaigns').select('email_secret').where('id', '=', campaignId).executeTakeFirstOrThrow();
    return row.email_secret!;
  }
}
