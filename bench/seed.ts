/**
 * Fills a fresh database with one campaign, one stored secret key and `participants` rows, written
 * straight into the tables of src/server/store/migrations.ts (batched multi-row inserts in one
 * transaction), so a million rows take seconds to minutes rather than the hours the API would.
 *
 * Shape: participant 0 is the hub, referrer of participants 1..hubReferrals; the rest form referral
 * chains of ten (each referred by the one before). Codes, emails and times are functions of the index,
 * so benchmarks can name any row (a deep cursor, a participant near the end) without reading it back.
 * Every referral is qualified and credited, and the campaign shows an all-time leaderboard: migration
 * 0019 builds its board from the rows, as it does for a database that had them before leaderboards.
 * One participant at 90% (a referrer, tied at one referral with most of the board) has a participant
 * token, for the widget's getMyReferrals and the rank it reads. For the growth rows (plan.waitlist) the
 * campaign is in waitlist mode too (5 places per referred sign-up): every participant has their place,
 * numbered in row order, so that getMyReferrals reads that participant's waitlist position as well.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { connect, dialectOf, sqlitePath } from '../src/server/store/connect.js';
import { migrate } from '../src/server/store/migrations.js';
import { driverUrl } from '../src/server/store/transaction-pooling.js';
import { newToken } from '../src/server/referrals/domain/proof.js';
import { hashSecret } from '../src/server/kernel/secrets.js';
import { encodeCursor } from '../src/server/kernel/paging.js';
import { bucketOf } from '../src/server/engagement/store/waitlist-store.js';

export const CAMPAIGN_ID = 'cmp_bench';
/** Stored in api_keys (hashed) like any key made with `refkit key create`, so authentication reads it. */
export const SECRET_KEY = 'sk_bench_0123456789abcdefghijklmnopqrstuv';

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_SPACE = ALPHABET.length ** 8;
/** Odd and prime to 2, 3 and 5, hence to 30^8: i -> i * M mod 30^8 is one-to-one, so codes never collide. */
const SCATTER = 2_654_435_761;
const CHAIN = 10;
const SPACING_MS = 10;

export interface SeedPlan {
  participants: number;
  hubReferrals: number;
  /**
   * The campaign in waitlist mode, every participant placed (the growth rows read a position). Off for the
   * route tables and --compare: there sign-ups are a referral program's, as the code before waitlists had them.
   */
  waitlist?: boolean;
}

export interface Seeded extends SeedPlan {
  campaignId: string;
  key: string;
  email(i: number): string;
  code(i: number): string;
  /** The cursor a page ending at participant i hands out (the next page starts at i + 1). */
  cursorAfter(i: number): string;
  /** The index of the k-th participant in the chains that has a referrer: each has a different one. */
  chainReferee(k: number): number;
  /** A participant token of `ranked`, a referrer 90% of the way through the participants. */
  token: string;
  ranked: number;
}

/** The last migration before 0019_leaderboard, which builds boards from credited referrals: rows are written before it runs. */
const BEFORE_BOARDS = '0017_stripe';
/** The leaderboard the campaign shows once its boards are built. */
const LEADERBOARD = JSON.stringify({ period: 'all', size: 10 });
/** The waitlist the campaign is in (../src/server/engagement/domain/waitlist.ts). */
const SPOTS = 5;
const WAITLIST = JSON.stringify({ spotsPerReferral: SPOTS, counts: 'signups' });

export function codeOf(i: number): string {
  let n = (i * SCATTER) % CODE_SPACE;
  let code = '';
  for (let k = 0; k < 8; k++) {
    code += ALPHABET[n % ALPHABET.length];
    n = Math.floor(n / ALPHABET.length);
  }
  return code;
}

const emailOf = (i: number) => `p${i}@seed.example`;

/** Row i of the plan: who referred it and how many it referred, consistent with the counters. */
function referrerOf(i: number, plan: SeedPlan): number | null {
  if (i === 0) return null;
  if (i <= plan.hubReferrals) return 0;
  return (i - plan.hubReferrals - 1) % CHAIN === 0 ? null : i - 1;
}
function referralsOf(i: number, plan: SeedPlan): number {
  if (i === 0) return plan.hubReferrals;
  const next = i + 1;
  return next < plan.participants && referrerOf(next, plan) === i ? 1 : 0;
}

