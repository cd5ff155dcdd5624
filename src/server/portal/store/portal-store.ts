/**
 * SQL of the referrer's portal: its emailed sign-in links (portal_links: single use, stored as the
 * SHA-256 of the token) and its sessions (portal_sessions: the cookie token's SHA-256, the CSRF token),
 * each for one participant of one campaign. Tables of migration 0033_cash_payouts.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import type { Database, PortalLinksTable, PortalSessionsTable } from '../../store/tables.js';

export type PortalLinkRow = Selectable<PortalLinksTable>;
export type PortalSessionRow = Selectable<PortalSessionsTable>;

export class PortalStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * In a transaction: holds the participant's links while the throttle decides, so that a burst of
   * requests for one participant sends what the same requests one after another would. PostgreSQL takes
   * a lock of the participant's own; SQLite's transaction is the one writer's.
   */
  async holdLinks(participantId: number): Promise<void> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`portal-link ${participantId}`}, 0))`.execute(this.db);
  }

  /** When the participant's links since `since` were made, newest first (at most `limit`). */
  async linksSince(participantId: number, since: number, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('portal_links')
      .select('created_on')
      .where('participant_id', '=', participantId)
      .where('created_on', '>=', since)
      .orderBy('created_on', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.created_on);
  }

  async insertLink(row: PortalLinkRow): Promise<void> {
    await this.db.insertInto('portal_links').values(row).execute();
  }

  /** A link that could not be sent is forgotten, so that it does not hold back the next request. */
  async deleteLink(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('portal_links').where('token_hash', '=', tokenHash).execute();
  }

  /**
   * Uses a link once: one conditional update (unused, unexpired, this campaign's), so two requests with
   * the same token cannot both win. The participant it signs in, or undefined.
   */
  async useLink(tokenHash: string, campaignId: string, now: number): Promise<number | undefined> {
    const row = await this.db
      .updateTable('portal_links')
      .set({ used_on: now })
      .where('token_hash', '=', tokenHash)
      .where('campaign_id', '=', campaignId)
      .where('used_on', 'is', null)
      .where('expires_on', '>', now)
      .returning('participant_id')
      .executeTakeFirst();
    return row?.participant_id;
  }

  async insertSession(row: PortalSessionRow): Promise<void> {
    await this.db.insertInto('portal_sessions').values(row).execute();
  }

  findLiveSession(tokenHash: string, now: number): Promise<PortalSessionRow | undefined> {
    return this.db.selectFrom('portal_sessions').selectAll().where('token_hash', '=', tokenHash).where('expires_on', '>', now).executeTakeFirst();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('portal_sessions').where('token_hash', '=', tokenHash).execute();
  }

  /**
   * Drops the participant's links made before `linksBefore` (expired, and past the hourly throttle's
   * count) and their sessions expired by `now`, so that each participant's rows stay a handful without a
   * sweep of their own.
   */
  async deleteSpent(participantId: number, linksBefore: number, now: number): Promise<void> {
    await this.db.deleteFrom('portal_links').where('participant_id', '=', participantId).where('created_on', '<', linksBefore).execute();
    await this.db.deleteFrom('portal_sessions').where('participant_id', '=', participantId).where('expires_on', '<=', now).execute();
  }

  /** Every link and session of a participant (erasure: nothing of theirs stays signed in or can sign in). */
  async forget(participantId: number): Promise<void> {
    await this.db.deleteFrom('portal_links').where('participant_id', '=', participantId).execute();
    await this.db.deleteFrom('portal_sessions').where('participant_id', '=', participantId).execute();
  }
}
