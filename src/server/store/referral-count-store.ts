/**
 * A referrer's referral count without a hot row (docs/architecture.md, "Referral counts"). A referred
 * sign-up does not add to its referrer's `participants.total_referrals`: on PostgreSQL that UPDATE held
 * the referrer's row until the sign-up's COMMIT was on disk, so every sign-up through one share link
 * waited for the one before it. It appends a row to `referral_count_deltas` instead (migration
 * 0026_referral_count_deltas), which locks nothing another sign-up needs.
 *
 * Every read that answers a count adds the referrer's deltas not yet folded to the column, in the same
 * statement (REFERRALS_EXACT): one snapshot, so the sum is exact whichever side of a fold it falls on. A
 * fold (foldReferrer) moves one referrer's deltas into the column in one transaction, DELETE ... RETURNING
 * then UPDATE, so a reader sees base + deltas or base' + nothing, and a crash between the two statements
 * rolls both back. Folds keep the delta table short (the folder, ../referrals/domain/referral-folder.ts) and make
 * the column right before a read orders by it (foldCampaign).
 *
 * On PostgreSQL every delta folded is a dead row until a VACUUM: a server whose autovacuum lags (or is
 * off) would keep them all, and every read of a count and every fold walks them in the index (sign-ups
 * fell to 0.73x in ten minutes of load with autovacuum off: npm run bench -- --soak). So the folds vacuum the table
 * themselves once enough of its rows have died (VACUUM_AFTER): it stays a few pages, whatever autovacuum does.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './connect.js';
import { bound } from './bound-limit.js';
import { prepare } from './prepared.js';
import type { Database, ParticipantsTable } from './tables.js';

/**
 * A participant's referral count as of this statement: the folded column plus the deltas not yet folded.
 * `p` names the participants row of the query (a table name or its alias).
 */
export const referralsExact = (p: string) =>
  sql<number>`cast(${sql.ref(`${p}.total_referrals`)} + coalesce((select sum(d.n) from referral_count_deltas d where d.referrer_id = ${sql.ref(`${p}.id`)}), 0) as integer)`;

/**
 * Every column of a participant but total_referrals, which the readers take from referralsExact. Spelled
 * as an object so that the compiler finds a column added to ParticipantsTable and missing here.
 */
const OTHER_COLUMNS = {
  id: true,
  campaign_id: true,
  email: true,
  email_key: true,
  first_name: true,
  last_name: true,
  code: true,
  referred_by_id: true,
  referred_by_code: true,
  created_on: true,
  updated_on: true,
  signup_source: true,
  signup_ip: true,
  signup_net: true,
  fraud_score: true,
  approval: true,
  reward_event_completed: true,
  reward_event_completed_on: true,
  reward_credited: true,
  referral_reward: true,
  referral_reward_redeemed: true,
  referee_reward: true,
  referee_reward_redeemed: true,
  total_completed_referred: true,
  amount_paid_cents: true,
  payment_count: true,
  revenue_generated_cents: true,
  impression_count: true,
  commission_remainder: true,
  referral_reward_owed: true,
  referee_reward_owed: true,
  referral_reward_reserved: true,
  referee_reward_reserved: true,
  credited_referrals: true,
  milestones_reached: true,
  refunded: true,
  last_payment_id: true,
  locale: true,
} as const satisfies Record<Exclude<keyof ParticipantsTable, 'total_referrals'>, true>;
type OtherColumn = keyof typeof OTHER_COLUMNS;

/**
 * The columns of a participant row but total_referrals: with `referralsExact(p).as('total_referrals')`,
 * the select list of a whole row for an answer, where `selectAll()` would be. With a table alias, the
 * columns of that alias (columnsOf).
 */
export const ROW_COLUMNS = Object.keys(OTHER_COLUMNS) as OtherColumn[];
export const columnsOf = <A extends string>(alias: A) => ROW_COLUMNS.map((c) => `${alias}.${c}` as `${A}.${OtherColumn}`);

/** A whole participant row with its exact count, as a select list: `.select(countedRow('participants'))` for `.selectAll()`. */
export const countedRow = <A extends string>(alias: A) => [...columnsOf(alias), referralsExact(alias).as('total_referrals')];