const COLUMNS = ['id', 'campaign_id', 'email', 'email_key', 'code', 'referred_by_id', 'referred_by_code', 'created_on', 'updated_on', 'signup_source', 'total_referrals', 'total_completed_referred', 'credited_referrals', 'reward_event_completed', 'reward_credited'] as const;

function rowOf(i: number, plan: SeedPlan, base: number): (string | number | null)[] {
  const by = referrerOf(i, plan);
  const at = base + i * SPACING_MS;
  const referrals = referralsOf(i, plan);
  const qualified = by === null ? 0 : 1;
  return [i + 1, CAMPAIGN_ID, emailOf(i), emailOf(i), codeOf(i), by === null ? null : by + 1, by === null ? null : codeOf(by), at, at, 'api', referrals, referrals, referrals, qualified, qualified];
}

/** The seeded campaign's rewards: fixed ones, no commission (a repeated payment credits nothing). */
export const BENCH_REWARDS = { referrerRewardValue: 10, refereeRewardValue: 5 } as const;

const campaignRow = (now: number) => ({
  id: CAMPAIGN_ID,
  account_id: 1,
  name: 'Benchmark',
  host_url: 'https://bench.example/join',
  status: 'Active' as const,
  referrer_reward_value: BENCH_REWARDS.referrerRewardValue,
  referee_reward_value: BENCH_REWARDS.refereeRewardValue,
  created_on: now,
  updated_on: now,
});
const keyRow = (now: number) => ({ id: 'key_bench', account_id: 1, name: 'bench', prefix: SECRET_KEY.slice(0, 10), hash: hashSecret(SECRET_KEY), created_on: now });

/** Migrates the (fresh) database at `url`, then writes the plan into it. */
export async function seed(url: string, plan: SeedPlan): Promise<Seeded> {
  const { db, dialect, close } = connect(url);
  try {
    await migrate(db, dialect, BEFORE_BOARDS);
    await db.insertInto('campaigns').values(campaignRow(Date.now())).execute();
    // The counter sign-ups keep (./stats-store.ts); the rows below are written straight into the table.
    await db.insertInto('campaign_counters').values({ campaign_id: CAMPAIGN_ID, shard: 0, participants: plan.participants }).execute();
    await db.insertInto('api_keys').values(keyRow(Date.now())).execute();
  } finally {
    await close();
  }
  // Seeded rows lie in the past, so that sign-ups made by the benchmark come after them in every list.
  const base = Date.now() - plan.participants * SPACING_MS - 86_400_000;
  if (dialectOf(url) === 'postgres') await insertPostgres(url, plan, base);
  else insertSqlite(url, plan, base);
  const ranked = rankedReferrer(plan);
  const { token, hash } = newToken();
  const after = connect(url);
  try {
    await migrate(after.db, after.dialect);
    await after.db.updateTable('campaigns').set({ leaderboard: LEADERBOARD, waitlist: plan.waitlist ? WAITLIST : null }).where('id', '=', CAMPAIGN_ID).execute();
    if (plan.waitlist) await seedWaitlist(after.db, plan);
    await after.db.insertInto('participant_tokens').values({ hash, participant_id: ranked + 1, created_on: Date.now() }).execute();
    if (after.dialect === 'postgres') for (const t of ['board_entries', 'board_levels', 'board_blocks', 'waitlist_entries', 'waitlist_deltas']) await sql.raw(`vacuum analyze ${t}`).execute(after.db);
  } finally {
    await after.close();
  }
  return {
    token,
    ranked,
    ...plan,
    campaignId: CAMPAIGN_ID,
    key: SECRET_KEY,
    email: emailOf,
    code: codeOf,
    cursorAfter: (i) => encodeCursor({ created_on: base + i * SPACING_MS, id: i + 1 }),
    // A chain's head (its first) has no referrer; the other CHAIN - 1 are each referred by the one before.
    chainReferee: (k) => plan.hubReferrals + 1 + Math.floor(k / (CHAIN - 1)) * CHAIN + (k % (CHAIN - 1)) + 1,
  };
}

/**
 * Every participant's place: seq = row index, key = seq - SPOTS x referrals; and the bucket deltas of the
 * keys that a referral moved out of their seq's bucket (../src/server/engagement/store/waitlist-store.ts).
 */
