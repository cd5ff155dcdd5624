/**
 * Old rows for the retention pruner, made by the database itself (a recursive CTE on SQLite,
 * generate_series on PostgreSQL), so that a million take seconds: participants with sign-up IPs,
 * delivered webhook events with a delivery and an attempt each, and sent emails of the log.
 */
import { sql, type Kysely } from 'kysely';
import { newSortableId } from '../../../src/server/kernel/ids.js';
import type { Dialect } from '../../../src/server/store/connect.js';
import type { Database } from '../../../src/server/store/tables.js';

export interface OldRows {
  participants: number;
  /** Webhook events, each with one delivered delivery and one attempt (three rows). */
  webhookEvents: number;
  emails: number;
}

/** The rows `rows` makes: participants + 3 x events + emails. */
export const rowCount = (rows: OldRows) => rows.participants + 3 * rows.webhookEvents + rows.emails;

/** Numbers 1..n as a table `n(i)`, for `insert ... select ... from n`. */
function numbers(dialect: Dialect, n: number) {
  return dialect === 'postgres'
    ? sql`n(i) as (select generate_series(1, ${sql.lit(n)})::bigint)`
    : sql`n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)})`;
}
const pad = (dialect: Dialect, expr: string) => (dialect === 'postgres' ? sql.raw(`lpad(${expr}::text, 16, '0')`) : sql.raw(`printf('%016d', ${expr})`));

/**
 * Inserts `rows` made at `at` into the campaign (of the default account), for `endpointId`; prefix
 * keeps the emails, codes and ids of two calls apart.
 */
export async function seedOldRows(db: Kysely<Database>, dialect: Dialect, campaignId: string, endpointId: string, at: number, rows: OldRows, prefix: string): Promise<void> {
  const recursive = dialect === 'postgres' ? sql`` : sql`recursive `;
  const p = sql.lit(prefix);
  const t = sql.lit(at);
  if (rows.participants > 0) {
    await sql`with ${recursive}${numbers(dialect, rows.participants)}
      insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source, signup_ip, signup_net)
      select cast(${campaignId} as text), ${p} || i || '@old.example', ${p} || i || '@old.example', ${p} || i, ${t}, ${t}, 'browser', '203.0.113.7', '203.0.113.7'
      from n`.execute(db);
  }
  if (rows.webhookEvents > 0) {
    // Ids that sort by the time they were made, as the service's (src/server/kernel/ids.ts): this time's prefix, then a number.
    const event = sql.lit(`${newSortableId('msg', 0, at)}${prefix}`);
    const delivery = sql.lit(`${newSortableId('dlv', 0, at)}${prefix}`);
    await sql`with ${recursive}${numbers(dialect, rows.webhookEvents)}
      insert into webhook_events (id, account_id, campaign_id, event_type, payload, created_on)
      select ${event} || ${pad(dialect, 'i')}, 1, cast(${campaignId} as text), 'referrer_added', '{}', ${t} from n`.execute(db);
    await sql`with ${recursive}${numbers(dialect, rows.webhookEvents)}
      insert into webhook_deliveries (id, event_id, endpoint_id, status, attempt_count, next_attempt_on, created_on, updated_on)
      select ${delivery} || ${pad(dialect, 'i')}, ${event} || ${pad(dialect, 'i')}, cast(${endpointId} as text), 'delivered', 1, null, ${t}, ${t} from n`.execute(db);
    await sql`with ${recursive}${numbers(dialect, rows.webhookEvents)}
      insert into webhook_attempts (delivery_id, attempted_on, status_code, error, duration_ms)
      select ${delivery} || ${pad(dialect, 'i')}, ${t}, 200, null, 12 from n`.execute(db);
  }
  if (rows.emails > 0) {
    // Each to one participant (any of the campaign's: the first), one change key each.
    const owner = sql`(select min(id) from participants where campaign_id = ${campaignId})`;
    await sql`with ${recursive}${numbers(dialect, rows.emails)}
      insert into email_outbox (id, campaign_id, participant_id, kind, change_key, data, domain, status, attempt_count, created_on, updated_on, sent_on)
      select 'eml_' || ${p} || ${pad(dialect, 'i')}, cast(${campaignId} as text), ${owner}, 'welcome', ${p} || i, '{}', 'old.example', 'sent', 1, ${t}, ${t}, ${t} from n`.execute(db);
  }
}
