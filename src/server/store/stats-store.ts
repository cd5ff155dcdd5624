/**
 * SQL of the dashboard's per-campaign daily counters. Each change that moves a counter adds to its row
 * (an upsert on (campaign_id, day)), so analytics read a few hundred rows whatever the campaign's size.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { DAY_MS } from './migrations.js';
import type { CampaignDailyStatsTable, Database } from './tables.js';

export type DailyStatsRow = Selectable<CampaignDailyStatsTable>;
type Counter = 'signups' | 'referred_signups' | 'qualified' | 'impressions' | 'referred_revenue_cents';

export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

export class StatsStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One sign-up on the day of `now`; `referred` also counts it as a referred sign-up. Also counts it in
   * the campaign's participant_count, which getCampaign reads instead of counting participants.
   */
  async countSignup(campaignId: string, referred: boolean, now: number): Promise<void> {
    const { count, daily } = this.signupStatements(campaignId, dayOf(now), 1, referred ? 1 : 0);
    await count.execute();
    await daily.execute();
  }

  /** Several sign-ups on one day at once (imports). */
  async addSignups(campaignId: string, day: number, signups: number, referred: number): Promise<void> {
    const { count, daily } = this.signupStatements(campaignId, day, signups, referred);
    await count.execute();
    await daily.execute();
  }

  /**
   * The statements that count sign-ups, for the caller to run (./store.ts insertSignup puts `daily` in
   * one statement with others). Run `count` first: on PostgreSQL the campaign's row is then the first
   * lock every sign-up takes, so concurrent sign-ups and imports queue there instead of deadlocking.
   */
  signupStatements(campaignId: string, day: number, signups: number, referred: number) {
    return {
      count: this.db
        .updateTable('campaigns')
        .set((eb) => ({ participant_count: eb('participant_count', '+', signups) }))
        .where('id', '=', campaignId),
      daily: this.#add(campaignId, day, { signups, referred_signups: referred }),
    };
  }

  /** Adds to counters of the campaign of participant `participantId`, on the day of `now`. */
  async addForParticipant(participantId: number, counter: Counter, amount: number, now: number): Promise<void> {
    await this.db
      .insertInto('campaign_daily_stats')
      .columns(['campaign_id', 'day', counter])
      .expression((eb) =>
        eb.selectFrom('participants').select(['campaign_id', sql.lit(dayOf(now)).as('day'), sql.lit(amount).as(counter)]).where('id', '=', participantId),
      )
      .onConflict((oc) => oc.columns(['campaign_id', 'day']).doUpdateSet((eb) => ({ [counter]: eb(eb.ref(`campaign_daily_stats.${counter}`), '+', amount) })))
      .execute();
  }

  #add(campaignId: string, day: number, counts: Partial<Record<Counter, number>>) {
    return this.db
      .insertInto('campaign_daily_stats')
      .values({ campaign_id: campaignId, day, ...counts })
      .onConflict((oc) =>
        oc.columns(['campaign_id', 'day']).doUpdateSet((eb) =>
          Object.fromEntries(Object.entries(counts).map(([c, n]) => [c, eb(eb.ref(`campaign_daily_stats.${c as Counter}`), '+', n)])),
        ),
      );
  }

  /** Every day with a counter of the campaign, oldest first. */
  daily(campaignId: string): Promise<DailyStatsRow[]> {
    return this.db.selectFrom('campaign_daily_stats').selectAll().where('campaign_id', '=', campaignId).orderBy('day').execute();
  }
}