async function seedWaitlist(db: ReturnType<typeof connect>['db'], plan: SeedPlan): Promise<void> {
  await db.insertInto('waitlists').values({ campaign_id: CAMPAIGN_ID, joined: plan.participants, granted: 0 }).execute();
  await sql`insert into waitlist_entries (participant_id, campaign_id, seq, wait_key, granted_on)
    select id, campaign_id, id - 1, id - 1 - ${SPOTS} * total_referrals, null from participants where campaign_id = ${CAMPAIGN_ID}`.execute(db);
  const deltas = new Map<number, number>();
  for (let i = 0; i < plan.participants; i++) {
    const from = bucketOf(i);
    const to = bucketOf(i - SPOTS * referralsOf(i, plan));
    if (from === to) continue;
    deltas.set(from, (deltas.get(from) ?? 0) - 1);
    deltas.set(to, (deltas.get(to) ?? 0) + 1);
  }
  const rows = [...deltas].map(([bucket, n]) => ({ campaign_id: CAMPAIGN_ID, bucket, n }));
  for (let start = 0; start < rows.length; start += 500) await db.insertInto('waitlist_deltas').values(rows.slice(start, start + 500)).execute();
}

/** A participant near 90% of the way through with one referral: tied at one with most of the board. */
function rankedReferrer(plan: SeedPlan): number {
  let i = Math.floor(plan.participants * 0.9);
  while (referralsOf(i, plan) !== 1) i++;
  return i;
}

function insertSqlite(url: string, plan: SeedPlan, base: number): void {
  const sqlite = new SQLite(sqlitePath(url));
  try {
    // Only this loading connection skips fsyncs; the checkpoint below puts everything in the main file.
    sqlite.pragma('synchronous = OFF');
    const batch = 500;
    const tuple = `(${COLUMNS.map(() => '?').join(',')})`;
    const prepare = (rows: number) => sqlite.prepare(`insert into participants (${COLUMNS.join(',')}) values ${Array(rows).fill(tuple).join(',')}`);
    const full = prepare(batch);
    sqlite.transaction(() => {
      for (let start = 0; start < plan.participants; start += batch) {
        const n = Math.min(batch, plan.participants - start);
        const values = Array.from({ length: n }, (_, k) => rowOf(start + k, plan, base)).flat();
        (n === batch ? full : prepare(n)).run(values);
      }
    })();
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    sqlite.close();
  }
}

async function insertPostgres(url: string, plan: SeedPlan, base: number): Promise<void> {
  // One transaction on one client: through PgBouncer too (its pgbouncer=true is the service's, not the driver's).
  const client = new pg.Client({ connectionString: driverUrl(url) });
  await client.connect();
  try {
    const types = ['bigint', 'text', 'text', 'text', 'text', 'bigint', 'text', 'bigint', 'bigint', 'text', 'integer', 'integer', 'integer', 'integer', 'integer'];
    // One array parameter per column (unnest): 10,000 rows per statement whatever the column count.
    const insert = `insert into participants (${COLUMNS.join(',')}) select * from unnest(${types.map((t, k) => `$${k + 1}::${t}[]`).join(',')})`;
    const batch = 10_000;
    await client.query('begin');
    for (let start = 0; start < plan.participants; start += batch) {
      const n = Math.min(batch, plan.participants - start);
      const columns: unknown[][] = COLUMNS.map(() => new Array<unknown>(n));
      for (let k = 0; k < n; k++) rowOf(start + k, plan, base).forEach((v, c) => (columns[c]![k] = v));
      await client.query(insert, columns);
    }
    await client.query(`select setval(pg_get_serial_sequence('participants', 'id'), $1)`, [plan.participants]);
    await client.query('commit');
    // Vacuumed and analysed, as autovacuum leaves a table soon after a real load. Left to autovacuum, a
    // million fresh rows get vacuumed while the benchmark measures them (it competes for the same two
    // cores, and the first reads of each page set its hint bits): reads at 1M measured 1.5-4x their 10k
    // figures in one run and within 1.12x in the next. Plans then do not change mid-run either.
    await client.query('vacuum analyze participants');
  } finally {
    await client.end();
  }
}
