/**
 * SQL of Idempotency-Key claims (../http/idempotency.ts says what they mean). Each change is one
 * conditional statement: a claim is an insert that does nothing on a taken key, a takeover an update
 * that only matches the row as it was read, so parallel duplicates cannot both win.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from './tables.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/**
 * What a test mode call's key is stored behind (../http/idempotency.ts): a control character no valid
 * key holds ends it, so no live key can be mistaken for a test one.
 */
export const TEST_MODE_KEYS = 'test\u001f';

/** What an answer leaves to be replayed. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class IdempotencyStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Claims a key no one holds; false when it is taken (then read it with find). */
  async claim(accountId: number, key: string, fingerprint: string, now: number): Promise<boolean> {
    const r = await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key, fingerprint, created_on: now, status: null, headers: null, body: null })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    return r !== undefined;
  }

  find(accountId: number, key: string): Promise<IdempotencyRow | undefined> {
    return this.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();
  }

  /**
   * Claims a key whose row is expired or abandoned, as it was read (`seen`, its created_on): false when
   * another request changed it first.
   */
  async takeOver(accountId: number, key: string, seen: number, fingerprint: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('idempotency_keys')
      .set({ fingerprint, created_on: now, status: null, headers: null, body: null })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_on', '=', seen)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Stores the answer of the request that holds the claim made at `claimedOn`. */
  async answer(accountId: number, key: string, claimedOn: number, answer: StoredAnswer): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_on', '=', claimedOn)
      .execute();
  }

  /**
   * A claim with its answer at once, unless the key is taken: a refused call's answer, stored after
   * its transaction rolled back (../http/idempotency.ts storeRefusal).
   */
  async insertAnswered(accountId: number, key: string, fingerprint: string, now: number, answer: StoredAnswer): Promise<void> {
    await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key, fingerprint, created_on: now, status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .execute();
  }

  /** Gives up the claim made at `claimedOn` (the request failed on our side): a retry runs again. */
  async release(accountId: number, key: string, claimedOn: number): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_on', '=', claimedOn)
      .where('status', 'is', null)
      .execute();
  }

  /** Deletes keys claimed at or before `expired`; how many. */
  async purge(expired: number): Promise<number> {
    const r = await this.db.deleteFrom('idempotency_keys').where('created_on', '<=', expired).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
