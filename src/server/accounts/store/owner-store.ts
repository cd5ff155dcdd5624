/** SQL of dashboard owners: users, their sessions, and the failed sign-ins the throttle counts. */
import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import type { Database, SessionsTable, UsersTable } from '../../store/tables.js';

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;

export class OwnerStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Inserts unless the email is taken; the new id, or undefined if taken. */
  async insertUser(row: Insertable<UsersTable>): Promise<number | undefined> {
    const r = await this.db.insertInto('users').values(row).onConflict((oc) => oc.doNothing()).returning('id').executeTakeFirst();
    return r?.id;
  }

  findUserByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  /** The users of an account, oldest first. */
  listUsers(accountId: number): Promise<Pick<UserRow, 'id' | 'email' | 'created_on' | 'role'>[]> {
    return this.db.selectFrom('users').select(['id', 'email', 'created_on', 'role']).where('account_id', '=', accountId).orderBy('id').execute();
  }

  /** The user of the account with this email, if any. */
  findMember(accountId: number, email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
  }

  /** Deletes a user of the account and their sessions (run it in a transaction); false when there is none. */
  async deleteUser(accountId: number, email: string): Promise<boolean> {
    const user = this.db.selectFrom('users').select('id').where('account_id', '=', accountId).where('email', '=', email);
    await this.db.deleteFrom('sessions').where('user_id', 'in', user).execute();
    const r = await this.db.deleteFrom('users').where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async setRole(userId: number, role: string): Promise<void> {
    await this.db.updateTable('users').set({ role }).where('id', '=', userId).execute();
  }

  /**
   * The emails of the account's owners, their rows locked until the transaction ends (PostgreSQL; SQLite's
   * write transaction is already exclusive): two owners demoting or removing each other at once queue, and
   * the second sees that the first left one owner.
   */
  async lockOwners(accountId: number): Promise<string[]> {
    let q = this.db.selectFrom('users').select('email').where('account_id', '=', accountId).where('role', '=', 'owner');
    if (this.dialect === 'postgres') q = q.forUpdate();
    return (await q.execute()).map((r) => r.email);
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
  findLiveSession(id: string, now: number): Promise<(SessionRow & { email: string; account_id: number; role: string }) | undefined> {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('sessions')
      .select(['users.email', 'users.account_id', 'users.role'])
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

  /**
   * Reserves one attempt of `key`, atomically, before the password is checked: counts it as a failure
   * (a right password releases it) unless the key is held back. Held back: `max` failures in the window
   * that began after `since`, or `next_on` still to come. The reserved attempt's failures are returned,
   * and undefined when held back, so a parallel burst gets no more attempts than a serial one.
   * `delay(n)` is the wait before the next attempt once n failures are counted, as SQL of `n`.
   */
  async reserveAttempt(key: string, since: number, now: number, max: number, delay: (failures: RawBuilder<number>) => RawBuilder<number>): Promise<number | undefined> {
    // Typed: PostgreSQL would take a bare parameter compared with an integer column for an integer.
    const at = sql<number>`cast(${now} as bigint)`;
    const expired = sql<boolean>`signin_failures.window_start <= cast(${since} as bigint)`;
    const failures = sql<number>`case when ${expired} then 1 else signin_failures.failures + 1 end`;
    const r = await this.db
      .insertInto('signin_failures')
      .values({ key, failures: 1, window_start: now, next_on: sql<number>`${at} + ${delay(sql<number>`1`)}` })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            failures,
            window_start: sql<number>`case when ${expired} then ${at} else signin_failures.window_start end`,
            next_on: sql<number>`${at} + ${delay(failures)}`,
          })
          .where(sql<boolean>`${expired} or (signin_failures.failures < ${max} and signin_failures.next_on <= ${at})`),
      )
      .returning('failures')
      .executeTakeFirst();
    return r?.failures;
  }

  /** When `key` may be tried again: the end of its window if it used up `max` failures, else its next_on. */
  async retryAt(key: string, windowMs: number, max: number): Promise<number | undefined> {
    const r = await this.db.selectFrom('signin_failures').selectAll().where('key', '=', key).executeTakeFirst();
    if (!r) return undefined;
    return r.failures >= max ? Math.max(Number(r.window_start) + windowMs, Number(r.next_on)) : Number(r.next_on);
  }

  /** Gives back an attempt reserved by reserveAttempt (its password was right). */
  async releaseAttempt(key: string): Promise<void> {
    await this.db.updateTable('signin_failures').set((eb) => ({ failures: eb('failures', '-', 1) })).where('key', '=', key).where('failures', '>', 0).execute();
  }

  async clearFailures(key: string): Promise<void> {
    await this.db.deleteFrom('signin_failures').where('key', '=', key).execute();
  }

  /** Deletes every count whose key starts with `prefix` and ends with `suffix` (compared as text: no LIKE wildcards). */
  async clearFailuresAround(prefix: string, suffix: string): Promise<void> {
    await this.db
      .deleteFrom('signin_failures')
      .where(sql<boolean>`substr(key, 1, ${prefix.length}) = ${prefix} and substr(key, length(key) - ${suffix.length - 1}) = ${suffix}`)
      .execute();
  }
}
