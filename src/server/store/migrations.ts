/**
 * The one migration set, for both databases. Migrations are code (not files found at run time) so the
 * compiled service and the tests run the same list in the same order. Append; never edit a shipped one.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type RawBuilder } from 'kysely';
import { CAMPAIGNS_UPDATE_WHEN, cacheTriggerSql, cacheTriggersSql, dropCacheTriggerSql } from './caches.js';
import type { Dialect } from './connect.js';
import { BOARD_BLOCK, BOARD_SPAN } from '../engagement/store/leaderboard-store.js';
import { CARRIED_OVER_LABEL } from '../rewards/store/reward-entry-store.js';
import { ASSUMPTION_FAILED } from '../referrals/store/signup-reads.js';
import { EMAIL_PRUNABLE } from '../privacy/store/retention-store.js';
import { migrationDatabase } from './transaction-pooling.js';

/** One UTC day in milliseconds: the bucket of the dashboard's daily counters. */
export const DAY_MS = 86_400_000;

/** An auto-incrementing integer key, spelled as each database wants it. */
function idType(dialect: Dialect) {
  return dialect === 'postgres' ? sql`bigserial` : sql`integer`;
}

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('accounts')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        // Every deployment has a default account: the one REFKIT_SECRET_KEY and the CLI act for.
        await db.insertInto('accounts').values({ name: 'default', created_on: Date.now() }).execute();

        await db.schema
          .createTable('campaigns')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('host_url', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('end_on', 'bigint')
          .addColumn('referrer_reward_value', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referee_reward_value', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('reward_type', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('reward_currency', 'text', (c) => c.notNull().defaultTo('USD'))
          .addColumn('reward_header', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('reward_description', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('share_header', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('share_description', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('allowed_origins', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('participants')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('email_key', 'text', (c) => c.notNull())
          .addColumn('first_name', 'text')
          .addColumn('last_name', 'text')
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('referred_by_id', 'bigint', (c) => c.references('participants.id'))
          .addColumn('referred_by_code', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addColumn('signup_source', 'text', (c) => c.notNull())
          .addColumn('signup_ip', 'text')
          .addColumn('fraud_score', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('approval', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('reward_event_completed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('reward_event_completed_on', 'bigint')
          .addColumn('reward_credited', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referral_reward', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('referral_reward_redeemed', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('referee_reward', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('referee_reward_redeemed', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('total_referrals', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('total_completed_referred', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('amount_paid_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('payment_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('revenue_generated_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('impression_count', 'integer', (c) => c.notNull().defaultTo(0))
          // The database, not a read-then-write, guarantees one participant per email and unique codes.
          .addUniqueConstraint('participants_campaign_email', ['campaign_id', 'email'])
          .addUniqueConstraint('participants_campaign_code', ['campaign_id', 'code'])
          // Redeeming can never take a balance below zero, whatever a caller races.
          .addCheckConstraint('participants_referral_balance', sql`referral_reward_redeemed <= referral_reward`)
          .addCheckConstraint('participants_referee_balance', sql`referee_reward_redeemed <= referee_reward`)
          .execute();
        // The orders the lists page in: (created_on, id) within a campaign or within one referrer.
        await db.schema.createIndex('participants_campaign_order').on('participants').columns(['campaign_id', 'created_on', 'id']).execute();
        await db.schema.createIndex('participants_referrer_order').on('participants').columns(['referred_by_id', 'created_on', 'id']).execute();
        await db.schema.createIndex('participants_signup_ip').on('participants').columns(['campaign_id', 'signup_ip', 'created_on']).execute();
        await db.schema.createIndex('participants_email_key').on('participants').columns(['campaign_id', 'email_key']).execute();

        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('prefix', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull().unique())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('revoked_on', 'bigint')
          .execute();
      },
    },
    '0002_webhooks': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('webhook_endpoints')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('event_types', 'text', (c) => c.notNull())
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('deleted_on', 'bigint')
          .execute();
        await db.schema
          .createTable('webhook_events')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
          .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_on', 'bigint')
          .addColumn('claimed_until', 'bigint')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
          .execute();
        // What the dispatcher scans: pending rows by due time.
        await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_on']).execute();
        await db.schema
          .createTable('webhook_attempts')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
          .addColumn('attempted_on', 'bigint', (c) => c.notNull())
          .addColumn('status_code', 'integer')
          .addColumn('error', 'text')
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_on']).execute();
      },
    },
    '0003_privacy': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('campaigns').addColumn('require_email_confirmation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('campaigns').addColumn('signing_secret', 'text').execute();
        await db.schema.alterTable('participants').addColumn('signup_net', 'text').execute();
        // How many referees of one referrer came from one network: the referral-squatting signal.
        await db.schema.createIndex('participants_referrer_net').on('participants').columns(['referred_by_id', 'signup_net']).execute();
        // The burst signal counts one network's recent sign-ups; the address is no longer the unit.
        await db.schema.createIndex('participants_signup_net').on('participants').columns(['campaign_id', 'signup_net', 'created_on']).execute();

        await db.schema
          .createTable('participant_tokens')
          .addColumn('hash', 'text', (c) => c.primaryKey())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('revoked_on', 'bigint')
          .execute();
        await db.schema.createIndex('participant_tokens_participant').on('participant_tokens').column('participant_id').execute();

        await db.schema
          .createTable('pending_signups')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('first_name', 'text')
          .addColumn('last_name', 'text')
          .addColumn('signup_ip', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('pending_signups_campaign_email', ['campaign_id', 'email'])
          .execute();

        await db.schema
          .createTable('email_links')
          .addColumn('hash', 'text', (c) => c.primaryKey())
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('purpose', 'text', (c) => c.notNull())
          .addColumn('referred_by_id', 'bigint', (c) => c.references('participants.id'))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('expires_on', 'bigint', (c) => c.notNull())
          .addColumn('used_on', 'bigint')
          .execute();
        // The throttle reads the newest link sent to an address.
        await db.schema.createIndex('email_links_recipient').on('email_links').columns(['campaign_id', 'email', 'created_on']).execute();

        await db.schema
          .createTable('impressions')
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('visitor', 'text', (c) => c.notNull())
          .addColumn('day', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('impressions_pk', ['participant_id', 'visitor', 'day'])
          .execute();
        await db.schema.createIndex('impressions_day').on('impressions').column('day').execute();
      },
    },
    '0004_owners': {
      async up(db: Kysely<any>) {
        // Owners sign in to the dashboard; each acts for one account, as a secret key does.
        await db.schema
          .createTable('users')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
          .addColumn('csrf_token', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('expires_on', 'bigint', (c) => c.notNull())
          .addColumn('revoked_on', 'bigint')
          .execute();
        await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
        // Failed sign-ins per key (an email or an IP) in the current window: the throttle, shared by every process.
        await db.schema
          .createTable('signin_failures')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .execute();

        // An owner's verdict on a participant held for review (approval itself lives on the participant).
        await db.schema
          .createTable('participant_reviews')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('decision', 'text', (c) => c.notNull())
          .addColumn('decided_on', 'bigint', (c) => c.notNull())
          .execute();

        // Per campaign and UTC day, counters kept as events happen, so analytics never scan participants.
        await db.schema
          .createTable('campaign_daily_stats')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('signups', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referred_signups', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('qualified', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('impressions', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referred_revenue_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('campaign_daily_stats_pk', ['campaign_id', 'day'])
          .execute();
        // Existing participants counted once, on the day they joined (qualified: the day they qualified).
        const day = (column: string) => sql`(${sql.ref(column)} / ${sql.lit(DAY_MS)})`;
        await sql`insert into campaign_daily_stats (campaign_id, day, signups, referred_signups, impressions, referred_revenue_cents)
          select campaign_id, ${day('created_on')}, count(*),
                 sum(case when referred_by_id is null then 0 else 1 end), sum(impression_count),
                 sum(case when referred_by_id is null then 0 else amount_paid_cents end)
          from participants group by campaign_id, ${day('created_on')}`.execute(db);
        await sql`insert into campaign_daily_stats (campaign_id, day, qualified)
          select campaign_id, ${day('reward_event_completed_on')}, count(*) from participants
          where reward_event_completed_on is not null group by campaign_id, ${day('reward_event_completed_on')}
          on conflict (campaign_id, day) do update set qualified = excluded.qualified`.execute(db);

        // The dashboard's orders and filters, each an index range at any size.
        await db.schema.createIndex('participants_campaign_referrals').on('participants').columns(['campaign_id', 'total_referrals', 'id']).execute();
        await db.schema.createIndex('participants_campaign_approval').on('participants').columns(['campaign_id', 'approval', 'created_on', 'id']).execute();
        if (dialect === 'postgres') {
          // Email prefix search with LIKE uses an index in every collation only with text_pattern_ops.
          await sql`create index participants_campaign_email_prefix on participants (campaign_id, email text_pattern_ops)`.execute(db);
        }
      },
    },
    '0006_share_messages': {
      async up(db: Kysely<any>) {
        // JSON object of per-channel share messages (ShareMessages); null: the widget's own wording.
        await db.schema.alterTable('campaigns').addColumn('share_messages', 'text').execute();
      },
    },
    '0007_speed': {
      async up(db: Kysely<any>) {
        // getCampaign's participant count, kept as sign-ups happen instead of COUNT(*) over the campaign.
        await db.schema.alterTable('campaigns').addColumn('participant_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        await sql`update campaigns set participant_count = (select count(*) from participants p where p.campaign_id = campaigns.id)`.execute(db);
        // One row counting changes to what processes cache (./caches.ts), bumped by triggers on those tables.
        await db.schema.createTable('cache_epoch').addColumn('n', 'bigint', (c) => c.notNull()).execute();
        await db.insertInto('cache_epoch').values({ n: 0 }).execute();
        for (const statement of cacheTriggersSql(dialect)) await statement.execute(db);
        // Holding squatters updates the referees of one referrer from one network that are not held yet:
        // with fraud_score in the index that is a probe for the few unheld ones, not a scan of the group.
        await db.schema.dropIndex('participants_referrer_net').execute();
        await db.schema.createIndex('participants_referrer_net_score').on('participants').columns(['referred_by_id', 'signup_net', 'fraud_score']).execute();
        // No query reads these (fraud scoring reads signup_net and compares email keys in code), yet every
        // sign-up wrote them: fewer pages per insert, and fewer bytes per fsync.
        await db.schema.dropIndex('participants_signup_ip').execute();
        await db.schema.dropIndex('participants_email_key').execute();
      },
    },
    '0008_counter_shards': {
      async up(db: Kysely<any>) {
        // Counters that sign-ups move, split into shards (./stats-store.ts): on PostgreSQL one row per
        // counter made every concurrent sign-up of a campaign wait for the previous one's COMMIT.
        await db.schema
          .createTable('campaign_counters')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('shard', 'integer', (c) => c.notNull())
          .addColumn('participants', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('campaign_counters_pk', ['campaign_id', 'shard'])
          .execute();
        await sql`insert into campaign_counters (campaign_id, shard, participants) select id, 0, participant_count from campaigns`.execute(db);
        // The trigger's condition names participant_count: drop it with the column, and watch every update again.
        await sql.raw(`drop trigger campaigns_update_cache${dialect === 'postgres' ? ' on campaigns' : ''}`).execute(db);
        await db.schema.alterTable('campaigns').dropColumn('participant_count').execute();
        await cacheTriggerSql(dialect, 'campaigns', 'update').execute(db);

        // The daily counters gain a shard in their key: a new table, the old rows as shard 0.
        await db.schema
          .createTable('campaign_daily_stats_sharded')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('shard', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('signups', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referred_signups', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('qualified', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('impressions', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('referred_revenue_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('campaign_daily_stats_shard_pk', ['campaign_id', 'day', 'shard'])
          .execute();
        await sql`insert into campaign_daily_stats_sharded (campaign_id, day, shard, signups, referred_signups, qualified, impressions, referred_revenue_cents)
          select campaign_id, day, 0, signups, referred_signups, qualified, impressions, referred_revenue_cents from campaign_daily_stats`.execute(db);
        await db.schema.dropTable('campaign_daily_stats').execute();
        await db.schema.alterTable('campaign_daily_stats_sharded').renameTo('campaign_daily_stats').execute();
      },
    },
    '0009_compact_impressions': {
      async up(db: Kysely<any>) {
        // Every new visitor's impression is an insert at a random place in this table's key. Its key was
        // a 32-character hex text, in a row table plus two indexes; now it is 52 bits of the same hash
        // (an integer) in one B-tree keyed (day, participant_id, visitor), which also serves the daily
        // prune. Fewer, denser pages per batch to write and checkpoint: 28 -> 18 µs of CPU an impression.
        await db.schema
          .createTable('impressions_compact')
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('visitor', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('impressions_compact_pk', ['day', 'participant_id', 'visitor'])
          .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
          .execute();
        // Only today's rows are kept (../referrals/domain/impressions.ts): few enough to convert here.
        const rows = await db.selectFrom('impressions').select(['day', 'participant_id', 'visitor']).execute();
        const converted = rows.map((r: { day: number; participant_id: number; visitor: string }) => ({
          day: r.day,
          participant_id: r.participant_id,
          visitor: parseInt(r.visitor.slice(0, 13), 16),
        }));
        for (let i = 0; i < converted.length; i += 500) {
          await db.insertInto('impressions_compact').values(converted.slice(i, i + 500)).onConflict((oc: any) => oc.doNothing()).execute();
        }
        await db.schema.dropTable('impressions').execute();
        await db.schema.alterTable('impressions_compact').renameTo('impressions').execute();
      },
    },
    '0010_signup_assertion': {
      async up(db: Kysely<any>) {
        // PostgreSQL: an error from inside a statement, which ends it with all of its changes. A sign-up
        // decided on assumed facts checks them in its one writing statement (../referrals/store/signup-reads.ts).
        if (dialect !== 'postgres') return;
        await sql`create function refkit_assert(ok boolean, message text) returns boolean language plpgsql as $$
          begin
            if not ok then
              raise exception using errcode = ${sql.lit(ASSUMPTION_FAILED)}, message = message;
            end if;
            return true;
          end $$`.execute(db);
      },
    },
    '0011_signin_delays': {
      async up(db: Kysely<any>) {
        // When the next sign-in attempt of a key may be made: a client's failures on one email delay its
        // next try, longer each time, instead of locking the email.
        await db.schema.alterTable('signin_failures').addColumn('next_on', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    '0012_widget_style': {
      async up(db: Kysely<any>) {
        // JSON object of the widget's look (WidgetStyle); null: the widget's own defaults.
        await db.schema.alterTable('campaigns').addColumn('widget_style', 'text').execute();
      },
    },
    '0013_idempotency_keys': {
      async up(db: Kysely<any>) {
        // Claimed by an insert that does nothing on a taken key: the primary key makes one of several
        // parallel duplicates the one that runs (./idempotency-store.ts).
        await db.schema
          .createTable('idempotency_keys')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('status', 'integer')
          .addColumn('headers', 'text')
          .addColumn('body', 'text')
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
          .execute();
        // The purge of expired keys deletes by age.
        await db.schema.createIndex('idempotency_keys_created_on').on('idempotency_keys').column('created_on').execute();
      },
    },
    '0014_reward_entries': {
      async up(db: Kysely<any>) {
        // The reward ledger (../rewards/store/reward-entry-store.ts): one append-only row per credit, reversal or
        // redemption. The participant's reward counters stay as the sums of its available entries.
        await db.schema
          .createTable('reward_entries')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('reward_kind', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('available_on', 'bigint', (c) => c.notNull())
          .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('referee_id', 'bigint', (c) => c.references('participants.id'))
          .addColumn('payment_id', 'bigint')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addCheckConstraint('reward_entries_kind', sql`kind in ('referral', 'referee', 'commission', 'milestone', 'reversal', 'redemption')`)
          .addCheckConstraint('reward_entries_reward_kind', sql`reward_kind in ('referral', 'referee')`)
          .addCheckConstraint('reward_entries_status', sql`status in ('pending', 'available', 'cancelled')`)
          .execute();
        // A participant's entries, newest first, a page at a time.
        await db.schema.createIndex('reward_entries_participant_order').on('reward_entries').columns(['participant_id', 'created_on', 'id']).execute();
        // What was earned and redeemed before the ledger, carried over as one entry each, so every
        // balance is the same after the migration as before it.
        const carry = (kind: string, rewardKind: string, amount: RawBuilder<number>) =>
          sql`insert into reward_entries (participant_id, kind, reward_kind, amount, status, available_on, label, created_on)
            select id, ${sql.lit(kind)}, ${sql.lit(rewardKind)}, ${amount}, 'available', updated_on, ${sql.lit(CARRIED_OVER_LABEL)}, updated_on
            from participants where ${amount} <> 0 order by id`.execute(db);
        for (const kind of ['referral', 'referee']) await carry(kind, kind, sql`${sql.ref(`${kind}_reward`)}`);
        for (const kind of ['referral', 'referee']) await carry('redemption', kind, sql`-${sql.ref(`${kind}_reward_redeemed`)}`);
      },
    },
    '0015_reward_rules': {
      async up(db: Kysely<any>) {
        // The campaign's reward rules (../rewards/domain/reward-rules.ts). The percent is kept in basis points, so
        // that commissions are integer arithmetic; milestones are JSON, null when there are none.
        const campaigns: [string, 'integer' | 'bigint' | 'text', unknown][] = [
          ['referrer_reward_bp', 'integer', 0],
          ['commission_payments', 'integer', 0],
          ['milestones', 'text', null],
          ['max_referral_reward', 'bigint', null],
          ['hold_days', 'integer', 0],
        ];
        // What the engine keeps per participant: the fraction of a unit of commission carried to the next
        // payment (millionths), what reversals could not take back (owed, per balance), the referrals
        // credited (what milestones count), the highest milestone credited, and whether a refund undid
        // their qualification.
        const participants: [string, 'integer' | 'bigint', number][] = [
          ['commission_remainder', 'bigint', 0],
          ['referral_reward_owed', 'bigint', 0],
          ['referee_reward_owed', 'bigint', 0],
          ['credited_referrals', 'integer', 0],
          ['milestones_reached', 'integer', 0],
          ['refunded', 'integer', 0],
        ];
        for (const [table, cols] of [['campaigns', campaigns], ['participants', participants]] as const) {
          for (const [name, type, dflt] of cols) {
            await db.schema.alterTable(table).addColumn(name, type, (c) => (dflt === null ? c : c.notNull().defaultTo(dflt))).execute();
          }
        }
        await sql`update participants set credited_referrals = (
          select count(*) from participants referee where referee.referred_by_id = participants.id and referee.reward_credited = 1
        ) where total_completed_referred > 0`.execute(db);
        await db.schema.alterTable('reward_entries').addColumn('capped', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        // The hold's scheduler finds what is due without reading what is not pending.
        await db.schema.createIndex('reward_entries_due').on('reward_entries').columns(['available_on', 'id']).where(sql<boolean>`status = 'pending'`).execute();
        // Each payment of a referee (../rewards/store/payment-store.ts): refunds take back from it, and the
        // commission it earned its referrer is reversed in proportion.
        await db.schema
          .createTable('payments')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('seq', 'integer', (c) => c.notNull())
          .addColumn('amount_cents', 'bigint', (c) => c.notNull())
          .addColumn('refunded_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('qualifying', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('commission_credited', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('commission', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('commission_reversed', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('paid_on', 'bigint', (c) => c.notNull())
          .addCheckConstraint('payments_refund', sql`refunded_cents >= 0 and refunded_cents <= amount_cents`)
          .execute();
        await db.schema.createIndex('payments_participant').on('payments').columns(['participant_id', 'id']).execute();
        if (dialect === 'sqlite') {
          // SQLite: a payment's row moves its payer's counters (and their referrer's revenue) itself, so recording one is one statement
          // (PostgreSQL makes it one with a CTE, ../rewards/store/payment-store.ts). A statement of its own cost a
          // repeated qualify a fifth of its throughput.
          await sql`create trigger payments_payer after insert on payments begin
            update participants set amount_paid_cents = amount_paid_cents + new.amount_cents, payment_count = payment_count + 1, updated_on = new.paid_on
            where id = new.participant_id;
            update participants set revenue_generated_cents = revenue_generated_cents + new.amount_cents, updated_on = new.paid_on
            where id = (select referred_by_id from participants where id = new.participant_id);
          end`.execute(db);
        }
        await db.schema.createIndex('reward_entries_payment').on('reward_entries').columns(['payment_id']).where(sql<boolean>`payment_id is not null`).execute();
      },
    },
    '0016_reward_codes': {
      async up(db: Kysely<any>) {
        // Reward code pools (../rewards/store/reward-code-store.ts): codes an owner uploads, each handed to one credit.
        // A pool is a campaign's codes of one kind; its row says whether its low event has fired since
        // it last had enough codes (reward_codes_low, once per crossing).
        await db.schema
          .createTable('reward_code_pools')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('low', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('reward_code_pools_pk', ['campaign_id', 'kind'])
          .addCheckConstraint('reward_code_pools_kind', sql`kind in ('referral', 'referee', 'milestone')`)
          .execute();
        await db.schema
          .createTable('reward_codes')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          // When it went to a credit (whose entry holds the code); null while it is in the pool.
          .addColumn('used_on', 'bigint')
          .addForeignKeyConstraint('reward_codes_pool', ['campaign_id', 'kind'], 'reward_code_pools', ['campaign_id', 'kind'])
          .execute();
        // A code is in a pool once: duplicates are skipped by this constraint.
        await db.schema.createIndex('reward_codes_unique').on('reward_codes').columns(['campaign_id', 'kind', 'code']).unique().execute();
        // A draw takes the oldest code still in the pool without reading the used ones.
        await db.schema.createIndex('reward_codes_free').on('reward_codes').columns(['campaign_id', 'kind', 'id']).where(sql<boolean>`used_on is null`).execute();
        // Which pools a campaign has, on the campaign (cached in every process): a credit of a campaign
        // without pools reads nothing more than before. Comma-separated kinds, null when there is none.
        await db.schema.alterTable('campaigns').addColumn('reward_code_kinds', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('reward_codes_low_threshold', 'integer', (c) => c.notNull().defaultTo(10)).execute();
        // A credit's code: the pool it takes one from once available (null: none), and the code it got.
        // code_kind set and code null is a credit waiting for a pool to be refilled.
        await db.schema.alterTable('reward_entries').addColumn('code_kind', 'text').execute();
        await db.schema.alterTable('reward_entries').addColumn('code', 'text').execute();
        await db.schema.createIndex('reward_entries_code_waiting').on('reward_entries').columns(['code_kind', 'id']).where(sql<boolean>`code_kind is not null and code is null`).execute();
      },
    },
    '0017_stripe': {
      async up(db: Kysely<any>) {
        // The campaign's Stripe webhook signing secret (whsec_...): write-only on the wire.
        await db.schema.alterTable('campaigns').addColumn('stripe_webhook_secret', 'text').execute();
        // Every Stripe event a campaign received, by Stripe's id: applied once however often Stripe sends
        // it, and kept (unmatched ones to be matched by hand) with what applying it needs.
        await db.schema
          .createTable('stripe_events')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('action', 'text')
          .addColumn('amount_cents', 'bigint')
          .addColumn('currency', 'text')
          .addColumn('email', 'text')
          .addColumn('code', 'text')
          .addColumn('customer', 'text')
          .addColumn('charge', 'text')
          .addColumn('payment_intent', 'text')
          .addColumn('participant_id', 'bigint', (c) => c.references('participants.id'))
          .addColumn('reason', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('applied_on', 'bigint')
          .addPrimaryKeyConstraint('stripe_events_pk', ['campaign_id', 'id'])
          .addCheckConstraint('stripe_events_status', sql`status in ('applied', 'unmatched', 'ignored')`)
          .execute();
        await db.schema.createIndex('stripe_events_list').on('stripe_events').columns(['campaign_id', 'status', 'created_on']).execute();
        // What later events name a participant by: their Stripe customer, and the charges and payment
        // intents of their payments (a dispute names only its charge), with what was refunded of each
        // charge so far (Stripe's charge.refunded carries the running total).
        await db.schema
          .createTable('stripe_links')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('refunded_cents', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('stripe_links_pk', ['campaign_id', 'key'])
          .execute();
      },
    },
    '0018_stripe_payouts': {
      async up(db: Kysely<any>) {
        // Paying rewards into Stripe (../payouts/domain/stripe-payouts.ts): the campaign's restricted key
        // (rk_..., write-only on the wire) and how an available credit is paid: off, balance, promotion_code.
        await db.schema.alterTable('campaigns').addColumn('stripe_reward_key', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('stripe_reward_mode', 'text', (c) => c.notNull().defaultTo('off')).execute();
        // The outbox: one row per credit that became available while the mode was on, written in the
        // transaction that made it available; the sender claims due rows (claimed_until, a lease) and marks
        // each paid (with Stripe's object id, in the transaction of its redemption entry) or failed.
        await db.schema
          .createTable('stripe_payouts')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('reward_kind', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('mode', 'text', (c) => c.notNull())
          .addColumn('label', 'text', (c) => c.notNull())
          // Random, so that two installations paying into one Stripe account never share a key.
          .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
          // Raised by an owner's retry of a failed payout: Stripe keeps a key's failed answer for 24 hours.
          .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_on', 'bigint')
          .addColumn('claimed_until', 'bigint')
          .addColumn('last_error', 'text')
          .addColumn('customer', 'text')
          .addColumn('stripe_id', 'text')
          .addColumn('promotion_code', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addColumn('paid_on', 'bigint')
          .addCheckConstraint('stripe_payouts_status', sql`status in ('queued', 'waiting', 'paid', 'failed')`)
          .addCheckConstraint('stripe_payouts_mode', sql`mode in ('balance', 'promotion_code')`)
          .addCheckConstraint('stripe_payouts_amount', sql`amount > 0`)
          .execute();
        // The sender's claim reads only rows still to send.
        await db.schema.createIndex('stripe_payouts_due').on('stripe_payouts').columns(['next_attempt_on']).where(sql<boolean>`status in ('queued', 'waiting')`).execute();
        await db.schema.createIndex('stripe_payouts_list').on('stripe_payouts').columns(['campaign_id', 'created_on', 'id']).execute();
      },
    },
    '0021_payment_chain': {
      async up(db: Kysely<any>) {
        // A payer's payments as a chain, newest first (the payer's last_payment_id, each payment's prev_id),
        // instead of an index on (participant_id, id). Every payment is appended at the table's end, where
        // the index took each insert into the middle of its tree (a page split and a page more written per
        // batch): recording a payment cost a repeated qualify a fifth of its throughput on SQLite. Every
        // read of a payer's payments (refunds, the newest first; commissions waiting for review) walks the
        // chain from the payer's row.
        await db.schema.alterTable('participants').addColumn('last_payment_id', 'bigint').execute();
        await db.schema.alterTable('payments').addColumn('prev_id', 'bigint').execute();
        await sql`update payments set prev_id = (
          select max(earlier.id) from payments earlier where earlier.participant_id = payments.participant_id and earlier.id < payments.id
        )`.execute(db);
        await sql`update participants set last_payment_id = (
          select max(id) from payments where payments.participant_id = participants.id
        ) where payment_count > 0`.execute(db);
        await db.schema.dropIndex('payments_participant').execute();
        if (dialect === 'sqlite') {
          await sql`drop trigger payments_payer`.execute(db);
          await sql`create trigger payments_payer after insert on payments begin
            update participants set amount_paid_cents = amount_paid_cents + new.amount_cents, payment_count = payment_count + 1,
              last_payment_id = new.id, updated_on = new.paid_on
            where id = new.participant_id;
            update participants set revenue_generated_cents = revenue_generated_cents + new.amount_cents, updated_on = new.paid_on
            where id = (select referred_by_id from participants where id = new.participant_id);
          end`.execute(db);
        }
      },
    },
    '0019_leaderboard': {
      async up(db: Kysely<any>) {
        // The campaign's leaderboard (JSON LeaderboardSettings, null: off) and the time zone its months
        // are counted in (an IANA name; ../engagement/domain/leaderboard.ts).
        await db.schema.alterTable('campaigns').addColumn('leaderboard', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC')).execute();
        // Boards (../engagement/store/leaderboard-store.ts): per campaign and board ('all', 'month:YYYY-MM'), each ranked
        // participant's qualified referrals and when they reached that count (seq, a global arrival order).
        await db.schema
          .createTable('board_entries')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('board', 'text', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('score', 'integer', (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('board_entries_pk', ['campaign_id', 'board', 'participant_id'])
          .execute();
        // The top of a board is the start of this index; the ties ahead of one entry a short range of it.
        await sql`create index board_entries_order on board_entries (campaign_id, board, score desc, seq)`.execute(db);
        // How many entries have each score, and each score within each span of BOARD_SPAN and block of
        // BOARD_BLOCK arrivals: a rank is a sum of a few of these rows plus a count within one block,
        // whatever the board's size.
        await db.schema
          .createTable('board_levels')
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('board', 'text', (c) => c.notNull())
          .addColumn('score', 'integer', (c) => c.notNull())
          .addColumn('n', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('board_levels_pk', ['campaign_id', 'board', 'score'])
          .execute();
        await db.schema
          .createTable('board_blocks')
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('board', 'text', (c) => c.notNull())
          .addColumn('score', 'integer', (c) => c.notNull())
          .addColumn('span', 'integer', (c) => c.notNull())
          .addColumn('block', 'bigint', (c) => c.notNull())
          .addColumn('n', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('board_blocks_pk', ['campaign_id', 'board', 'score', 'span', 'block'])
          .execute();
        // The arrival order: a sequence on PostgreSQL (no row lock shared by concurrent credits); on
        // SQLite, whose writes are serial anyway, a one-row counter.
        if (dialect === 'postgres') await sql`create sequence board_seq`.execute(db);
        else await db.schema.createTable('board_seq').addColumn('n', 'bigint', (c) => c.notNull()).execute();
        // Referrals credited before the leaderboard existed make the all-time board, in participant order.
        await sql`insert into board_entries (campaign_id, board, participant_id, score, seq)
          select campaign_id, 'all', id, credited_referrals, id from participants where credited_referrals > 0`.execute(db);
        await sql`insert into board_levels (campaign_id, board, score, n)
          select campaign_id, board, score, count(*) from board_entries group by campaign_id, board, score`.execute(db);
        for (const span of [BOARD_SPAN, BOARD_BLOCK]) {
          await sql`insert into board_blocks (campaign_id, board, score, span, block, n)
            select campaign_id, board, score, ${sql.lit(span)}, seq / ${sql.lit(span)}, count(*) from board_entries
            group by campaign_id, board, score, seq / ${sql.lit(span)}`.execute(db);
        }
        const top = sql`(select coalesce(max(id), 0) from participants)`;
        if (dialect === 'postgres') await sql`select setval('board_seq', ${top} + 1, false)`.execute(db);
        else await sql`insert into board_seq (n) select ${top}`.execute(db);
      },
    },
    '0020_lifecycle_emails': {
      async up(db: Kysely<any>) {
        // The language a participant's emails are written in: the widget's lang at sign-up, or the
        // Refkit-Locale header of an API sign-up (../domain/locales.ts). Everyone before it reads English.
        await db.schema.alterTable('participants').addColumn('locale', 'text', (c) => c.notNull().defaultTo('en')).execute();
        // The campaign's lifecycle email settings (JSON, ../emails/domain/email-settings.ts; null: the defaults),
        // and the key its unsubscribe links are signed with (one per campaign, never shown).
        await db.schema.alterTable('campaigns').addColumn('email_settings', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('email_secret', 'text').execute();
        const random = dialect === 'postgres' ? sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')` : sql`lower(hex(randomblob(32)))`;
        await db.updateTable('campaigns').set({ email_secret: random }).execute();
        // The owner's own subject and body of an email in a language, replacing the default text.
        await db.schema
          .createTable('email_texts')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('locale', 'text', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('email_texts_pk', ['campaign_id', 'kind', 'locale'])
          .execute();
        // The email outbox: one row per email a change causes, written in the change's transaction. The
        // unique (participant, kind, change) is what keeps a change from ever making two.
        await db.schema
          .createTable('email_outbox')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('change_key', 'text', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('domain', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_on', 'bigint')
          .addColumn('claimed_until', 'bigint')
          .addColumn('last_error', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addColumn('sent_on', 'bigint')
          .addUniqueConstraint('email_outbox_once', ['participant_id', 'kind', 'change_key'])
          .addCheckConstraint('email_outbox_status', sql`status in ('pending', 'sent', 'failed', 'skipped')`)
          .execute();
        await db.schema.createIndex('email_outbox_due').on('email_outbox').columns(['status', 'next_attempt_on']).execute();
        await db.schema.createIndex('email_outbox_log').on('email_outbox').columns(['campaign_id', 'created_on', 'id']).execute();
        await db.schema.createIndex('email_outbox_domain').on('email_outbox').columns(['domain', 'sent_on']).execute();
        // Who asked for no more emails of a campaign (a participant is of one campaign).
        await db.schema
          .createTable('email_unsubscribes')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0022_waitlist': {
      async up(db: Kysely<any>) {
        // Waitlist mode (JSON WaitlistSettings, null: off; ../engagement/domain/waitlist.ts).
        await db.schema.alterTable('campaigns').addColumn('waitlist', 'text').execute();
        // Per waitlist campaign: sign-ups numbered (joined, dense) and how many were let in (granted).
        await db.schema
          .createTable('waitlists')
          .addColumn('campaign_id', 'text', (c) => c.primaryKey().references('campaigns.id'))
          .addColumn('joined', 'bigint', (c) => c.notNull())
          .addColumn('granted', 'bigint', (c) => c.notNull())
          .execute();
        // Each participant in the queue: seq (sign-up number, from 0), wait_key (seq - spots x counted
        // referrals: lower is nearer the front, ties by seq) and when they were let in.
        await db.schema
          .createTable('waitlist_entries')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('wait_key', 'bigint', (c) => c.notNull())
          .addColumn('granted_on', 'bigint')
          .addUniqueConstraint('waitlist_entries_seq', ['campaign_id', 'seq'])
          .execute();
        // The queue in order, waiting entries only: grants read its start, a position one bucket of it.
        await sql`create index waitlist_queue on waitlist_entries (campaign_id, wait_key, seq) where granted_on is null`.execute(db);
        // How far each bucket of WAIT_BUCKET keys is from its sign-up baseline (../engagement/store/waitlist-store.ts): sparse.
        await db.schema
          .createTable('waitlist_deltas')
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('bucket', 'bigint', (c) => c.notNull())
          .addColumn('n', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('waitlist_deltas_pk', ['campaign_id', 'bucket'])
          .execute();
      },
    },
    '0023_team_audit': {
      async up(db: Kysely<any>) {
        // Roles (../kernel/roles.ts): everyone who could sign in before could do everything, so stays an owner.
        await db.schema.alterTable('users').addColumn('role', 'text', (c) => c.notNull().defaultTo('owner')).execute();
        // Invitations to join an account (../accounts/domain/team.ts): the emailed token only as its hash; single use.
        await db.schema
          .createTable('invitations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('invited_by', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('expires_on', 'bigint', (c) => c.notNull())
          .addColumn('accepted_on', 'bigint')
          .addColumn('revoked_on', 'bigint')
          .execute();
        await db.schema.createIndex('invitations_account').on('invitations').columns(['account_id', 'created_on']).execute();
        // The audit log (../accounts/store/audit-store.ts): append-only, kept forever.
        await db.schema
          .createTable('audit_log')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('actor_kind', 'text', (c) => c.notNull())
          .addColumn('actor_id', 'text')
          .addColumn('actor_label', 'text', (c) => c.notNull())
          .addColumn('actor_role', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('campaign_id', 'text')
          .addColumn('target', 'text')
          .addColumn('before', 'text')
          .addColumn('after', 'text')
          .addColumn('ip', 'text')
          .execute();
        await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'created_on', 'id']).execute();
        // Append-only in the database itself, not only by convention: a DELETE of an entry fails, and so does an
        // UPDATE of who did what, when, where. Only its target and snapshots may change: erasing a person
        // (../privacy/domain/erasure.ts) replaces their address and names there.
        const fixed = ['id', 'account_id', 'created_on', 'actor_kind', 'actor_id', 'actor_label', 'actor_role', 'action', 'campaign_id', 'ip'];
        if (dialect === 'postgres') {
          const cols = (row: string) => sql.raw(`(${fixed.map((c) => `${row}.${c}`).join(', ')})`);
          await sql`create function refkit_audit_append_only() returns trigger language plpgsql as $$
            begin
              if tg_op = 'DELETE' or ${cols('new')} is distinct from ${cols('old')} then
                raise exception 'audit_log is append-only';
              end if;
              return new;
            end $$`.execute(db);
          await sql`create trigger audit_log_append_only before update or delete on audit_log
            for each row execute function refkit_audit_append_only()`.execute(db);
        } else {
          await sql`create trigger audit_log_no_update before update of ${sql.raw(fixed.join(', '))} on audit_log
            begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
          await sql`create trigger audit_log_no_delete before delete on audit_log begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
        }
      },
    },
    '0024_erasure': {
      async up(db: Kysely<any>) {
        // Erasing a person (../privacy/domain/erasure.ts, ../privacy/store/person-store.ts): per account, a random salt, and the
        // salted hashes of the addresses erased with when, so that the same address signing up again within
        // ERASURE_BLOCK_DAYS earns no referral credit. The salt is made by the first erasure.
        await db.schema
          .createTable('erasure_salts')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('salt', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('erased_addresses')
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('address_hash', 'text', (c) => c.notNull())
          .addColumn('erased_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('erased_addresses_pk', ['account_id', 'address_hash'])
          .execute();
      },
    },
    '0025_retention': {
      async up(db: Kysely<any>) {
        // An account's settings (../accounts/store/account-settings-store.ts): how many days IP addresses and user agents,
        // delivered webhook events and the email log are kept (0 days of IPs: none are stored). No row: the
        // defaults (../accounts/domain/account-settings.ts). Cached in every process, so a change bumps cache_epoch.
        await db.schema
          .createTable('account_settings')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('ip_days', 'integer', (c) => c.notNull())
          .addColumn('webhook_days', 'integer', (c) => c.notNull())
          .addColumn('email_days', 'integer', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .execute();
        for (const event of ['insert', 'update', 'delete'] as const) await cacheTriggerSql(dialect, 'account_settings', event).execute(db);
        // The pruner's progress and its lease (../privacy/store/retention-store.ts): per account, the sign-up time before
        // which every participant's IP has been cleared, so a run starts where the last one stopped instead
        // of reading the cleared rows again; and the one row whose lease makes one process at a time prune.
        await db.schema
          .createTable('retention_marks')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('ips_cleared_before', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('job_leases')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('holder', 'text')
          .addColumn('until', 'bigint', (c) => c.notNull())
          .execute();
        await db.insertInto('job_leases').values({ name: 'retention', holder: null, until: 0 }).execute();
        // The email log's prunable rows in age order, per campaign: each batch of the pruner is the start
        // of this range. Rows enter it when they are sent, failed or skipped (by the sender, not by the
        // sign-up that wrote them pending); reminders stay out, as their row is what sends one only once.
        await sql`create index email_outbox_prunable on email_outbox (campaign_id, created_on, id) where ${EMAIL_PRUNABLE}`.execute(db);
      },
    },
    '0026_referral_count_deltas': {
      async up(db: Kysely<any>) {
        // A referred sign-up's one to its referrer's count, appended instead of updating the referrer's row,
        // which held every sign-up through one share link behind the one before it (./referral-count-store.ts).
        // Readers add the rows not yet folded into participants.total_referrals. No foreign key: its check
        // would lock the referrer's row (KEY SHARE) once more, and participants are never deleted (erasing
        // one rewrites the row).
        await db.schema
          .createTable('referral_count_deltas')
          .addColumn('referrer_id', 'bigint', (c) => c.notNull())
          .addColumn('n', 'integer', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('referral_count_deltas_referrer').on('referral_count_deltas').column('referrer_id').execute();
      },
    },
    '0027_test_mode': {
      async up(db: Kysely<any>) {
        // Test mode (../kernel/test-mode.ts): a campaign, a secret key and a webhook endpoint are live (0)
        // or test (1), fixed when made. Every row made before is live: old keys keep working as live keys.
        await db.schema.alterTable('campaigns').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('api_keys').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('webhook_endpoints').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        // A test campaign's clock (./campaign-clock-store.ts): its time is the real time plus offset_ms.
        // No row: offset 0. Live campaigns never have one.
        await db.schema
          .createTable('campaign_clocks')
          .addColumn('campaign_id', 'text', (c) => c.primaryKey().references('campaigns.id'))
          .addColumn('offset_ms', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0028_disputes': {
      async up(db: Kysely<any>) {
        // A referee's payment disputed (../rewards/domain/disputes.ts): one row per campaign and dispute id (Stripe's,
        // or the caller's), open until closed won or lost. `reversed`: the commission taken back from an
        // available balance when it opened, given back if it is won.
        await db.schema
          .createTable('disputes')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
          .addColumn('amount_cents', 'bigint', (c) => c.notNull())
          .addColumn('reversed', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('opened_on', 'bigint', (c) => c.notNull())
          .addColumn('closed_on', 'bigint')
          .addPrimaryKeyConstraint('disputes_pk', ['campaign_id', 'id'])
          .addCheckConstraint('disputes_status', sql`status in ('open', 'won', 'lost')`)
          .execute();
        await db.schema.createIndex('disputes_participant').on('disputes').columns(['participant_id', 'opened_on']).execute();
        // At most one open dispute per payment: a second would hold what the first already holds.
        await db.schema.createIndex('disputes_open_payment').on('disputes').columns(['payment_id']).unique().where(sql<boolean>`status = 'open'`).execute();
        // A pending credit held by an open dispute (its id): the releaser leaves it pending past its date.
        await db.schema.alterTable('reward_entries').addColumn('held_by_dispute', 'text').execute();
        // The dispute a Stripe charge.dispute.* event is about.
        await db.schema.alterTable('stripe_events').addColumn('dispute', 'text').execute();
      },
    },
    '0029_refund_dates': {
      async up(db: Kysely<any>) {
        // Each refund of a payment and when it was made (../rewards/store/refund-store.ts): the offer backtest
        // (../rewards/domain/backtest.ts) applies a refund at its date. Refunds made before have no row: the
        // payment's refunded_cents beyond its rows' sum is undated.
        await db.schema
          .createTable('refunds')
          .addColumn('id', idType(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('payment_id', 'bigint', (c) => c.notNull().references('payments.id'))
          .addColumn('cents', 'bigint', (c) => c.notNull())
          .addColumn('refunded_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('refunds_campaign').on('refunds').columns(['campaign_id', 'refunded_on']).execute();
      },
    },
    '0030_key_creators': {
      async up(db: Kysely<any>) {
        // Who made each key (../accounts/domain/keys.ts): removing a member lists, and may revoke, the keys
        // they made. Keys made before have none.
        await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
      },
    },
    '0031_held_stripe_events': {
      async up(db: Kysely<any>) {
        // A Stripe event whose amount is in another currency than the campaign's rewards is kept `held`
        // (../billing/domain/stripe-events.ts), never applied 1:1.
        const before = "status in ('applied', 'unmatched', 'ignored')";
        const after = "status in ('applied', 'unmatched', 'ignored', 'held')";
        if (dialect === 'postgres') {
          await sql`alter table stripe_events drop constraint stripe_events_status, add constraint stripe_events_status check (${sql.raw(after)})`.execute(db);
          return;
        }
        // SQLite cannot change a CHECK: the table is made again from its own definition with the new one,
        // and its rows copied (a table of a few rows per payment event; the migration's transaction holds it).
        const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'stripe_events'`.execute(db);
        const definition = rows[0]?.sql ?? '';
        if (!definition.includes(before)) throw new Error(`stripe_events is not as migration 0030 left it: ${definition}`);
        const create = definition.replace(/^create table "?stripe_events"?/i, 'create table "stripe_events_new"').replace(before, after);
        await sql.raw(create).execute(db);
        await sql`insert into stripe_events_new select * from stripe_events`.execute(db);
        await sql`drop table stripe_events`.execute(db);
        await sql`alter table stripe_events_new rename to stripe_events`.execute(db);
        await db.schema.createIndex('stripe_events_list').on('stripe_events').columns(['campaign_id', 'status', 'created_on']).execute();
      },
    },
    '0032_commission_rates': {
      async up(db: Kysely<any>) {
        // The rate (basis points) a payment's commission was computed at: a refund takes back the
        // millionths its part earned at that rate (../rewards/domain/reward-rules.ts commissionReversal).
        // Payments decided before have none, and are reversed in proportion as before.
        await db.schema.alterTable('payments').addColumn('commission_bp', 'integer').execute();
      },
    },
    '0033_cash_payouts': {
      async up(db: Kysely<any>) {
        const id = (t: any) => t.addColumn('id', idType(dialect), (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
        // Cash payouts (../payouts/domain/payout-runs.ts): the campaign's settings (JSON: methods, minimum,
        // schedule, approval; null: none) and, on the participant, what open payouts hold of each balance, so
        // that no redemption takes it meanwhile (the redeem check subtracts it).
        await db.schema.alterTable('campaigns').addColumn('cash_payouts', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('payouts_run_on', 'bigint').execute();
        await db.schema.alterTable('participants').addColumn('referral_reward_reserved', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('participants').addColumn('referee_reward_reserved', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        // Where a participant is paid: their method, PayPal address and Stripe Connect account.
        await db.schema
          .createTable('payout_methods')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('method', 'text', (c) => c.notNull())
          .addColumn('paypal_email', 'text')
          .addColumn('stripe_account', 'text')
          .addColumn('stripe_payouts_enabled', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addCheckConstraint('payout_methods_method', sql`method in ('paypal', 'stripe_connect')`)
          .execute();
        await db.schema.createIndex('payout_methods_stripe_account').on('payout_methods').column('stripe_account').execute();
        // The payouts: an outbox, each row written in the transaction that reserves its amount; the sender
        // claims due rows with a lease (claimed_until), PayPal's in whole batches (batch_key).
        await id(db.schema.createTable('cash_payouts'))
          .addColumn('campaign_id', 'text', (c: any) => c.notNull().references('campaigns.id'))
          .addColumn('participant_id', 'bigint', (c: any) => c.notNull().references('participants.id'))
          .addColumn('run_id', 'text', (c: any) => c.notNull())
          .addColumn('referral_amount', 'bigint', (c: any) => c.notNull())
          .addColumn('referee_amount', 'bigint', (c: any) => c.notNull())
          .addColumn('currency', 'text', (c: any) => c.notNull())
          .addColumn('method', 'text', (c: any) => c.notNull())
          .addColumn('destination', 'text', (c: any) => c.notNull())
          .addColumn('status', 'text', (c: any) => c.notNull())
          .addColumn('reason', 'text')
          // Random: the provider's idempotency key (PayPal's sender_item_id, Stripe's Idempotency-Key).
          .addColumn('idempotency_key', 'text', (c: any) => c.notNull().unique())
          // PayPal's sender_batch_id, shared by the payouts sent in one batch; set when it is approved.
          .addColumn('batch_key', 'text')
          .addColumn('provider_batch_id', 'text')
          .addColumn('provider_id', 'text')
          .addColumn('attempts', 'integer', (c: any) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_on', 'bigint')
          .addColumn('claimed_until', 'bigint')
          .addColumn('created_on', 'bigint', (c: any) => c.notNull())
          .addColumn('updated_on', 'bigint', (c: any) => c.notNull())
          .addColumn('sent_on', 'bigint')
          .addColumn('settled_on', 'bigint')
          .addCheckConstraint(
            'cash_payouts_status',
            sql`status in ('pending_approval', 'sending', 'sent', 'paid', 'failed', 'returned', 'unclaimed', 'cancelled')`,
          )
          .addCheckConstraint('cash_payouts_method', sql`method in ('paypal', 'stripe_connect')`)
          .addCheckConstraint('cash_payouts_amount', sql`referral_amount >= 0 and referee_amount >= 0 and referral_amount + referee_amount > 0`)
          .execute();
        await db.schema.createIndex('cash_payouts_due').on('cash_payouts').columns(['next_attempt_on']).where(sql<boolean>`status in ('sending', 'sent')`).execute();
        await db.schema.createIndex('cash_payouts_list').on('cash_payouts').columns(['campaign_id', 'created_on', 'id']).execute();
        await db.schema.createIndex('cash_payouts_participant').on('cash_payouts').columns(['participant_id', 'created_on']).execute();
        await db.schema.createIndex('cash_payouts_provider').on('cash_payouts').column('provider_id').execute();
        // Tax details a participant gave (W-9 or W-8BEN): the TIN encrypted, its last four for display.
        await db.schema
          .createTable('tax_details')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('form', 'text', (c) => c.notNull())
          .addColumn('legal_name', 'text', (c) => c.notNull())
          .addColumn('tin_sealed', 'text', (c) => c.notNull())
          .addColumn('tin_last4', 'text', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('country', 'text', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          // Set by an erasure that had to keep them (../payouts/domain/payout-privacy.ts): the retention pruner deletes them then.
          .addColumn('keep_until', 'bigint')
          .addCheckConstraint('tax_details_form', sql`form in ('w9', 'w8ben')`)
          .execute();
        // The account's payout providers (PayPal, Stripe Connect), live and test/sandbox, write-only secrets.
        await db.schema
          .createTable('payout_credentials')
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('live', 'integer', (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('secret', 'text')
          .addColumn('webhook', 'text')
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('payout_credentials_pk', ['account_id', 'provider', 'live'])
          .addCheckConstraint('payout_credentials_provider', sql`provider in ('paypal', 'stripe')`)
          .execute();
        await db.schema
          .createTable('tax_settings')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('thresholds', 'text', (c) => c.notNull())
          .addColumn('retention_years', 'integer', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .execute();
        // The referrer's portal: sign-in links (single use, hashed) and sessions (hashed, with a CSRF token).
        await db.schema
          .createTable('portal_links')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('expires_on', 'bigint', (c) => c.notNull())
          .addColumn('used_on', 'bigint')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('portal_links_participant').on('portal_links').columns(['participant_id', 'created_on']).execute();
        await db.schema
          .createTable('portal_sessions')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull())
          .addColumn('csrf_token', 'text', (c) => c.notNull())
          .addColumn('expires_on', 'bigint', (c) => c.notNull())
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('portal_sessions_participant').on('portal_sessions').column('participant_id').execute();
      },
    },
    '0034_promotion_codes': {
      async up(db: Kysely<any>) {
        const id = (t: any) => t.addColumn('id', idType(dialect), (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
        // The friend's reward at checkout (../promotions/domain/referee-discount.ts): the discount (JSON;
        // null: none), the text put before each code in Stripe, the discount's generation (each change is
        // a new coupon), the Stripe coupon of the current generation once made, and how far the outbox has
        // looked through the campaign's participants (created_on) for codes to make.
        await db.schema.alterTable('campaigns').addColumn('referee_discount', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('promotion_code_prefix', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('discount_generation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('campaigns').addColumn('discount_coupon', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('promotion_codes_through', 'bigint').execute();
        // Each participant's Stripe promotion codes: an outbox (../promotions/domain/promotion-code-sync.ts),
        // one row per code text and discount generation, claimed with a lease; made once (the unique key, and
        // Stripe's idempotency key), deactivated when the discount changes.
        await id(db.schema.createTable('promotion_codes'))
          .addColumn('campaign_id', 'text', (c: any) => c.notNull().references('campaigns.id'))
          .addColumn('participant_id', 'bigint', (c: any) => c.notNull().references('participants.id'))
          .addColumn('code', 'text', (c: any) => c.notNull())
          .addColumn('stripe_code', 'text', (c: any) => c.notNull())
          .addColumn('generation', 'integer', (c: any) => c.notNull())
          .addColumn('stripe_id', 'text')
          .addColumn('status', 'text', (c: any) => c.notNull())
          .addColumn('reason', 'text')
          .addColumn('idempotency_key', 'text', (c: any) => c.notNull())
          .addColumn('attempts', 'integer', (c: any) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_on', 'bigint')
          .addColumn('claimed_until', 'bigint')
          .addColumn('created_on', 'bigint', (c: any) => c.notNull())
          .addColumn('updated_on', 'bigint', (c: any) => c.notNull())
          .addUniqueConstraint('promotion_codes_once', ['participant_id', 'generation', 'code'])
          .addCheckConstraint('promotion_codes_status', sql`status in ('queued', 'active', 'failed', 'deactivating', 'inactive')`)
          .execute();
        await db.schema.createIndex('promotion_codes_due').on('promotion_codes').columns(['next_attempt_on']).where(sql<boolean>`status in ('queued', 'deactivating')`).execute();
        await db.schema.createIndex('promotion_codes_stripe').on('promotion_codes').columns(['campaign_id', 'stripe_id']).execute();
        await db.schema.createIndex('promotion_codes_list').on('promotion_codes').columns(['campaign_id', 'status', 'id']).execute();
        // The Stripe promotion code a payment event used (checkout's or the invoice's discount): attribution by code.
        await db.schema.alterTable('stripe_events').addColumn('promotion_code', 'text').execute();
        // A participant's earlier codes, still theirs (a vanity code replaced them: links and codes already shared keep working).
        await db.schema
          .createTable('referral_code_aliases')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('referral_code_aliases_pk', ['campaign_id', 'code'])
          .execute();
        await db.schema.createIndex('referral_code_aliases_participant').on('referral_code_aliases').column('participant_id').execute();
        // The channel a participant came by: the utm_* of the page they signed up on (a row only when there were some).
        await db.schema
          .createTable('participant_channels')
          .addColumn('participant_id', 'bigint', (c) => c.primaryKey().references('participants.id'))
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('source', 'text')
          .addColumn('medium', 'text')
          .addColumn('campaign', 'text')
          .addColumn('term', 'text')
          .addColumn('content', 'text')
          .execute();
        await db.schema.createIndex('participant_channels_campaign').on('participant_channels').columns(['campaign_id', 'medium']).execute();
      },
    },
    '0035_payment_sources': {
      async up(db: Kysely<any>) {
        // Sales from beyond Stripe (../billing/domain/payment-sources.ts): each provider's write-only webhook
        // secret (JSON by provider), and the events received, kept once per provider event as Stripe's are.
        await db.schema.alterTable('campaigns').addColumn('payment_secrets', 'text').execute();
        await db.schema
          .createTable('payment_events')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('action', 'text')
          .addColumn('amount_cents', 'bigint')
          .addColumn('currency', 'text')
          .addColumn('converted_cents', 'bigint')
          .addColumn('rate', 'text')
          .addColumn('email', 'text')
          .addColumn('code', 'text')
          .addColumn('referrer_code', 'text')
          .addColumn('customer', 'text')
          .addColumn('reference', 'text')
          .addColumn('link_keys', 'text', (c) => c.notNull())
          .addColumn('refund_total_key', 'text')
          .addColumn('dispute', 'text')
          .addColumn('participant_id', 'bigint')
          .addColumn('reason', 'text')
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addColumn('applied_on', 'bigint')
          .addPrimaryKeyConstraint('payment_events_pk', ['campaign_id', 'provider', 'id'])
          .addCheckConstraint('payment_events_status', sql`status in ('applied', 'unmatched', 'ignored', 'held')`)
          .execute();
        await db.schema.createIndex('payment_events_list').on('payment_events').columns(['campaign_id', 'status', 'created_on']).execute();
        // A Stripe event held for its currency is applied once a rate converts it: what it was converted to, and how.
        await db.schema.alterTable('stripe_events').addColumn('converted_cents', 'bigint').execute();
        await db.schema.alterTable('stripe_events').addColumn('rate', 'text').execute();
        // A payment converted from another currency: what it was, and at what rate (its commission's label says so).
        await db.schema.alterTable('payments').addColumn('converted_from', 'text').execute();
        // The owner's exchange rates (../billing/domain/exchange-rates.ts): units of `base` per one unit of each currency.
        await db.schema
          .createTable('exchange_rates')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id'))
          .addColumn('base', 'text', (c) => c.notNull())
          .addColumn('rates', 'text', (c) => c.notNull())
          .addColumn('as_of', 'bigint', (c) => c.notNull())
          .addColumn('updated_on', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0036_fraud_controls': {
      async up(db: Kysely<any>) {
        // Fraud controls an owner sets (../referrals/domain/fraud-*.ts): blocklists (JSON {emails, domains,
        // ips, countries}) per campaign and per account, a CAPTCHA on keyless sign-ups (JSON {provider,
        // siteKey}, and its write-only secret), and the auto-approval limits (JSON {maxRewardsPerDay,
        // maxRewardsPerReferrer}).
        await db.schema.alterTable('campaigns').addColumn('blocklist', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('captcha', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('captcha_secret', 'text').execute();
        await db.schema.alterTable('campaigns').addColumn('auto_approve', 'text').execute();
        await db.schema.alterTable('account_settings').addColumn('blocklist', 'text').execute();
        // Why a participant is held, beyond fraud scoring: each rule that matched, once per participant and
        // kind, grouped per referrer into a case the owner approves or rejects as a whole.
        const id = (t: any) => t.addColumn('id', idType(dialect), (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
        await id(db.schema.createTable('fraud_cases'))
          .addColumn('campaign_id', 'text', (c: any) => c.notNull().references('campaigns.id'))
          // The referrer the case is about (the participant themself when they were referred by nobody).
          .addColumn('participant_id', 'bigint', (c: any) => c.notNull().references('participants.id'))
          .addColumn('status', 'text', (c: any) => c.notNull())
          .addColumn('opened_on', 'bigint', (c: any) => c.notNull())
          .addColumn('resolved_on', 'bigint')
          .addColumn('resolved_by', 'text')
          .addCheckConstraint('fraud_cases_status', sql`status in ('open', 'approved', 'rejected')`)
          .execute();
        // One open case per referrer: a new signal joins it.
        await db.schema.createIndex('fraud_cases_open').on('fraud_cases').columns(['campaign_id', 'participant_id']).unique().where(sql<boolean>`status = 'open'`).execute();
        await db.schema.createIndex('fraud_cases_list').on('fraud_cases').columns(['campaign_id', 'status', 'id']).execute();
        await id(db.schema.createTable('fraud_signals'))
          .addColumn('campaign_id', 'text', (c: any) => c.notNull().references('campaigns.id'))
          .addColumn('case_id', 'bigint', (c: any) => c.notNull().references('fraud_cases.id'))
          .addColumn('participant_id', 'bigint', (c: any) => c.notNull().references('participants.id'))
          .addColumn('kind', 'text', (c: any) => c.notNull())
          .addColumn('detail', 'text', (c: any) => c.notNull())
          .addColumn('created_on', 'bigint', (c: any) => c.notNull())
          .execute();
        await db.schema.createIndex('fraud_signals_once').on('fraud_signals').columns(['participant_id', 'kind']).unique().execute();
        await db.schema.createIndex('fraud_signals_case').on('fraud_signals').columns(['case_id']).execute();
        // What each participant paid with (a card's fingerprint, the provider's customer), from payment
        // events: a referee paying with their referrer's card or customer is a self-referral.
        await db.schema
          .createTable('payment_marks')
          .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('participant_id', 'bigint', (c) => c.notNull().references('participants.id'))
          .addColumn('created_on', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_marks_pk', ['campaign_id', 'kind', 'value', 'participant_id'])
          .addCheckConstraint('payment_marks_kind', sql`kind in ('card', 'customer')`)
          .execute();
        await db.schema.createIndex('payment_marks_participant').on('payment_marks').column('participant_id').execute();
        await db.schema.createIndex('payout_methods_paypal_email').on('payout_methods').column('paypal_email').execute();
      },
    },
    '0037_promotion_progress_uncached': {
      async up(db: Kysely<any>) {
        // The promotion code sync writes how far it has looked through a campaign's participants after
        // each batch of codes it queues: an update of campaigns, which emptied every process's caches
        // every few seconds while a discount campaign took sign-ups (each sign-up then read its facts
        // instead of assuming them; on PostgreSQL sign-ups fell to none, bench --signup-options). That
        // column alone changing no longer empties them (./caches.ts CAMPAIGNS_UPDATE_WHEN).
        await dropCacheTriggerSql(dialect, 'campaigns', 'update').execute(db);
        await cacheTriggerSql(dialect, 'campaigns', 'update', CAMPAIGNS_UPDATE_WHEN[dialect]).execute(db);
      },
    },
  };
}

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations() {
    const all = migrations(this.dialect);
    if (this.dialect !== 'postgres') return all;
    // Under a live load (a rolling upgrade), a migration must not wait for one table while holding another:
    // a DDL statement holding table A and waiting for B meets a request's transaction holding B and waiting
    // for A (0028's foreign keys and new columns did, on every try, in the upgrade test). So each migration
    // first takes every table of the schema at once (takeEveryTable): its run then never waits holding a
    // table, and requests wait for it only while it runs (milliseconds for the DDL this project allows:
    // docs/architecture.md, "Writing a migration").
    return Object.fromEntries(
      Object.entries(all).map(([name, m]) => [
        name,
        {
          ...m,
          async up(db: Kysely<any>) {
            await takeEveryTable(db);
            await sql`set local lock_timeout = '${sql.raw(String(MIGRATION_LOCK_TIMEOUT_MS))}ms'`.execute(db);
            await m.up(db);
          },
        },
      ]),
    );
  }
}

/** How long one try to take every table waits before it lets go of what it has and tries again. */
const TAKE_TABLES_WAIT_MS = 50;
/** How long a migration keeps trying to take every table before it gives up (lock_not_available). */
const TAKE_TABLES_GIVE_UP_MS = 120_000;

/**
 * Takes every table of the connection's schema (Kysely's own aside: its migrator holds them) in ACCESS
 * EXCLUSIVE mode, in one LOCK statement that waits at most TAKE_TABLES_WAIT_MS: when a request's
 * transaction is in the way, the try is rolled back to its savepoint (letting go of the tables it had, so
 * nothing stays queued behind it) and made again after a pause. Taking them again in a later migration of
 * the same run is immediate: the transaction holds them already.
 */
async function takeEveryTable(db: Kysely<any>): Promise<void> {
  const tables = (
    await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() and tablename not like 'kysely_migration%'`.execute(db)
  ).rows;
  if (tables.length === 0) return;
  const list = sql.join(tables.map((t) => sql.id(t.name)));
  const giveUpAt = Date.now() + TAKE_TABLES_GIVE_UP_MS;
  for (;;) {
    await sql`savepoint take_every_table`.execute(db);
    try {
      await sql`set local lock_timeout = '${sql.raw(String(TAKE_TABLES_WAIT_MS))}ms'`.execute(db);
      await sql`lock table ${list} in access exclusive mode`.execute(db);
      await sql`release savepoint take_every_table`.execute(db);
      return;
    } catch (err) {
      if (!isLockConflict({ error: err }) || Date.now() > giveUpAt) throw err;
      await sql`rollback to savepoint take_every_table`.execute(db);
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/**
 * Where a database's schema stands against this release's migrations: `pending`, the ones of this
 * release it has not run (in order); `unknown`, the ones it has run that this release does not have (a
 * newer release migrated it: this code is older than the schema, as after a rolled-back deploy).
 */
export interface SchemaStatus {
  pending: string[];
  unknown: string[];
}

/** This release's migration names, in the order they run. */
export const migrationNames = (dialect: Dialect): string[] => Object.keys(migrations(dialect)).sort();

/** Kysely's bookkeeping table, in the connection's own schema on PostgreSQL (see migrate()). */
async function migrationTable(db: Kysely<any>, dialect: Dialect): Promise<{ schema: string | undefined; table: RawBuilder<unknown> }> {
  // Kysely looks for its bookkeeping tables in every schema unless told which: on a PostgreSQL database
  // where another schema has them, it would skip creating its own. Pin them to the connection's schema.
  const schema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  return { schema, table: schema ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration') };
}

/**
 * Reads the schema's standing from Kysely's own table, changing nothing. Starting a process on a migrated
 * database then reads that table only, where Kysely's migrator would first list the tables of every
 * schema of the database (which fails when another schema is dropped at that moment) and take its lock.
 */
export async function schemaStatus(db: Kysely<any>, dialect: Dialect): Promise<SchemaStatus> {
  return (await readStatus(db, dialect)).status;
}

async function readStatus(db: Kysely<any>, dialect: Dialect): Promise<{ schema: string | undefined; status: SchemaStatus }> {
  const { schema, table } = await migrationTable(db, dialect);
  const known = migrationNames(dialect);
  let ran: string[];
  try {
    ran = (await sql<{ name: string }>`select name from ${table}`.execute(db)).rows.map((r) => r.name);
  } catch {
    // No such table yet: a new database, every migration to run.
    ran = [];
  }
  const done = new Set(ran);
  const mine = new Set(known);
  return { schema, status: { pending: known.filter((n) => !done.has(n)), unknown: ran.filter((n) => !mine.has(n)).sort() } };
}

/** Times a SQLite migration waits out busy_timeout (5 s) for another process's migration: a minute in all. */
const SQLITE_LOCK_ATTEMPTS = 12;
const isBusy = (err: unknown) => (err as { code?: string } | undefined)?.code === 'SQLITE_BUSY';
/** How long a PostgreSQL migration waits for one lock before its run is rolled back and tried again. */
const MIGRATION_LOCK_TIMEOUT_MS = 500;
const POSTGRES_LOCK_ATTEMPTS = 120;
/** The run failed on lock_not_available (lock_timeout ran out) or deadlock_detected. */
const isLockConflict = (outcome: { error?: unknown }) => ['55P03', '40P01'].includes((outcome.error as { code?: string } | undefined)?.code ?? '');

/**
 * Brings the schema up to date, and says where it stands. Safe to run from several processes at once: on
 * PostgreSQL Kysely takes an advisory lock (a transaction's behind PgBouncer: ./transaction-pooling.ts); on SQLite the whole run is one BEGIN IMMEDIATE transaction
 * (group-commit.ts). `to` (for tests of a migration) runs the migrations up to that one only.
 *
 * A schema ahead of this code (migrations it does not know, none of its own missing) is served as it is:
 * migrations are expand/contract (docs/architecture.md, "Writing a migration"), so a release's code works
 * on the next release's schema, and a rolled-back deploy keeps serving. Kysely's migrator would refuse
 * it ("previously executed migration ... is missing"), so it is not run then. A schema that is both
 * (it lacks some of this release's migrations and has others this release does not know) is refused:
 * no release's rule covers it.
 */
export async function migrate(db: Kysely<any>, dialect: Dialect, to?: string): Promise<SchemaStatus> {
  const { schema, status } = await readStatus(db, dialect);
  if (to === undefined && status.pending.length === 0) return status;
  if (status.unknown.length > 0) {
    throw new Error(
      `the database has migrations this release does not know (${status.unknown.join(', ')}) and lacks ones it needs (${status.pending.join(', ')}): run the release that made it, or restore a backup`,
    );
  }
  const migrator = new Migrator({
    // Behind a transaction-pooling PgBouncer, a database whose migrations lock per transaction (./transaction-pooling.ts).
    db: migrationDatabase(db),
    provider: new CodeMigrationProvider(dialect),
    ...(schema && { migrationTableSchema: schema }),
  });
  const run = () => (to === undefined ? migrator.migrateToLatest() : migrator.migrateTo(to));
  let outcome = await run();
  // SQLite: another process migrating the same file holds the lock for longer than busy_timeout (a slow
  // disk, a busy machine). Its run is one transaction, so ours changed nothing: wait for it again.
  for (let attempt = 1; dialect === 'sqlite' && isBusy(outcome.error) && attempt < SQLITE_LOCK_ATTEMPTS; attempt++) {
    outcome = await run();
  }
  // PostgreSQL: a lock not had within MIGRATION_LOCK_TIMEOUT_MS (or a deadlock) rolled the run back: again,
  // after a pause that lets the transactions in its way finish.
  for (let attempt = 1; dialect === 'postgres' && isLockConflict(outcome) && attempt < POSTGRES_LOCK_ATTEMPTS; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    outcome = await run();
  }
  const { error, results } = outcome;
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Other processes on this database hear of the new schema as of a change to what they cache (./caches.ts).
  if (to === undefined && results?.some((r) => r.status === 'Success')) await sql`update cache_epoch set n = n + 1`.execute(db);
  return (await readStatus(db, dialect)).status;
}
