/**
 * PostgreSQL's planner statistics of `participants`, kept fresh by the service itself.
 *
 * Nearly every read of a participant names its campaign, and the table has several indexes that start
 * with `campaign_id` (by code, by email, by network, by order...). PostgreSQL picks among them from the
 * statistics its last ANALYZE took. A campaign that grew since then, or did not exist then, is estimated
 * at one row; every `campaign_id` index then looks as good as the next, and the planner may find a
 * participant by code through the email index, walking the whole campaign. Measured: a sign-up's facts
 * read (../referrals/store/signup-reads.ts) on a campaign of 140,000 participants created after the
 * table's last ANALYZE took 144 ms, against 1 ms once analysed; and every keyless sign-up reads those
 * facts for a while after an owner's edit empties the caches, so sign-ups stalled at 0 a second.
 *
 * Autovacuum analyses a table only once 10% of it has changed (so a new campaign on a large table waits
 * long), and not at all where it is off or lags. So the service analyses `participants` when ANALYZE_AFTER
 * rows changed since the last ANALYZE (anyone's: autovacuum's counts too), no more often than every
 * `minIntervalMs`. ANALYZE reads a fixed sample (30,000 rows at the default statistics target) whatever
 * the table's size, takes no lock that a read or a write waits for, and SKIP_LOCKED passes when another
 * process analyses the table at that moment. SQLite's planner takes no statistics the service does not
 * gather (it has no ANALYZE here) and prefers the index that matches the most columns: nothing to do.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './connect.js';
import type { Database } from './tables.js';

/** Rows of participants changed (inserted, updated, deleted) since the last ANALYZE that make another due. */
export const ANALYZE_AFTER = 1_000;
/** The shortest time between two ANALYZEs of participants. */
export const ANALYZE_EVERY_MS = 10_000;

export class PlannerStatistics {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Analyses participants when it is due (see the top of this file); answers whether it did. Never where
   * the service's role may not (ANALYZE would only warn that it skipped the table, on every call).
   */
  async refreshIfDue(minIntervalMs = ANALYZE_EVERY_MS): Promise<boolean> {
    if (this.dialect !== 'postgres') return false;
    const { rows } = await sql<{ due: boolean }>`
      select s.n_mod_since_analyze >= ${ANALYZE_AFTER}
        and coalesce(greatest(s.last_analyze, s.last_autoanalyze) < now() - make_interval(secs => ${minIntervalMs / 1000}), true)
        and pg_has_role(c.relowner, 'USAGE') as due
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.relid = 'participants'::regclass`.execute(this.db);
    if (rows[0]?.due !== true) return false;
    await sql`analyze (skip_locked) participants`.execute(this.db);
    return true;
  }
}
