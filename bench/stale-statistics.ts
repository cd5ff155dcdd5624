/**
 * `npm run bench -- --stale-statistics`: keyless sign-ups on PostgreSQL through 100 share links of a
 * campaign that grew after `participants` was last analysed (autovacuum off on the table, as where it lags
 * or has not reached its 10%), one second at a time, before and after an owner's edit of another campaign.
 * The edit empties every process's caches, and the sign-ups then read their facts: with the planner misled
 * by the stale statistics each read walked the campaign, and sign-ups stalled at 0 a second until the
 * caches filled again (src/server/store/planner-statistics.ts). Answers the seconds after the edit against
 * the seconds before it, measured in the same run, and fails on a second with no answer. Writes the Stale
 * statistics section.
 */
import pg from 'pg';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { onFreshPostgres } from './fresh-postgres.js';
import type { Loader, LoadResult } from './loader.js';
import { KIND_TITLES, machine, rps, table, writeSection } from './report.js';
import { measureOn, type Route } from './routes.js';
import { CAMPAIGN_ID, seed } from './seed.js';
import { startService } from './servers.js';

const CONNECTIONS = 50;
/** The campaign seeded as the bench's usual one, and analysed: the table's statistics are taken then. */
const SEEDED = 100_000;
/** The campaign launched after that ANALYZE, and grown to this many participants. */
const GROWN = 100_000;
const GROWN_ID = 'cmp_grown';
const LINKS = 100;

/** How many times participants was analysed (by anyone), read afresh. */
async function analyses(client: pg.Client): Promise<number> {
  await client.query('select pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: string }>(`select analyze_count + autoanalyze_count as n from pg_stat_user_tables where relid = 'participants'::regclass`);
  return Number(rows[0]!.n);
}

export async function runStaleStatistics(kind: DatabaseKind, slices: number, warmupSeconds: number, loader: Loader, command: string, log: (line: string) => void, write: boolean): Promise<number> {
  const header = machine(command);
  log(header);
  return onFreshPostgres(kind, async (db, client) => {
    await seed(db.url, { participants: SEEDED, hubReferrals: 1_000 });
    await client.query('alter table participants set (autovacuum_enabled = false)');
    const now = Date.now();
    await client.query(`insert into campaigns (id, account_id, name, host_url, status, referrer_reward_value, referee_reward_value, created_on, updated_on) values ($1, 1, 'Grown', 'https://bench.example/grown', 'Active', 10, 5, $2, $2)`, [GROWN_ID, now]);
    await client.query(`insert into campaign_counters (campaign_id, shard, participants) values ($1, 0, $2)`, [GROWN_ID, GROWN]);
    await client.query(
      `insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source)
       select $1, 'grown' || g || '@bench.example', 'grown' || g || '@bench.example', 'GROWN' || g, $2::bigint + g, $2::bigint + g, 'api' from generate_series(1, $3::integer) g`,
      [GROWN_ID, now - GROWN, GROWN],
    );
    const load: Route['load'] = {
      distinctClients: true,
      method: 'POST',
      paths: ['/api/v1/addParticipant'],
      bodyTemplates: Array.from({ length: LINKS }, (_, i) => JSON.stringify({ id: GROWN_ID, email: 'signup{n}@grown.example', referredByCode: `GROWN${i + 1}` })),
    };
    const analysedBefore = await analyses(client);
    const service = await startService(db.url);
    const before: LoadResult[] = [];
    const after: LoadResult[] = [];
    try {
      await measureOn(loader, service, load, warmupSeconds, CONNECTIONS);
      for (let i = 0; i < slices; i++) before.push(await measureOn(loader, service, load, 1, CONNECTIONS));
      // An owner's edit of the other campaign: every process's caches are emptied.
      await client.query(`update campaigns set name = name where id = $1`, [CAMPAIGN_ID]);
      for (let i = 0; i < slices; i++) after.push(await measureOn(loader, service, load, 1, CONNECTIONS));
    } finally {
      await service.stop();
    }
    const analysed = (await analyses(client)) - analysedBefore;
    const mean = (taken: LoadResult[]) => taken.reduce((n, r) => n + r.rps, 0) / taken.length;
    const worst = (taken: LoadResult[]) => Math.min(...taken.map((r) => r.rps));
    const ratio = mean(after) / mean(before);
    const rows = [
      ['before the edit', rps(mean(before)), rps(worst(before)), '1.00x'],
      ['after the edit', rps(mean(after)), rps(worst(after)), `${ratio.toFixed(2)}x`],
    ];
    // A second with no answer at all is a stall, as before the service analysed the table: a failure.
    const failed = [...before, ...after].reduce((n, r) => n + r.non2xx + r.errors + (r.rps === 0 ? 1 : 0), 0);
    const body = [
      header,
      `- ${KIND_TITLES[kind.name]}; one campaign seeded with ${SEEDED.toLocaleString('en')} participants and \`participants\` analysed, then autovacuum off on the table and a second campaign written with ${GROWN.toLocaleString('en')} participants (estimated at one row by the statistics then). New keyless sign-ups through ${LINKS} of its share links at ${CONNECTIONS} connections, each from an address of its own: ${warmupSeconds} s of warm-up, ${slices} slices of 1 s, an owner's edit of the first campaign (which empties every process's caches), ${slices} slices of 1 s more. The service analysed participants ${analysed} time(s) during the run (src/server/store/planner-statistics.ts).`,
      `- After the edit against before it: ${ratio.toFixed(2)}x the sign-ups a second; its worst second ${rps(worst(after))} (before the edit: ${rps(worst(before))}).`,
      '',
      table(['', 'req/s (mean of the seconds)', 'worst second', 'of before'], rows),
      '',
      `Each second, after the edit: ${after.map((r) => rps(r.rps)).join(', ')}.`,
    ].join('\n');
    log(`\n${body}`);
    if (write) writeSection('Stale statistics', body);
    return failed;
  });
}
