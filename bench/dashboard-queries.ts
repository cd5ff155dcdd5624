/**
 * The dashboard's queries at a million participants: participant table pages (first, deep by cursor,
 * each order, search by email prefix and by code, the review queue) and campaign analytics, timed
 * through the domain functions the routes call, on SQLite and (when reachable) PostgreSQL.
 * Run: node --import tsx bench/dashboard-queries.ts   (PARTICIPANTS=1000000 by default)
 */
import { sql } from 'kysely';
import { campaignAnalytics } from '../src/server/campaigns/domain/analytics.js';
import { createCampaign } from '../src/server/campaigns/domain/campaigns.js';
import { DEFAULT_ACCOUNT } from '../src/server/kernel/context.js';
import { searchParticipants } from '../src/server/referrals/domain/directory.js';
import { openRuntime } from '../src/server/runtime.js';
import { DAY_MS } from '../src/server/store/migrations.js';
import { databaseKinds } from '../test/server/helpers/databases.js';
import { median } from './report.js';

const N = Number(process.env.PARTICIPANTS ?? 1_000_000);
const RUNS = 21;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

for (const kind of await databaseKinds({ pgbouncer: true })) {
  if (kind.skip) {
    console.log(`[${kind.name}] skipped: ${kind.skip}`);
    continue;
  }
  const database = await kind.create();
  const runtime = await openRuntime({ databaseUrl: database.url });
  const { ctx } = runtime;
  try {
    const campaign = await createCampaign(ctx, DEFAULT_ACCOUNT, { campaignName: 'Bench', hostURL: 'https://bench.example/' });
    const id = campaign.id;
    const t0 = performance.now();
    const start = Date.now() - 365 * DAY_MS;
    // N participants over a year; every third referred by an earlier one; one in 5000 held for review.
    // Codes are 8 characters from the row number, emails user<i>@example.com.
    const rows = kind.name === 'sqlite'
      ? sql`with recursive c(i) as (select 1 union all select i + 1 from c where i < ${N})
          insert into participants (campaign_id, email, email_key, code, referred_by_id, created_on, updated_on, signup_source, approval, fraud_score, total_referrals)
          select ${id}, 'user' || i || '@example.com', 'user' || i || '@example.com', printf('C%07d', i),
                 case when i % 3 = 0 then i / 3 else null end, ${start} + i * ${Math.floor((365 * DAY_MS) / N)}, 0, 'browser',
                 case when i % 5000 = 0 then 0 else 1 end, case when i % 5000 = 0 then 'high' else 'low' end, (i * 7919) % 50 from c`
      : sql`insert into participants (campaign_id, email, email_key, code, referred_by_id, created_on, updated_on, signup_source, approval, fraud_score, total_referrals)
          select ${id}, 'user' || i || '@example.com', 'user' || i || '@example.com', 'C' || lpad(i::text, 7, '0'),
                 case when i % 3 = 0 then i / 3 else null end, ${start}::bigint + i * ${Math.floor((365 * DAY_MS) / N)}::bigint, 0, 'browser',
                 case when i % 5000 = 0 then 0 else 1 end, case when i % 5000 = 0 then 'high' else 'low' end, (i::bigint * 7919) % 50
          from generate_series(1, ${N}) as i`;
    await rows.execute(ctx.store.db);
    // The daily counters the sign-up path keeps, built in one statement for the bench's bulk insert.
    await sql`insert into campaign_daily_stats (campaign_id, day, signups, referred_signups)
      select campaign_id, created_on / ${sql.lit(DAY_MS)}, count(*), sum(case when referred_by_id is null then 0 else 1 end)
      from participants group by campaign_id, created_on / ${sql.lit(DAY_MS)}`.execute(ctx.store.db);
    if (kind.name === 'postgres') await sql`analyze`.execute(ctx.store.db);
    console.log(`[${kind.name}] ${N.toLocaleString('en-US')} participants inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const page = (q: Parameters<typeof searchParticipants>[2]) => searchParticipants(ctx, DEFAULT_ACCOUNT, q);
    const deep = (await page({ id, pageSize: 100, order: 'asc' })).next;
    const half = Buffer.from(JSON.stringify([start + Math.floor(N / 2) * Math.floor((365 * DAY_MS) / N), Math.floor(N / 2)])).toString('base64url');
    const cases: [string, () => Promise<unknown>][] = [
      ['participants, first page (newest, 25)', () => page({ id, pageSize: 25 })],
      ['participants, next page by cursor', () => page({ id, pageSize: 25, order: 'asc', cursor: deep! })],
      ['participants, page at row 500,000 by cursor', () => page({ id, pageSize: 25, order: 'asc', cursor: half })],
      ['participants by email A-Z, first page', () => page({ id, pageSize: 25, sort: 'email', order: 'asc' })],
      ['participants by most referrals, first page', () => page({ id, pageSize: 25, sort: 'totalReferrals' })],
      ['search by email prefix "user12345"', () => page({ id, pageSize: 25, q: 'user12345', sort: 'email', order: 'asc' })],
      ['search by email prefix "user1" (111,111 matches)', () => page({ id, pageSize: 25, q: 'user1' })],
      ['search by email prefix "user1", next page by cursor', async () => page({ id, pageSize: 25, q: 'user1', cursor: (await page({ id, pageSize: 25, q: 'user1' })).next! })],
      ['search by code', () => page({ id, pageSize: 25, q: 'C0500000' })],
      ['review queue (held), first page', () => page({ id, pageSize: 25, filter: 'held' })],
      ['analytics (funnel, 365 days, top referrers)', () => campaignAnalytics(ctx, DEFAULT_ACCOUNT, id)],
    ];
    for (const [name, fn] of cases) console.log(`[${kind.name}] ${name}: ${(await time(fn)).toFixed(2)} ms (median of ${RUNS})`);
  } finally {
    await runtime.close();
    await database.drop();
  }
}
