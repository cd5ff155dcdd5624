/**
 * PostgreSQL's statistics of participants kept fresh by the service (src/server/store/planner-statistics.ts):
 * a campaign that grew after the table's last ANALYZE is found by code through the code's index once the
 * service has analysed it; the service analyses once ANALYZE_AFTER rows changed, not before, and not twice
 * within its interval; its loop does it on its own. On SQLite there is nothing to analyse.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { ANALYZE_AFTER } from '../../src/server/store/planner-statistics.js';
import { PlannerStatisticsKeeper } from '../../src/server/operations/domain/planner-statistics-keeper.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { waitFor } from './helpers/receiver.js';

/** `n` participants of campaign `id` written straight into the table (codes `${prefix}1`...). */
const addRows = (s: TestService, id: string, prefix: string, n: number) =>
  sql`with recursive n(g) as (select 1 union all select g + 1 from n where g < ${n})
    insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source, signup_net)
    select ${id}, lower(${prefix}) || g || '@example.com', lower(${prefix}) || g || '@example.com', ${prefix} || g, g, g, 'widget', '10.0.' || (g % 200) from n`.execute(s.ctx.store.db);

/** PostgreSQL's counters of participants, read afresh (a transaction reads them once). */
async function counters(s: TestService): Promise<{ analyses: number; changed: number }> {
  await sql`select pg_stat_clear_snapshot()`.execute(s.ctx.store.db);
  const { rows } = await sql<{ analyses: string; changed: string }>`
    select analyze_count + autoanalyze_count as analyses, n_mod_since_analyze as changed
    from pg_stat_user_tables where relid = 'participants'::regclass`.execute(s.ctx.store.db);
  return { analyses: Number(rows[0]!.analyses), changed: Number(rows[0]!.changed) };
}

/** Waits until PostgreSQL counts `changed` rows changed since the last ANALYZE (a backend reports them within a second or so). */
const counted = (s: TestService, changed: number) => waitFor(async () => (await counters(s)).changed >= changed, `${changed} changes counted`, 10_000);

/** The index PostgreSQL picks to find campaign `id`'s participant by `code`, planned with the values. */
async function indexForCode(s: TestService, id: string, code: string): Promise<string> {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (format json) select id from participants where campaign_id = ${sql.lit(id)} and code = ${sql.lit(code)}`.execute(s.ctx.store.db);
  const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
  return /"Index Name":"([^"]+)"/.exec(plan)?.[1] ?? plan;
}

eachDatabase('planner statistics', (service, kind) => {
  if (kind.name === 'sqlite') {
    it('SQLite: nothing to analyse, however much changed', async () => {
      const s = service();
      const id = await s.campaign();
      await addRows(s, id, 'ROW', ANALYZE_AFTER + 1);
      assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(0), false);
      const stat = await sql<{ n: number }>`select count(*) as n from sqlite_master where name like 'sqlite_stat%'`.execute(s.ctx.store.db);
      assert.equal(Number(stat.rows[0]!.n), 0, 'no statistics tables made');
    });
    return;
  }

  it('a campaign that grew after the last ANALYZE: its participant by code is found through the code index once analysed', async () => {
    const s = service();
    // The table analysed while only the first campaign had participants...
    const first = await s.campaign();
    await addRows(s, first, 'A', 2_000);
    await sql`analyze participants`.execute(s.ctx.store.db);
    // ...then a campaign launched and grown: estimated at one row, any campaign_id index looks as good.
    const grown = await s.campaign();
    await addRows(s, grown, 'B', 3_000);
    assert.notEqual(await indexForCode(s, grown, 'B7'), 'participants_campaign_code', 'the stale statistics mislead the planner');
    await counted(s, 3_000);
    assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(0), true);
    assert.equal(await indexForCode(s, grown, 'B7'), 'participants_campaign_code');
    assert.equal((await s.admin.getParticipant(grown, 'b7@example.com')).referralCode, 'B7');
  });

  it('analyses once ANALYZE_AFTER rows changed, not before, and not twice within its interval', async () => {
    const s = service();
    const id = await s.campaign();
    await sql`analyze participants`.execute(s.ctx.store.db);
    const start = (await counters(s)).analyses;
    await addRows(s, id, 'A', ANALYZE_AFTER - 1);
    await counted(s, ANALYZE_AFTER - 1);
    assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(0), false, 'one change short');
    await addRows(s, id, 'B', 1);
    await counted(s, ANALYZE_AFTER);
    assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(0), true);
    assert.deepEqual(await counters(s), { analyses: start + 1, changed: 0 });
    // As many changes again at once: due, but the last ANALYZE was moments ago.
    await addRows(s, id, 'C', ANALYZE_AFTER);
    await counted(s, ANALYZE_AFTER);
    assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(), false, 'within the interval');
    assert.equal((await counters(s)).analyses, start + 1);
    assert.equal(await s.ctx.store.plannerStatistics.refreshIfDue(0), true);
    assert.equal((await counters(s)).analyses, start + 2);
  });

  it('the keeper analyses on its own while it runs, and stops', async () => {
    const s = service();
    const id = await s.campaign();
    await sql`analyze participants`.execute(s.ctx.store.db);
    const start = (await counters(s)).analyses;
    const keeper = new PlannerStatisticsKeeper(s.ctx, 0, 50);
    keeper.start();
    try {
      await addRows(s, id, 'A', ANALYZE_AFTER);
      await waitFor(async () => (await counters(s)).analyses === start + 1, 'the keeper analysed participants', 10_000);
    } finally {
      await keeper.stop();
    }
    await addRows(s, id, 'B', ANALYZE_AFTER);
    await counted(s, ANALYZE_AFTER);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await counters(s)).analyses, start + 1, 'stopped: no more');
  });
});
