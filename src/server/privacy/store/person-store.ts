/**
 * Everything stored about one address within an account, for exporting it and erasing it
 * (../domain/person-export.ts, ../domain/erasure.ts), and the erased addresses' salted hashes that
 * block the same address's referral credit for a while (../domain/erasure-block.ts). The tables that
 * hold an address or a name, and how each is reached: by the address itself (participants, pending
 * sign-ups, emailed links, Stripe events, the dashboard's sign-in throttle), by the participant's id
 * (tokens, impressions, the email outbox, unsubscribes, payments with their refunds and disputes, ledger), or as text inside a stored
 * body (webhook payloads, idempotency answers).
 */
import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Caches } from '../../store/caches.js';
import type { Dialect } from '../../store/connect.js';
import { countedRow } from '../../store/referral-count-store.js';
import { TEST_MODE_KEYS } from '../../store/idempotency-store.js';
import type {
  Database,
  DisputesTable,
  EmailLinksTable,
  EmailOutboxTable,
  ParticipantsTable,
  PaymentsTable,
  PendingSignupsTable,
  RewardEntriesTable,
  StripeEventsTable,
  WebhookEventsTable,
} from '../../store/tables.js';

export type PersonParticipant = Selectable<ParticipantsTable> & { campaign_name: string };

/**
 * Whose rows a person's export or erasure reaches: the account's, in both modes; or, for a test key, its
 * test campaigns' only (a test key never reads or touches live data: docs/security.md).
 */
export interface PersonScope {
  accountId: number;
  testOnly: boolean;
}

/** What an erasure changes in a participant's own row: the address, names, network and code replaced. */
export interface Anonymised {
  email: string;
  code: string;
}

