/**
 * Writes of emailed links that are decided together with what was sent before: the resend throttle's
 * check and the new link are one step, so a parallel burst of requests for one address sends what the
 * same requests one after another would; and the undoing of a send that failed.
 */
import { sql, type Insertable } from 'kysely';
import type { EmailLinkRow, Store } from '../../store/store.js';
import type { EmailLinksTable } from '../../store/tables.js';

type Recent = Pick<EmailLinkRow, 'created_on' | 'referred_by_id'>[];

/**
 * Inserts `row` if `allow` says so of the links sent to its address since `since` (at most `limit` of
 * them, newest first); whether it did. One transaction: on PostgreSQL it first takes a lock of the
 * address's own, on SQLite the transaction is the one writer's.
 */
export function insertLinkIf(store: Store, row: Insertable<EmailLinksTable>, since: number, limit: number, allow: (recent: Recent) => boolean): Promise<boolean> {
  return store.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`email-link ${row.campaign_id} ${row.email}`}, 0))`.execute(tx.db);
    if (!allow(await tx.emailLinksSince(row.campaign_id, row.email, since, limit))) return false;
    await tx.insertEmailLink(row);
    return true;
  });
}

/** A link that could not be sent is forgotten, so it does not count toward the resend throttle. */
export async function deleteEmailLink(store: Store, hash: string): Promise<void> {
  await store.db.deleteFrom('email_links').where('hash', '=', hash).execute();
}

/** Drops a pending sign-up that no live confirmation link can complete (its link could not be sent). */
export async function dropUnlinkedPendingSignup(store: Store, campaignId: string, email: string, now: number): Promise<void> {
  await store.db
    .deleteFrom('pending_signups')
    .where('campaign_id', '=', campaignId)
    .where('email', '=', email)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('email_links')
            .select('hash')
            .where('campaign_id', '=', campaignId)
            .where('email', '=', email)
            .where('purpose', '=', 'confirm')
            .where('used_on', 'is', null)
            .where('expires_on', '>', now),
        ),
      ),
    )
    .execute();
}
