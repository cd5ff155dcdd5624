/**
 * The baselines every route is compared with: bare Fastify answering JSON, and bare Fastify plus exactly
 * one database statement (a point read, a page of 20 rows, an INSERT) through the raw driver with its
 * statement prepared once: the most this machine can do per request on that database. SQLite opens with
 * the service's own pragmas (WAL, synchronous=FULL); PostgreSQL uses a pool of the service's size.
 * Reads DATABASE_URL (migrated and seeded by bench/seed.ts) and BENCH_CAMPAIGN_ID.
 *
 * On SQLite, `/insert-grouped` runs the same INSERT as a unit of the service's own group commit
 * (src/server/store/group-commit.ts), on connections of its own: what a durable write costs through that
 * mechanism with nothing else around it, so that a sign-up's latency can be told apart from its write's.
 */
import Fastify from 'fastify';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { newReferralCode } from '../src/server/referrals/domain/referral-codes.js';
import { DEFAULT_POOL_SIZE, connect, dialectOf, openSqlite, sqlitePath } from '../src/server/store/connect.js';
import { behindTransactionPooler, driverUrl } from '../src/server/store/transaction-pooling.js';

const url = process.env.DATABASE_URL!;
const campaignId = process.env.BENCH_CAMPAIGN_ID!;

const POINT = 'select * from participants where campaign_id = $1 and email = $2';
const PAGE = 'select * from participants where campaign_id = $1 order by created_on, id limit 20';
const INSERT =
  'insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source) values ($1, $2, $2, $3, $4, $4, $5) returning id';

interface Queries {
  point(email: string): Promise<unknown>;
  page(): Promise<unknown>;
  insert(email: string): Promise<unknown>;
  /** The INSERT as a unit of the service's group commit (SQLite only). */
  insertGrouped?(email: string): Promise<unknown>;
}

/** better-sqlite3 binds plain `?` in order where pg numbers its parameters: the text rewritten, and the values reordered. */
function positional(text: string): { sql: string; bind: (values: unknown[]) => unknown[] } {
  const order: number[] = [];
  const sql = text.replace(/\$(\d+)/g, (_, n: string) => (order.push(Number(n) - 1), '?'));
  return { sql, bind: (values) => order.map((i) => values[i]) };
}

function sqliteQueries(): Queries {
  const db = openSqlite(sqlitePath(url));
  const prepare = (text: string) => {
    const { sql, bind } = positional(text);
    const stmt = db.prepare(sql);
    return { get: (...values: unknown[]) => stmt.get(...bind(values)), all: (...values: unknown[]) => stmt.all(...bind(values)) };
  };
  const point = prepare(POINT);
  const page = prepare(PAGE);
  const insert = prepare(INSERT);
  const { groupCommit } = connect(url);
  const grouped = positional(INSERT);
  const insertValues = (email: string) => [campaignId, email, newReferralCode(), Date.now(), 'api'];
  return {
    point: async (email) => point.get(campaignId, email),
    page: async () => page.all(campaignId),
    insert: async (email) => insert.get(...insertValues(email)),
    insertGrouped: async (email) => (await groupCommit!.unit((write) => write(CompiledQuery.raw(grouped.sql, grouped.bind(insertValues(email)))))).rows[0],
  };
}

function postgresQueries(): Queries {
  const pool = new pg.Pool({ connectionString: driverUrl(url), max: DEFAULT_POOL_SIZE });
  // Named statements are prepared once per connection, as the fastest client would; through PgBouncer
  // (pgbouncer=true) they run unnamed, as the service's do there.
  const named = !behindTransactionPooler(url);
  const one = async (name: string, text: string, values: unknown[]) => (await pool.query(named ? { name, text, values } : { text, values })).rows;
  return {
    point: async (email) => (await one('point', POINT, [campaignId, email]))[0],
    page: () => one('page', PAGE, [campaignId]),
    insert: async (email) => (await one('insert', INSERT, [campaignId, email, newReferralCode(), Date.now(), 'api']))[0],
  };
}

const q = dialectOf(url) === 'postgres' ? postgresQueries() : sqliteQueries();
const app = Fastify({ logger: false });
app.get('/json', async () => ({ ok: true, service: 'baseline' }));
app.get<{ Querystring: { email: string } }>('/point', async (request) => q.point(request.query.email));
app.get('/page', async () => q.page());
app.post<{ Body: { email: string } }>('/insert', async (request) => q.insert(request.body.email));
if (q.insertGrouped) {
  const insertGrouped = q.insertGrouped;
  app.post<{ Body: { email: string } }>('/insert-grouped', async (request) => insertGrouped(request.body.email));
}
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`baseline listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
