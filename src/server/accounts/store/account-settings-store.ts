/**
 * SQL of an account's settings (migration 0025_retention): one row per account that changed them, none
 * for an account on the defaults. Read by every browser sign-up (whether its IP is stored), so kept in the
 * process's caches (../../store/caches.ts); the table's triggers bump cache_epoch, so other processes follow.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Caches } from '../../store/caches.js';
import type { AccountSettingsTable, Database } from '../../store/tables.js';

export type AccountSettingsRow = Selectable<AccountSettingsTable>;
/** The periods, as the table's columns. */
export type RetentionColumns = Pick<AccountSettingsRow, 'ip_days' | 'webhook_days' | 'email_days'>;
/** What a change may set: the periods, and the account's blocklist (JSON, ../../fraud/domain/fraud-settings.ts). */
export type SettingsPatch = Partial<RetentionColumns> & { blocklist?: string | null };

export class AccountSettingsStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly caches: Caches,
    /** Tells the owning store that something cached changed (its caches are dropped once that commits). */
    private readonly changed: () => void,
  ) {}

  /** The account's stored settings (undefined: the defaults), from the process's cache when it has them. */
  async find(accountId: number): Promise<AccountSettingsRow | undefined> {
    const cached = await this.caches.accountSettings.get(accountId, async () => ({
      row: await this.db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst(),
    }));
    return cached?.row;
  }

  /** The stored settings, not from the cache: what a change is made from. */
  stored(accountId: number): Promise<AccountSettingsRow | undefined> {
    return this.db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  }

  /**
   * Sets the columns in `patch`, leaving the others as stored: one upsert, whose insert (no row yet)
   * takes the others from `defaults`.
   */
  async put(accountId: number, defaults: RetentionColumns, patch: SettingsPatch, now: number): Promise<void> {
    await this.db
      .insertInto('account_settings')
      .values({ account_id: accountId, ...defaults, ...patch, updated_on: now })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...patch, updated_on: now }))
      .execute();
    this.changed();
  }
}
