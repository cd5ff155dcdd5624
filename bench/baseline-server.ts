/**
 * The baselines every route is compared with: bare Fastify answering JSON, and bare Fastify plus exactly
 * one database statement (a point read, a page of 20 rows, an INSERT) through the raw driver with its
 * statement prepared once: the most this machine can do per request on that database. SQLite opens with
 * the service's own pragmas (WAL, synchronous=FULL); PostgreSQL uses a pool of the service's size.
 * Reads DATABASE_URL (migrated and seeded by bench/seed.ts) and BENCH_CAMPAIGN_ID.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { newReferralCode } from '../src/server/domain/referral-codes.js';
import { DEFAULT_POOL_SIZE, dialectOf, openSqlite, sqlitePath } from '../src/server/store/connect.js';

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
}

function sqliteQueries(): Queries {
  const db = openSqlite(sqlitePath(url));
  // better-sqlite3 binds plain `?` in order where pg numbers its parameters: rewrite, and reorder the values.
  const prepare = (text: string) => {
    const order: number[] = [];
    const stmt = db.prepare(text.replace(/\$(\d+)/g, (_, n: string) => (order.push(Number(n) - 1), '?')));
    const bound = (values: unknown[]) => order.map((i) => values[i]);
    return { get: (...values: unknown[]) => stmt.get(...bound(values)), all: (...values: unknown[]) => stmt.all(...bound(values)) };
  };
  const point = prepare(POINT);
  const page = prepare(PAGE);
  const insert = prepare(INSERT);
  return {
    point: async (email) => point.get(campaignId, email),
    page: async () => page.all(campaignId),
    insert: async (email) => insert.get(campaignId, email, newReferralCode(), Date.now(), 'api'),
  };
}

function postgresQueries(): Queries {
  const pool = new pg.Pool({ connectionString: url, max: DEFAULT_POOL_SIZE });
  // Named statements are prepared once per connection, as the fastest client would.
  const one = async (name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows;
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
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`baseline listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
