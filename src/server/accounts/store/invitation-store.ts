/** SQL of invitations to join an account (../domain/team.ts): created, listed, revoked, used once. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, InvitationsTable } from '../../store/tables.js';

export type InvitationRow = Selectable<InvitationsTable>;

export class InvitationStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<InvitationsTable>): Promise<void> {
    await this.db.insertInto('invitations').values(row).execute();
  }

  /** The invitations of an account still open at `now` (neither used, revoked nor expired), newest first. */
  listOpen(accountId: number, now: number): Promise<InvitationRow[]> {
    return this.db
      .selectFrom('invitations')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('accepted_on', 'is', null)
      .where('revoked_on', 'is', null)
      .where('expires_on', '>', now)
      .orderBy('created_on', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  findByTokenHash(hash: string): Promise<InvitationRow | undefined> {
    return this.db.selectFrom('invitations').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  findById(accountId: number, id: string): Promise<InvitationRow | undefined> {
    return this.db.selectFrom('invitations').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  /** Ends every open invitation of this email to the account (a new one replaces them); how many. */
  revokeOpenFor(accountId: number, email: string, now: number): Promise<number> {
    return this.#revokeOpenWhere(accountId, 'email', email, now);
  }

  /** Revokes the open invitations `invitedBy` sent (a member removed or no longer an owner); how many. */
  revokeSentBy(accountId: number, invitedBy: string, now: number): Promise<number> {
    return this.#revokeOpenWhere(accountId, 'invited_by', invitedBy, now);
  }

  async #revokeOpenWhere(accountId: number, column: 'email' | 'invited_by', value: string, now: number): Promise<number> {
    const r = await this.db
      .updateTable('invitations')
      .set({ revoked_on: now })
      .where('account_id', '=', accountId)
      .where(column, '=', value)
      .where('accepted_on', 'is', null)
      .where('revoked_on', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Revokes an open invitation; false when it is not open (used, revoked, expired or another account's). */
  async revoke(accountId: number, id: string, now: number): Promise<boolean> {
    return this.#closeOpen(id, now, { revoked_on: now }, accountId);
  }

  /** Uses an invitation up, once: one conditional statement, so of two parallel acceptances one wins. */
  async accept(id: string, now: number): Promise<boolean> {
    return this.#closeOpen(id, now, { accepted_on: now });
  }

  /** Sets `set` on the invitation if it is still open at `now` (of `accountId`, when given); whether it was. */
  async #closeOpen(id: string, now: number, set: { revoked_on: number } | { accepted_on: number }, accountId?: number): Promise<boolean> {
    let q = this.db.updateTable('invitations').set(set).where('id', '=', id).where('accepted_on', 'is', null).where('revoked_on', 'is', null).where('expires_on', '>', now);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('invitations').where('id', '=', id).execute();
  }
}
