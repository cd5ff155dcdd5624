/** SQL of dashboard owners: users, their sessions, and the failed sign-ins the throttle counts. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable, UsersTable } from './tables.js';

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;

export class OwnerStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts unless the email is taken; the new id, or undefined if taken. */
  async insertUser(row: Insertable<UsersTable>): Promise<number | undefined> {
    const r = await this.db.insertInto('users').values(row).onConflict((oc) => oc.doNothing()).returning('id').executeTakeFirst();
    return r?.id;
  }

  findUserByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  /** The owners of an account, oldest first. */
  listUsers(accountId: number): Promise<Pick<UserRow, 'id' | 'email' | 'created_on'>[]> {
    return this.db.selectFrom('users').select(['id', 'email', 'created_on']).where('account_id', '=', accountId).orderBy('id').execute();
  }

  /** Deletes an owner of the account and their sessions (run it in a transaction); false when there is none. */
  async deleteUser(accountId: number, email: string): Promise<boolean> {
    const user = this.db.selectFrom('users').select('id').where('account_id', '=', accountId).where('email', '=', email);
    await this.db.deleteFrom('sessions').where('user_id', 'in', user).execute();
    const r = await this.db.deleteFrom('users').where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  findUserById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async countUsers(): Promise<number> {
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async insertSession(row: Insertable<SessionsTable>): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  /** A session that is neither revoked nor expired at `now`, with its user. */
  findLiveSession(id: string, now: number): Promise<(SessionRow & { email: string; account_id: number }) | undefined> {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('sessions')
      .select(['users.email', 'users.account_id'])
      .where('sessions.id', '=', id)
      .where('sessions.revoked_on', 'is', null)
      .where('sessions.expires_on', '>', now)
      .executeTakeFirst();
  }

  async revokeSession(id: string, now: number): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked_on: now }).where('id', '=', id).where('revoked_on', 'is', null).execute();
  }

  /** Revokes every live session of a user, but `keep` (a session id) if given; how many were revoked. */
  async revokeUserSessions(userId: number, now: number, keep?: string): Promise<number> {
    let q = this.db.updateTable('sessions').set({ revoked_on: now }).where('user_id', '=', userId).where('revoked_on', 'is', null).where('expires_on', '>', now);
    if (keep !== undefined) q = q.where('id', '!=', keep);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** The failures counted for `key` in a window that began after `since`; 0 when none or the window is over. */
  async failures(key: string, since: number): Promise<{ failures: number; windowStart: number } | undefined> {
    const r = await this.db.selectFrom('signin_failures').selectAll().where('key', '=', key).where('window_start', '>', since).executeTakeFirst();
    return r && { failures: r.failures, windowStart: r.window_start };
  }

  /** Counts one failure: a window that began before `since` starts over at `now`. One statement, so concurrent failures all count. */
  async addFailure(key: string, since: number, now: number): Promise<void> {
    await this.db
      .insertInto('signin_failures')
      .values({ key, failures: 1, window_start: now })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb.case().when('signin_failures.window_start', '>', since).then(eb('signin_failures.failures', '+', 1)).else(1).end(),
          window_start: eb.case().when('signin_failures.window_start', '>', since).then(eb.ref('signin_failures.window_start')).else(now).end(),
        })),
      )
      .execute();
  }

  async clearFailures(key: string): Promise<void> {
    await this.db.deleteFrom('signin_failures').where('key', '=', key).execute();
  }
}
