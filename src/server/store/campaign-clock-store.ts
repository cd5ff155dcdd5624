/**
 * Test campaigns' clocks (../campaigns/domain/campaign-clock.ts): the offset of each from the real time. Read on
 * every request about a test campaign and by the background loops, so kept small: one row per test
 * campaign whose clock was ever moved.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from './tables.js';

export class CampaignClockStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** How far ahead of the real time the campaign's clock is (0 when it was never moved). */
  async offset(campaignId: string): Promise<number> {
    const row = await this.db.selectFrom('campaign_clocks').select('offset_ms').where('campaign_id', '=', campaignId).executeTakeFirst();
    return row === undefined ? 0 : Number(row.offset_ms);
  }

  /**
   * Moves the clock to `offset` if it is still `from` (two advances at once: one wins, the other is told);
   * answers whether it moved.
   */
  async move(campaignId: string, from: number, offset: number, now: number): Promise<boolean> {
    if (from === 0) {
      const r = await this.db
        .insertInto('campaign_clocks')
        .values({ campaign_id: campaignId, offset_ms: offset, updated_on: now })
        .onConflict((oc) => oc.column('campaign_id').doNothing())
        .executeTakeFirst();
      if ((r.numInsertedOrUpdatedRows ?? 0n) > 0n) return true;
    }
    const r = await this.db
      .updateTable('campaign_clocks')
      .set({ offset_ms: offset, updated_on: now })
      .where('campaign_id', '=', campaignId)
      .where('offset_ms', '=', from)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** When the first of the campaign's participants who joined within (after, until] joined, if any (reminders). */
  async firstJoinedBetween(campaignId: string, after: number, until: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('participants')
      .select((eb) => eb.fn.min<number | string>('created_on').as('at'))
      .where('campaign_id', '=', campaignId)
      .where('created_on', '>', after)
      .where('created_on', '<=', until)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Every campaign whose clock is ahead, with its offset: what the background loops run in their own time. */
  async moved(): Promise<{ campaignId: string; offset: number }[]> {
    const rows = await this.db.selectFrom('campaign_clocks').select(['campaign_id', 'offset_ms']).where('offset_ms', '<>', 0).execute();
    return rows.map((r) => ({ campaignId: r.campaign_id, offset: Number(r.offset_ms) }));
  }
}

/**
 * SQL: whether a row of campaign `campaignId` (a column reference) is due at the real time `now`, that is
 * whether `dueOn` has come in the campaign's own time (real time plus its clock's offset). The outboxes'
 * and the hold's due queries use it, so a live loop sends a test campaign's items when they are due in
 * its time, neither early nor late.
 */
export function dueInCampaignTime(dueOn: Expression<unknown> | string, campaignId: Expression<unknown> | string, now: number): Expression<SqlBool> {
  const ref = (e: Expression<unknown> | string) => (typeof e === 'string' ? sql.ref(e) : e);
  return sql<SqlBool>`${ref(dueOn)} <= ${now} + coalesce((select c.offset_ms from campaign_clocks c where c.campaign_id = ${ref(campaignId)}), 0)`;
}
