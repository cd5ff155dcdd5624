/**
 * `npm run bench -- --backtest`: the offer backtest (src/server/rewards/domain/backtest.ts) over a campaign of
 * 100,000 participants (10,000 referrers with 9 referees each) and 1,000,000 ledger entries (each
 * referral's two fixed rewards, a commission on each of 720,000 payments, 100,000 redemptions), made by
 * the database itself; every 50th payment refunded (a day later, its date recorded). It times POST
 * /api/v1/admin/backtestRules through the service, three runs after a warm-up, on each database kind.
 */
import { sql } from 'kysely';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { startService, type TestService } from '../test/server/helpers/service.js';
import { DAY_MS } from '../src/server/kernel/time.js';
import { machine, ms, table, writeSection } from './report.js';

const REFERRERS = 10_000;
const PER_REFERRER = 9;
const PAYMENTS_EACH = 8;
const REFEREES = REFERRERS * PER_REFERRER;
const PAYMENTS = REFEREES * PAYMENTS_EACH;
const REDEMPTIONS = 1_000_000 - 2 * REFEREES - PAYMENTS;
const RUNS = 3;

function numbers(s: TestService, n: number) {
  return s.ctx.store.dialect === 'postgres'
    ? sql`with n(i) as (select generate_series(1, ${sql.lit(n)})::bigint)`
    : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)})`;
}

/** The campaign's history, a year long: referrers, referees (one credit each), their payments and commissions, redemptions. */
export async function seed(s: TestService, id: string, t0: number, log: (line: string) => void = () => {}): Promise<void> {
  const { db } = s.ctx.store;
  const postgres = s.ctx.store.dialect === 'postgres';
  let mark = performance.now();
  /** Logs how long each step took: where a slow seeding spends its time. */
  const step = (what: string) => {
    log(`[${s.ctx.store.dialect}] seed: ${what} ${((performance.now() - mark) / 1000).toFixed(1)} s`);
    mark = performance.now();
  };
  const c = sql.lit(id);
  const t = sql.lit(t0);
  const day = sql.lit(DAY_MS);
  await sql`${numbers(s, REFERRERS)} insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source, total_referrals)
    select ${c}, 'r' || i || '@bench.example', 'r' || i || '@bench.example', 'R' || i, ${t}, ${t}, 'api', ${sql.lit(PER_REFERRER)} from n`.execute(db);
  step('referrers');
  const first = sql`(select min(id) from participants where campaign_id = ${c})`;
  const [r0] = (await sql<{ id: number }>`select ${first} as id`.execute(db)).rows;
  const referrer0 = sql.lit(Number(r0!.id));
  // Payments get their ids here (the first after any there are), so that each row is written once, with
  // its link in its payer's chain (migration 0021), and each payer with the end of their chain.
  const [top] = (await sql<{ id: number | string | null }>`select max(id) as id from payments`.execute(db)).rows;
  const pay0 = Number(top?.id ?? 0) + 1;
  // Referee i joins on day i % 330 and is credited then; referrer = the (i % REFERRERS)th; their payments
  // are pay0 + 8(i - 1) on. On SQLite the payments' trigger (payments_payer) sets their count and last.
  const chainEnd = postgres ? sql`${sql.lit(pay0)} + i * ${sql.lit(PAYMENTS_EACH)} - 1, ${sql.lit(PAYMENTS_EACH)}` : sql`null, 0`;
  await sql`${numbers(s, REFEREES)} insert into participants (campaign_id, email, email_key, code, created_on, updated_on, signup_source, referred_by_id, referred_by_code, reward_event_completed, reward_credited, last_payment_id, payment_count)
    select ${c}, 'f' || i || '@bench.example', 'f' || i || '@bench.example', 'F' || i, ${t} + (i % 330) * ${day}, ${t}, 'api', ${referrer0} + (i % ${sql.lit(REFERRERS)}), 'R', 1, 1, ${chainEnd} from n`.execute(db);
  step('referees');
  const referee0 = sql.lit(Number(r0!.id) + REFERRERS);
  const credited = sql`${t} + (i % 330) * ${day} + 1`;
  await sql`${numbers(s, REFEREES)} insert into reward_entries (participant_id, kind, reward_kind, amount, status, available_on, label, referee_id, created_on)
    select ${referee0} + i - 1, 'referee', 'referee', 5, 'available', ${credited}, 'bench', ${referee0} + i - 1, ${credited} from n`.execute(db);
  step('referee credits');
  await sql`${numbers(s, REFEREES)} insert into reward_entries (participant_id, kind, reward_kind, amount, status, available_on, label, referee_id, created_on)
    select ${referrer0} + (i % ${sql.lit(REFERRERS)}), 'referral', 'referral', 10, 'available', ${credited}, 'bench', ${referee0} + i - 1, ${credited} from n`.execute(db);
  step('referral credits');
  // Payment i: the referee (i - 1) / 8 + 1's (seq (i - 1) % 8 + 1), a week apart; every 50th refunded in full.
  const payer = sql`(i - 1) / ${sql.lit(PAYMENTS_EACH)}`;
  const paidOn = sql`${t} + ((${payer} + 1) % 330) * ${day} + 2 + ((i - 1) % ${sql.lit(PAYMENTS_EACH)}) * 7 * ${day}`;
  await sql`${numbers(s, PAYMENTS)} insert into payments (id, prev_id, participant_id, seq, amount_cents, refunded_cents, qualifying, commission_credited, commission, paid_on)
    select ${sql.lit(pay0)} + i - 1, case when (i - 1) % ${sql.lit(PAYMENTS_EACH)} > 0 then ${sql.lit(pay0)} + i - 2 end,
      ${referee0} + ${payer}, (i - 1) % ${sql.lit(PAYMENTS_EACH)} + 1, 2999, case when i % 50 = 0 then 2999 else 0 end, case when i % 8 = 1 then 1 else 0 end, 1, 5, ${paidOn} from n`.execute(db);
  if (postgres) await sql`select setval(pg_get_serial_sequence('payments', 'id'), ${sql.lit(pay0 + PAYMENTS - 1)})`.execute(db);
  step('payments');
  await sql`${numbers(s, PAYMENTS)} insert into reward_entries (participant_id, kind, reward_kind, amount, status, available_on, label, referee_id, payment_id, created_on)
    select ${referrer0} + ((${payer} + 1) % ${sql.lit(REFERRERS)}), 'commission', 'referral', 5, 'available', ${paidOn}, 'bench', ${referee0} + ${payer}, ${sql.lit(pay0)} + i - 1, ${paidOn} from n`.execute(db);
  step('commissions');
  await sql`${numbers(s, REDEMPTIONS)} insert into reward_entries (participant_id, kind, reward_kind, amount, status, available_on, label, created_on)
    select ${referrer0} + (i % ${sql.lit(REFERRERS)}), 'redemption', 'referral', -1, 'available', ${sql.lit(t0 + 340 * DAY_MS)}, 'bench', ${sql.lit(t0 + 340 * DAY_MS)} from n`.execute(db);
  step('redemptions');
  // Each refund dated (migration 0029) a day after its payment, as refundPayment records it.
  await sql`insert into refunds (campaign_id, payment_id, cents, refunded_on)
    select ${c}, pay.id, pay.refunded_cents, pay.paid_on + ${day} from payments pay where pay.id >= ${sql.lit(pay0)} and pay.refunded_cents > 0 order by pay.id`.execute(db);
  step('refunds');
  if (postgres) await sql`analyze`.execute(db);
  step('analyze');
}

interface Row {
  kind: string;
  entries: number;
  seedS: number;
  runs: number[];
}

async function measure(kind: DatabaseKind, log: (line: string) => void): Promise<Row> {
  const s = await startService(kind);
  try {
    const id = await s.campaign({ referrerRewardPercent: 20, milestones: [{ referrals: 5, reward: 50, label: 'Five' }], maxReferralReward: 500, holdDays: 30 });
    const t0 = s.ctx.now() - 360 * DAY_MS;
    const start = performance.now();
    await seed(s, id, t0, log);
    const seedS = (performance.now() - start) / 1000;
    const [{ n }] = (await sql<{ n: number }>`select count(*) as n from reward_entries e join participants p on p.id = e.participant_id where p.campaign_id = ${id}`.execute(s.ctx.store.db)).rows as [{ n: number }];
    log(`[${kind.name}] seeded 100,000 participants and ${Number(n).toLocaleString('en')} ledger entries in ${seedS.toFixed(1)} s`);
    const from = new Date(t0).toISOString().slice(0, 7);
    const to = new Date(s.ctx.now()).toISOString().slice(0, 7);
    const body = { id, rules: { referrerRewardValue: 20, referrerRewardPercent: 25, maxReferralReward: 400 }, from, to };
    const warm = await s.admin.backtestRules(body);
    if (warm.total.current.credited === 0) throw new Error('the backtest replayed nothing');
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await s.admin.backtestRules(body);
      runs.push(performance.now() - t);
      log(`[${kind.name}] backtestRules ${ms(runs.at(-1)!)} ms`);
    }
    return { kind: kind.name, entries: Number(n), seedS, runs: runs.sort((a, b) => a - b) };
  } finally {
    await s.close();
  }
}

export async function runBacktest(kinds: DatabaseKind[], command: string, log: (line: string) => void, write: boolean): Promise<void> {
  const header = machine(command);
  log(header);
  const rows: Row[] = [];
  for (const kind of kinds) rows.push(await measure(kind, log));
  const body = [
    header,
    `- One campaign of 100,000 participants (${REFERRERS.toLocaleString('en')} referrers with ${PER_REFERRER} referees each) and 1,000,000 ledger entries (two fixed rewards per referral, a commission on each of ${PAYMENTS.toLocaleString('en')} payments, ${REDEMPTIONS.toLocaleString('en')} redemptions) over a year, every 50th payment refunded a day after it was made (the refund dated); POST /api/v1/admin/backtestRules over the whole year with changed rules (fixed reward, commission, ceiling), through the service over HTTP, ${RUNS} runs after a warm-up. The target is under 2 s. The machine is shared with other work while it runs.`,
    '',
    table(
      ['database', 'ledger entries', 'seeded in', 'backtest: fastest', 'median', 'slowest'],
      rows.map((r) => [r.kind, r.entries.toLocaleString('en'), `${r.seedS.toFixed(1)} s`, `${ms(r.runs[0]!)} ms`, `${ms(r.runs[1]!)} ms`, `${ms(r.runs.at(-1)!)} ms`]),
    ),
  ].join('\n');
  log(`\n${body}`);
  if (write) writeSection('Offer backtest', body);
}
