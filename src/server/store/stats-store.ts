/**
 * SQL of the counters sign-ups and rewards move: each campaign's participant count (getCampaign) and
 * its daily counters (the dashboard's analytics). Each change adds to a row (an upsert), so reads take a
 * few rows whatever the campaign's size.
 *
 * Every counter is split into shards (rows keyed by a shard number, summed when read), and each change
 * adds to one shard picked at random. On PostgreSQL a row a transaction updates stays locked until its
 * COMMIT is on disk, so with one row per counter every concurrent sign-up of a campaign waited for the
 * one before it to reach the disk (81 sign-ups a second where a bare INSERT managed 2,600); with shards,
 * concurrent sign-ups add to different rows and their commits share a WAL flush. SQLite has one writer
 * at a time anyway, and uses one shard.
 */
import { sql, type Kysely, type OnConflictBuilder, type Selectable } from 'kysely';
import { DAY_MS } from './migrations.js';
import { prepare, preparedWrite, type Write } from './prepared.js';
import type { CampaignDailyStatsTable, Database } from './tables.js';

/** One day's counters of a campaign. */
export type DailyStats = Omit<Selectable<CampaignDailyStatsTable>, 'campaign_id' | 'shard'>;
type Counter = 'signups' | 'referred_signups' | 'qualified' | 'impressions' | 'referred_revenue_cents';

// getCampaign reads it on every call: built and compiled once (./prepared.ts).
const participantCount = prepare((db, campaignId: string) =>
  db
    .selectFrom('campaign_counters')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('participants'), eb.lit(0)).as('n'))
    .where('campaign_id', '=', campaignId),
);

// What every sign-up adds to, compiled once (./prepared.ts).
const signupCounters = {
  count: prepare((db, campaignId: string, shard: number, signups: number) =>
    db
      .insertInto('campaign_counters')
      .values({ campaign_id: campaignId, shard, participants: signups })
      .onConflict((oc) => oc.columns(['campaign_id', 'shard']).doUpdateSet((eb) => ({ participants: eb('campaign_counters.participants', '+', signups) }))),
  ),
  daily: prepare((db, campaignId: string, day: number, shard: number, signups: number, referred: number) =>
    db
      .insertInto('campaign_daily_stats')
      .values({ campaign_id: campaignId, day, shard, signups, referred_signups: referred })
      .onConflict((oc) =>
        oc.columns(['campaign_id', 'day', 'shard']).doUpdateSet((eb) => ({
          signups: eb('campaign_daily_stats.signups', '+', signups),
          referred_signups: eb('campaign_daily_stats.referred_signups', '+', referred),
        })),
      ),
  ),
};

/** The upsert's conflict action: add `amount` to the counter of the day's row already there. */
export const addToExisting = (counter: Counter, amount: number) => (oc: OnConflictBuilder<Database, 'campaign_daily_stats'>) =>
  oc.columns(['campaign_id', 'day', 'shard']).doUpdateSet((eb) => ({ [counter]: eb(eb.ref(`campaign_daily_stats.${counter}`), '+', amount) }));

/** One query per counter, made and compiled when the counter is first moved. */
function perCounter<Q>(make: (counter: Counter) => Q): (counter: Counter) => Q {
  const made = new Map<Counter, Q>();
  return (counter) => {
    let query = made.get(counter);
    if (!query) made.set(counter, (query = make(counter)));
    return query;
  };
}

/** Adds `amount` to one daily counter of a participant's campaign. */
const addToDay = perCounter((counter) =>
  prepare((db, participantId: number, day: number, shard: number, amount: number) =>
    db
      .insertInto('campaign_daily_stats')
      .columns(['campaign_id', 'day', 'shard', counter])
      .expression((eb) =>
        eb
          .selectFrom('participants')
          // Typed, since PostgreSQL cannot infer a parameter's type in a select list.
          .select(['campaign_id', sql<number>`cast(${day} as integer)`.as('day'), sql<number>`cast(${shard} as integer)`.as('shard'), sql<number>`cast(${amount} as bigint)`.as(counter)])
          .where('id', '=', participantId),
      )
      .onConflict(addToExisting(counter, amount)),
  ),
);

/** Adds `amount` to one daily counter of a campaign. */
const addToCampaignDay = perCounter((counter) =>
  prepare((db, campaignId: string, day: number, shard: number, amount: number) =>
    db
      .insertInto('campaign_daily_stats')
      .values({ campaign_id: campaignId, day, shard, [counter]: amount })
      .onConflict(addToExisting(counter, amount)),
  ),
);

export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** Shards per counter: enough that 50 concurrent sign-ups rarely meet on one row. */
export const COUNTER_SHARDS = { postgres: 16, sqlite: 1 } as const;

export class StatsStore {
  /** In a transaction, the one shard all its counter changes go to. */
  readonly #fixed: number | undefined;