export class PersonStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly caches: Caches,
  ) {}

  /** `column` contains `text` (no LIKE: an address may hold `_` or `%`). */
  #contains(column: string, text: string): Expression<SqlBool> {
    return this.dialect === 'postgres' ? sql<SqlBool>`strpos(${sql.ref(column)}, ${text}) > 0` : sql<SqlBool>`instr(${sql.ref(column)}, ${text}) > 0`;
  }

  #accountCampaigns(scope: PersonScope) {
    const q = this.db.selectFrom('campaigns').select('id').where('account_id', '=', scope.accountId);
    return scope.testOnly ? q.where('test', '=', 1) : q;
  }

  // ---- reads ----

  /** The participants with this address in the account's campaigns, oldest first. */
  participants(scope: PersonScope, email: string): Promise<PersonParticipant[]> {
    let q = this.db
      .selectFrom('participants as p')
      .innerJoin('campaigns as c', 'c.id', 'p.campaign_id')
      .select(countedRow('p'))
      .select('c.name as campaign_name')
      .where('c.account_id', '=', scope.accountId)
      .where('p.email', '=', email);
    if (scope.testOnly) q = q.where('c.test', '=', 1);
    return q.orderBy('p.id').execute();
  }

  pendingSignups(scope: PersonScope, email: string): Promise<Selectable<PendingSignupsTable>[]> {
    return this.db.selectFrom('pending_signups').selectAll().where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).orderBy('id').execute();
  }

  emailLinks(scope: PersonScope, email: string): Promise<Selectable<EmailLinksTable>[]> {
    return this.db.selectFrom('email_links').selectAll().where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).orderBy('created_on').execute();
  }

  tokens(participantId: number) {
    return this.db.selectFrom('participant_tokens').select(['created_on', 'revoked_on']).where('participant_id', '=', participantId).orderBy('created_on').execute();
  }

  /** Today's distinct visitors of the participant's share link (older days are pruned), per day. */
  async impressions(participantId: number): Promise<{ day: number; visitors: number }[]> {
    const rows = await this.db
      .selectFrom('impressions')
      .select((eb) => ['day', eb.fn.countAll<number | string>().as('visitors')])
      .where('participant_id', '=', participantId)
      .groupBy('day')
      .orderBy('day')
      .execute();
    return rows.map((r) => ({ day: r.day, visitors: Number(r.visitors) }));
  }

  /** The participant's email log: the outbox rows of emails to them. */
  emails(participantId: number): Promise<Selectable<EmailOutboxTable>[]> {
    return this.db.selectFrom('email_outbox').selectAll().where('participant_id', '=', participantId).orderBy('created_on').orderBy('id').execute();
  }

  async unsubscribedOn(participantId: number): Promise<number | null> {
    const r = await this.db.selectFrom('email_unsubscribes').select('created_on').where('participant_id', '=', participantId).executeTakeFirst();
    return r?.created_on ?? null;
  }

  payments(participantId: number): Promise<Selectable<PaymentsTable>[]> {
    return this.db.selectFrom('payments').selectAll().where('participant_id', '=', participantId).orderBy('id').execute();
  }

  /** Each dated refund of the participant's payments (../../rewards/domain/refunds.ts records them), oldest first. */
  refunds(participantId: number): Promise<{ payment_id: number; cents: number; refunded_on: number }[]> {
    return this.db
      .selectFrom('refunds as r')
      .innerJoin('payments as p', 'p.id', 'r.payment_id')
      .select(['r.payment_id', 'r.cents', 'r.refunded_on'])
      .where('p.participant_id', '=', participantId)
      .orderBy('r.refunded_on')
      .orderBy('r.id')
      .execute();
  }

  /** Disputes of the participant's payments, oldest first. */
  disputes(participantId: number): Promise<Selectable<DisputesTable>[]> {
    return this.db.selectFrom('disputes').selectAll().where('participant_id', '=', participantId).orderBy('opened_on').orderBy('id').execute();
  }

  rewardEntries(participantId: number): Promise<Selectable<RewardEntriesTable>[]> {
    return this.db.selectFrom('reward_entries').selectAll().where('participant_id', '=', participantId).orderBy('created_on').orderBy('id').execute();
  }

  /** The participant's referees, oldest first: the export shows them masked. */
  referrals(participantId: number): Promise<Selectable<ParticipantsTable>[]> {
    return this.db.selectFrom('participants').select(countedRow('participants')).where('referred_by_id', '=', participantId).orderBy('created_on').orderBy('id').execute();
  }

  /** Webhook events of the account whose payload carries the address or is about one of these participants. */
  events(scope: PersonScope, email: string, participantIds: number[]): Promise<Selectable<WebhookEventsTable>[]> {
    let q = this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where((eb) => eb.or([this.#contains('payload', email), ...participantIds.map((id) => this.#contains('payload', `"participantId":${id},`))]));
    if (scope.testOnly) q = q.where('campaign_id', 'in', this.#accountCampaigns(scope));
    return q.orderBy('created_on').orderBy('id').execute();
  }

  stripeEvents(scope: PersonScope, email: string, participantIds: number[]): Promise<Selectable<StripeEventsTable>[]> {
    return this.db
      .selectFrom('stripe_events')
      .selectAll()
      .where('campaign_id', 'in', this.#accountCampaigns(scope))
      .where((eb) => eb.or([eb('email', '=', email), ...(participantIds.length > 0 ? [eb('participant_id', 'in', participantIds)] : [])]))
      .orderBy('created_on')
      .execute();
  }

  // ---- erasing ----

  /**
   * Replaces what identifies a participant in its own row (address, mailbox key, names, sign-up address
   * and network, referral code); the graph (its id, referrer, referees) and its counters stay.
   */
  async anonymise(id: number, to: Anonymised, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set({ email: to.email, email_key: to.email, first_name: null, last_name: null, signup_ip: null, signup_net: null, code: to.code, updated_on: now })
      .where('id', '=', id)
      .execute();
  }

  /** Rows that hold nothing but the participant's own traces: tokens, today's impressions, its email log. */
  async deleteOwnRows(id: number): Promise<void> {
    await this.db.deleteFrom('participant_tokens').where('participant_id', '=', id).execute();
    await this.db.deleteFrom('impressions').where('participant_id', '=', id).execute();
    await this.db.deleteFrom('email_outbox').where('participant_id', '=', id).execute();
    // Their earlier codes stop naming them, and their Stripe promotion codes (their code's text) are deactivated.
    await this.db.deleteFrom('referral_code_aliases').where('participant_id', '=', id).execute();
    await this.db.deleteFrom('participant_channels').where('participant_id', '=', id).execute();
    await this.db.updateTable('promotion_codes').set({ status: 'deactivating', next_attempt_on: 0, reason: 'The participant was erased' }).where('participant_id', '=', id).where('status', '=', 'active').execute();
    await this.db.updateTable('promotion_codes').set({ status: 'inactive', next_attempt_on: null }).where('participant_id', '=', id).where('status', 'in', ['queued', 'failed']).where('attempts', '=', 0).execute();
  }

  /** The data of emails to others that name this participant ("a friend joined"), rewritten. */
  async renameInOthersEmails(id: number, data: (old: string) => string): Promise<void> {
    const rows = await this.db.selectFrom('email_outbox').select(['id', 'data']).where('change_key', '=', `friend:${id}`).execute();
    for (const r of rows) await this.db.updateTable('email_outbox').set({ data: data(r.data) }).where('id', '=', r.id).execute();
  }

  /** Rows keyed by the address alone: sign-ups waiting for confirmation, and the links emailed to it. */
  async deleteAddressRows(scope: PersonScope, email: string): Promise<void> {
    await this.db.deleteFrom('pending_signups').where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).execute();
    await this.db.deleteFrom('email_links').where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).execute();
  }

  async setEventPayload(id: string, payload: string): Promise<void> {
    await this.db.updateTable('webhook_events').set({ payload }).where('id', '=', id).execute();
  }

  /** Stripe events keep what applying them did (amounts, ids); the address they carried is dropped. */
  async dropStripeEmail(scope: PersonScope, email: string): Promise<void> {
    await this.db.updateTable('stripe_events').set({ email: null }).where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).execute();
    // The other payment providers' events too (Paddle, Shopify...): what applying them did stays, the address goes.
    await this.db.updateTable('payment_events').set({ email: null }).where('campaign_id', 'in', this.#accountCampaigns(scope)).where('email', '=', email).execute();
  }

  /** Stored answers of keyed calls that carry the address: their retries run again instead of replaying it. */
  async deleteAnswersWith(scope: PersonScope, email: string): Promise<void> {
    let q = this.db.deleteFrom('idempotency_keys').where('account_id', '=', scope.accountId).where(this.#contains('body', email));
    if (scope.testOnly) q = q.where('key', 'like', `${TEST_MODE_KEYS}%`);
    await q.execute();
  }

  /** The dashboard's sign-in throttle rows keyed by the address (`email:` and `pair:` keys). */
  async deleteThrottleRows(email: string): Promise<void> {
    await this.db
      .deleteFrom('signin_failures')
      .where((eb) => eb.or([eb('key', '=', `email:${email}`), eb.and([eb('key', 'like', 'pair:%'), this.#contains('key', ` ${email}`)])]))
      .execute();
  }

  /** Every process forgets what it caches (the code owners above all), as after any cached change. */
  async bumpCacheEpoch(): Promise<void> {
    await sql`update cache_epoch set n = n + 1`.execute(this.db);
  }

  // ---- the erased addresses ----

  /** The account's salt, made now if it has none (the first erasure). */
  async ensureSalt(accountId: number, fresh: string, now: number): Promise<string> {
    await this.db.insertInto('erasure_salts').values({ account_id: accountId, salt: fresh, created_on: now }).onConflict((oc) => oc.column('account_id').doNothing()).execute();
    return (await this.db.selectFrom('erasure_salts').select('salt').where('account_id', '=', accountId).executeTakeFirstOrThrow()).salt;
  }

  /**
   * The account's salt, or null when it never erased anyone: cached, so that crediting in an account
   * without erasures reads nothing more (an erasure bumps the change counter, which empties the cache).
   */
  async salt(accountId: number): Promise<string | null> {
    const found = await this.caches.erasureSalts.get(accountId, async () => ({
      salt: (await this.db.selectFrom('erasure_salts').select('salt').where('account_id', '=', accountId).executeTakeFirst())?.salt ?? null,
    }));
    return found!.salt;
  }

  async recordErased(accountId: number, hash: string, now: number): Promise<void> {
    await this.db
      .insertInto('erased_addresses')
      .values({ account_id: accountId, address_hash: hash, erased_on: now })
      .onConflict((oc) => oc.columns(['account_id', 'address_hash']).doUpdateSet({ erased_on: now }))
      .execute();
  }

  /** When the address of this hash was last erased from the account; undefined if never. */
  async erasedOn(accountId: number, hash: string): Promise<number | undefined> {
    const r = await this.db.selectFrom('erased_addresses').select('erased_on').where('account_id', '=', accountId).where('address_hash', '=', hash).executeTakeFirst();
    return r === undefined ? undefined : Number(r.erased_on);
  }
}
