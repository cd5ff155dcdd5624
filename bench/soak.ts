/**
 * `npm run bench -- --soak`: new referred sign-ups on PostgreSQL for minutes on end, with autovacuum off
 * on every table of the run's schema (a server whose autovacuum lags, or is off, as it is on some), one
 * measurement a minute. A sign-up path that leaves dead rows behind slows as they pile up: each minute's
 * req/s, p99 and the dead rows of the tables that hold any show whether it does; then every table is
 * vacuumed and one more minute measured, the control for the tables' own growth. Writes the Soak section.
 */
import pg from 'pg';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { onFreshPostgres } from './fresh-postgres.js';
import type { Loader, LoadResult } from './loader.js';
import { KIND_TITLES, machine, ms, rps, table, writeSection } from './report.js';
import { PLAN, measureOn, pickRoutes, serviceRoutes } from './routes.js';
import { seed } from './seed.js';
import { startService } from './servers.js';

const CONNECTIONS = 50;
/** The route soaked: sign-ups through 100 share links in turn (each adds a referral to count). */
const ROUTE = 'addParticipant (new, referred, keyless)';

interface Minute {
  result: LoadResult;
  /** Dead rows by table, as the statistics collector last counted them. */
  dead: Record<string, number>;
}

/** The dead and live rows of the schema's tables that have dead ones, most first. */
async function deadRows(client: pg.Client, schema: string): Promise<Record<string, number>> {
  // The statistics collector reports with a delay of up to half a second; asked for a fresh snapshot.
  await client.query('select pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ relname: string; n_dead_tup: string }>(
    'select relname, n_dead_tup from pg_stat_user_tables where schemaname = $1 and n_dead_tup > 0 order by n_dead_tup desc',
    [schema],
  );
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.n_dead_tup)]));
}

function logMinute(log: (line: string) => void, label: string, { result, dead }: Minute): void {
  const deadList = Object.entries(dead).slice(0, 4).map(([t, n]) => `${t} ${n}`).join(', ');
  log(`  ${label.padStart(12)}: ${rps(result.rps).padStart(7)} req/s  p99 ${ms(result.p99)} ms  CPU ${result.cpuMicrosPerRequest?.toFixed(0)} µs/req  dead rows: ${deadList || 'none'}`);
}

export async function runSoak(kind: DatabaseKind, minutes: number, loader: Loader, command: string, log: (line: string) => void, write: boolean): Promise<void> {
  const header = machine(command);
  log(header);
  return onFreshPostgres(kind, async (db, client) => {
    // The test database's URL sets its schema as the connection's search_path.
    const schema = (await client.query<{ schema: string }>('select current_schema() as schema')).rows[0]!.schema;
    const seeded = await seed(db.url, PLAN);
    const { rows: tables } = await client.query<{ tablename: string }>('select tablename from pg_tables where schemaname = $1', [schema]);
    // Autovacuum off for this run's tables whatever the server's setting: the sign-up path alone decides
    // what is left to vacuum, and nothing vacuums it but the service itself.
    for (const { tablename } of tables) await client.query(`alter table "${schema}"."${tablename}" set (autovacuum_enabled = false)`);
    const route = pickRoutes(serviceRoutes(seeded), [ROUTE])[0]!;
    const service = await startService(db.url);
    const taken: Minute[] = [];
    try {
      await measureOn(loader, service, route.load, 5, CONNECTIONS);
      for (let m = 1; m <= minutes; m++) {
        const result = await measureOn(loader, service, route.load, 60, CONNECTIONS);
        const dead = await deadRows(client, schema);
        taken.push({ result, dead });
        logMinute(log, String(m), { result, dead });
      }
      // The control: every table vacuumed, as an autovacuum that keeps up would leave them, then one minute
      // more. As slow as the last minute, and what slowed it is the tables' growth, not their dead rows.
      await client.query(`vacuum`);
      const control = { result: await measureOn(loader, service, route.load, 60, CONNECTIONS), dead: await deadRows(client, schema) };
      logMinute(log, 'after VACUUM', control);
      taken.push(control);
    } finally {
      await service.stop();
    }
    const first = taken[0]!.result.rps;
    const last = taken[minutes - 1]!.result.rps;
    const vacuumed = taken[minutes]!.result.rps;
    const failed = taken.reduce((n, t) => n + t.result.non2xx + t.result.errors, 0);
    const rows = taken.map((t, i) => [
      i < minutes ? String(i + 1) : 'after VACUUM',
      rps(t.result.rps),
      `${(t.result.rps / first).toFixed(2)}x`,
      ms(t.result.p50),
      ms(t.result.p99),
      t.result.cpuMicrosPerRequest?.toFixed(0) ?? '',
      Object.entries(t.dead).slice(0, 3).map(([table, n]) => `${table} ${n.toLocaleString('en')}`).join(', ') || 'none',
    ]);
    const body = [
      header,
      `- ${KIND_TITLES[kind.name]}; ${ROUTE} at ${CONNECTIONS} connections for ${minutes} minutes after 5 s of warm-up, measured a minute at a time; autovacuum off on every table of the run's schema (\`autovacuum_enabled = false\`); the service's database seeded with ${PLAN.participants.toLocaleString('en')} participants. Dead rows are pg_stat_user_tables' n_dead_tup at the end of each minute (the three tables with most).`,
      `- The last minute against the first: ${(last / first).toFixed(2)}x. Then every table of the schema vacuumed (\`VACUUM\`, what an autovacuum that keeps up leaves), and one minute more, the control: ${(vacuumed / first).toFixed(2)}x the first. What the vacuum does not give back is the cost of the tables' growth (${PLAN.participants.toLocaleString('en')} participants to millions), not of dead rows.`,
      '',
      table(['minute', 'req/s', 'of the first', 'p50 ms', 'p99 ms', 'service CPU µs/req', 'dead rows (most first)'], rows),
    ].join('\n');
    log(`\n${body}`);
    if (write) writeSection('Soak', body);
    if (failed > 0) {
      log(`\nFAILED: ${failed} requests did not succeed`);
      process.exitCode = 1;
    }
  });
}