  /**
   * `shards`: how many rows each counter is split into (COUNTER_SHARDS). `inTransaction`: every change
   * through this store adds to one shard, picked now. A transaction that moved two counters (revenue and
   * qualified, say) on shards picked apart could hold one row another such transaction waits for while
   * it waits for that one's: a deadlock.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly shards: number,
    inTransaction: boolean,
  ) {
    if (inTransaction) this.#fixed = this.#pick();
  }

  #pick(): number {
    return this.shards === 1 ? 0 : Math.floor(Math.random() * this.shards);
  }

  #shard(): number {
    return this.#fixed ?? this.#pick();
  }

  /** The shard a change made elsewhere (a statement of another store's, ../rewards/store/payment-store.ts) adds to. */
  shard(): number {
    return this.#shard();
  }

  /**
   * One sign-up on the day of `now`; `referred` also counts it as a referred sign-up. Also counts it in
   * the campaign's participant count, which getCampaign reads instead of counting participants.
   */
  countSignup(campaignId: string, referred: boolean, now: number): Promise<void> {
    return this.addSignups(campaignId, dayOf(now), 1, referred ? 1 : 0);
  }

  /** Several sign-ups on one day at once (imports). */
  async addSignups(campaignId: string, day: number, signups: number, referred: number): Promise<void> {
    const { count, daily } = this.signupWrites(campaignId, day, signups, referred);
    await count.run();
    await daily.run();
  }

  /** The writes that count sign-ups, for the caller to run (./store.ts insertSignup may put them in one statement with others). */
  signupWrites(campaignId: string, day: number, signups: number, referred: number): { count: Write; daily: Write } {
    return {
      count: preparedWrite(signupCounters.count, this.db, campaignId, this.#shard(), signups),
      daily: preparedWrite(signupCounters.daily, this.db, campaignId, day, this.#shard(), signups, referred),
    };
  }

  /** The campaign's participants, as counted when they joined. */
  async participants(campaignId: string): Promise<number> {
    const [r] = await participantCount(this.db, campaignId);
    return Number(r?.n ?? 0);
  }

  /** Adds to counters of the campaign of participant `participantId`, on the day of `now`. */
  async addForParticipant(participantId: number, counter: Counter, amount: number, now: number): Promise<void> {
    await addToDay(counter)(this.db, participantId, dayOf(now), this.#shard(), amount);
  }

  /** Adds to one counter of a campaign on day number `day` (dayOf). */
  async addOnDay(campaignId: string, counter: Counter, amount: number, day: number): Promise<void> {
    await this.onDayWrite(campaignId, counter, amount, day).run();
  }

  /** addOnDay as a write, to run with others (in a unit of SQLite's group commit). */
  onDayWrite(campaignId: string, counter: Counter, amount: number, day: number): Write {
    return preparedWrite(addToCampaignDay(counter), this.db, campaignId, day, this.#shard(), amount);
  }

  /** Every day with a counter of the campaign, oldest first, its shards added up. */
  /**
   * Sign-ups and qualified referees by one utm_* field of the page they signed up on, most sign-ups first:
   * a scan of the campaign's participant_channels rows (only sign-ups that came with utm_* have one).
   */
  async byChannel(campaignId: string, field: 'medium' | 'source', limit: number): Promise<{ value: string; signups: number; qualified: number }[]> {
    const rows = await this.db
      .selectFrom('participant_channels as c')
      .innerJoin('participants as p', 'p.id', 'c.participant_id')
      .select((eb) => [`c.${field} as value`, eb.fn.countAll<number>().as('signups'), eb.fn.sum<number>('p.reward_event_completed').as('qualified')])
      .where('c.campaign_id', '=', campaignId)
      .where(`c.${field}`, 'is not', null)
      .groupBy(`c.${field}`)
      .orderBy('signups', 'desc')
      .orderBy(`c.${field}`)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ value: String(r.value), signups: Number(r.signups), qualified: Number(r.qualified ?? 0) }));
  }

  async daily(campaignId: string): Promise<DailyStats[]> {
    const rows = await this.db
      .selectFrom('campaign_daily_stats')
      .select((eb) => [
        'day',
        eb.fn.sum<number>('signups').as('signups'),
        eb.fn.sum<number>('referred_signups').as('referred_signups'),
        eb.fn.sum<number>('qualified').as('qualified'),
        eb.fn.sum<number>('impressions').as('impressions'),
        eb.fn.sum<number>('referred_revenue_cents').as('referred_revenue_cents'),
      ])
      .where('campaign_id', '=', campaignId)
      .groupBy('day')
      .orderBy('day')
      .execute();
    // PostgreSQL's sum() of integers is numeric or bigint, which arrive as strings unless parsed.
    return rows.map((r) => ({
      day: Number(r.day),
      signups: Number(r.signups),
      referred_signups: Number(r.referred_signups),
      qualified: Number(r.qualified),
      impressions: Number(r.impressions),
      referred_revenue_cents: Number(r.referred_revenue_cents),
    }));
  }
}