/** A participant's whole row by id, with its exact count: the store's read, and a repeated payment's answer (PaymentStore.recordRepeat). */
export const participantById = prepare((db, id: number) => db.selectFrom('participants').select(countedRow('participants')).where('id', '=', id));

/** The same list as SQL, for statements written as SQL (PostgreSQL's sign-up reads: row_to_json of it). */
export const participantFieldsSql = (p: string) => sql.join([...ROW_COLUMNS.map((c) => sql.ref(`${p}.${c}`)), sql`${referralsExact(p)} as total_referrals`]);

/** A referred sign-up's (or import's) one to its referrer's count: a new row, no lock on the referrer's. */
export const referralDelta = prepare((db, referrerId: number, now: number) => db.insertInto('referral_count_deltas').values({ referrer_id: referrerId, n: 1, created_on: now }));

/** Referrers per folder round: each is one short transaction. */
export const FOLD_BATCH = 500;

/** On PostgreSQL, the deltas folded (dead rows) after which a fold vacuums the table: a few pages' worth. */
export const VACUUM_AFTER = 2_000;

export class ReferralCountStore {
  /** Deltas this process folded since it last vacuumed the table (PostgreSQL). */
  #deadSinceVacuum = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Adds one to a referrer's count, as a sign-up does (imports). */
  async add(referrerId: number, now: number): Promise<void> {
    await referralDelta(this.db, referrerId, now);
  }

  /** Referrers with deltas not yet folded (of one campaign, or of all), at most `limit`. */
  async pendingReferrers(limit: number, campaignId?: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('referral_count_deltas as d')
      .select('d.referrer_id')
      .distinct()
      .$if(campaignId !== undefined, (q) => q.innerJoin('participants as p', 'p.id', 'd.referrer_id').where('p.campaign_id', '=', campaignId!))
      .orderBy('d.referrer_id')
      .limit(bound(limit))
      .execute();
    return rows.map((r) => Number(r.referrer_id));
  }

  /**
   * Moves a referrer's deltas into their row, in one transaction (so nothing is lost or counted twice,
   * whenever it stops). On PostgreSQL a second fold of the same referrer at once waits for the first's
   * deleted rows, then skips them: it adds only the deltas it deleted itself. Deltas committed after the
   * DELETE's snapshot stay for the next fold. Answers how many sign-ups were folded.
   */
  async foldReferrer(referrerId: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const taken = await trx.deleteFrom('referral_count_deltas').where('referrer_id', '=', referrerId).returning(['n', 'created_on']).execute();
      if (taken.length === 0) return 0;
      const n = taken.reduce((sum, d) => sum + Number(d.n), 0);
      const last = taken.reduce((max, d) => Math.max(max, Number(d.created_on)), 0);
      await trx
        .updateTable('participants')
        .set((eb) => ({
          total_referrals: eb('total_referrals', '+', n),
          // The sign-ups' own times: a referrer's row was last changed by their latest referral, as before deltas.
          updated_on: eb.case().when('updated_on', '<', last).then(last).else(eb.ref('updated_on')).end(),
        }))
        .where('id', '=', referrerId)
        .execute();
      return n;
    });
  }

  /** Folds every pending referrer (of one campaign, or of all), `batch` at a time; answers the sign-ups folded. */
  async fold(campaignId?: string, batch = FOLD_BATCH, stopped: () => boolean = () => false): Promise<number> {
    let folded = 0;
    for (let done = false; !done; ) {
      const referrers = await this.pendingReferrers(batch, campaignId);
      for (const id of referrers) {
        if ((done = stopped())) break;
        folded += await this.foldReferrer(id);
      }
      done ||= referrers.length < batch;
    }
    await this.vacuumIfDue(folded);
    return folded;
  }

  /**
   * PostgreSQL: VACUUM the delta table once VACUUM_AFTER rows folded here have died since the last time.
   * SKIP_LOCKED: another process's VACUUM of it at the moment does the same work, so this one skips.
   * SQLite reuses a deleted row's space at once, and needs none.
   */
  private async vacuumIfDue(folded: number): Promise<void> {
    if (this.dialect !== 'postgres') return;
    this.#deadSinceVacuum += folded;
    if (this.#deadSinceVacuum < VACUUM_AFTER) return;
    this.#deadSinceVacuum = 0;
    await sql`vacuum (skip_locked) referral_count_deltas`.execute(this.db);
  }
}
