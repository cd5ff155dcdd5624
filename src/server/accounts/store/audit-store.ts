/**
 * SQL of the audit log. Append-only: this module inserts and reads, and changes an entry only to take an
 * erased person out of its target and snapshots (redact); no statement deletes one, and the triggers of
 * migration 0023 refuse a change to who did what, when. Kept forever.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { ListStart } from '../../store/list-start.js';
import type { AuditLogTable, Database } from '../../store/tables.js';

export type AuditRow = Selectable<AuditLogTable>;

/** What a list of entries may be narrowed to; all given filters apply together. */
export interface AuditFilter {
  accountId: number;
  /** The actor's label: a user's email, a key's prefix, or `cli`. */
  actor?: string;
  action?: string;
  campaignId?: string;
  /** Only the entries of the account's test campaigns (what a test key sees: ../../kernel/test-mode.ts testOnly). */
  testOnly?: boolean;
  /** Inclusive from, exclusive to (ms). */
  from?: number;
  to?: number;
}

export class AuditStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<AuditLogTable>): Promise<void> {
    await this.db.insertInto('audit_log').values(row).execute();
  }

  #testCampaigns(accountId: number) {
    return this.db.selectFrom('campaigns').select('id').where('account_id', '=', accountId).where('test', '=', 1);
  }

  #filtered(f: AuditFilter) {
    let q = this.db.selectFrom('audit_log').selectAll().where('account_id', '=', f.accountId);
    if (f.actor !== undefined) q = q.where('actor_label', '=', f.actor);
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    if (f.campaignId !== undefined) q = q.where('campaign_id', '=', f.campaignId);
    if (f.testOnly) q = q.where('campaign_id', 'in', this.#testCampaigns(f.accountId));
    if (f.from !== undefined) q = q.where('created_on', '>=', f.from);
    if (f.to !== undefined) q = q.where('created_on', '<', f.to);
    return q;
  }

  /** Entries newest first (createdOn, then id), from `start`. */
  list(f: AuditFilter, start: ListStart, limit: number): Promise<AuditRow[]> {
    let q = this.#filtered(f).orderBy('created_on', 'desc').orderBy('id', 'desc').limit(bound(limit));
    if ('after' in start) q = q.where((eb) => eb(eb.refTuple('created_on', 'id'), '<', eb.tuple(start.after.createdOn, start.after.id)));
    else if (start.offset > 0) q = q.offset(bound(start.offset));
    return q.execute();
  }

  /** The account's entries (`testOnly`: its test campaigns') whose target or snapshots mention `text` (lower case), whatever its case there. */
  mentioning({ accountId, testOnly }: { accountId: number; testOnly: boolean }, text: string): Promise<Pick<AuditRow, 'id' | 'target' | 'before' | 'after'>[]> {
    const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const mentions = (column: 'target' | 'before' | 'after') => sql<boolean>`lower(${sql.ref(column)}) like ${like} escape '\\'`;
    let q = this.db
      .selectFrom('audit_log')
      .select(['id', 'target', 'before', 'after'])
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([mentions('target'), mentions('before'), mentions('after')]));
    if (testOnly) q = q.where('campaign_id', 'in', this.#testCampaigns(accountId));
    return q.execute();
  }

  /** Rewrites an entry's target and snapshots (erasing a person): the only change an entry allows. */
  async redact(id: number, fields: Pick<AuditRow, 'target' | 'before' | 'after'>): Promise<void> {
    await this.db.updateTable('audit_log').set(fields).where('id', '=', id).execute();
  }

  /** Entries oldest first after the entry `afterId` (0: from the start), for an export in batches. */
  exportPage(f: AuditFilter, afterId: number, limit: number): Promise<AuditRow[]> {
    return this.#filtered(f).where('id', '>', afterId).orderBy('id').limit(bound(limit)).execute();
  }
}
