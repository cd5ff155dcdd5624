/**
 * `npm run bench -- --retention`: the retention pruner (src/server/privacy/domain/retention.ts) through a
 * million old rows (--rows N for another count): 40% participants with sign-up IPs, 15% delivered
 * webhook events (each with a delivery and an attempt: 45% of the rows) and 15% sent emails, made by the
 * database itself. It measures how long pruning them all takes, in how many batches, and what it does to
 * requests meanwhile: sign-ups made one after another while it runs, their latency beside that of the
 * same sign-ups before it started. Service, pruner and client share one process (the pruner's progress
 * is read as it goes), so the latencies include the client's own time, the same before and during.
 */
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { seedOldRows, rowCount, type OldRows } from '../test/server/helpers/retention-seed.js';
import { startService, type TestService } from '../test/server/helpers/service.js';
import { newPruneReport, pruneExpired } from '../src/server/privacy/domain/retention.js';
import { DAY_MS } from '../src/server/kernel/time.js';
import { machine, ms, quantile, table, writeSection } from './report.js';

/** Sign-ups timed before pruning starts: the baseline of the latencies during it. */
const BEFORE = 300;

interface Row {
  kind: string;
  rows: number;
  seedS: number;
  pruneS: number;
  batches: number;
  before: number[];
  during: number[];
}

async function signUp(s: TestService, id: string, email: string): Promise<number> {
  const t = performance.now();
  await s.admin.addParticipant({ id, email });
  return performance.now() - t;
}

async function measure(kind: DatabaseKind, total: number, log: (line: string) => void): Promise<Row> {
  const s = await startService(kind);
  try {
    const id = await s.campaign();
    const hook = (await s.admin.createWebhookEndpoint({ url: 'https://hooks.example/refkit', eventTypes: ['referrer_added'] })).id;
    const rows: OldRows = { participants: Math.round(total * 0.4), webhookEvents: Math.round(total * 0.15), emails: 0 };
    rows.emails = total - rowCount(rows);
    const t0 = performance.now();
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, hook, s.ctx.now() - 400 * DAY_MS, rows, 'o');
    const seedS = (performance.now() - t0) / 1000;
    log(`[${kind.name}] seeded ${total.toLocaleString('en')} rows in ${seedS.toFixed(1)} s`);
    const before: number[] = [];
    for (let i = 0; i < BEFORE; i++) before.push(await signUp(s, id, `before${i}@example.com`));
    const report = newPruneReport();
    const t1 = performance.now();
    const running = pruneExpired(s.ctx, {}, report);
    const during: number[] = [];
    for (let i = 0; !report.done; i++) {
      const took = await signUp(s, id, `during${i}@example.com`);
      if (!report.done) during.push(took);
    }
    await running;
    const pruneS = (performance.now() - t1) / 1000;
    const pruned = report.participantIps + 3 * report.webhookEvents + report.emails;
    if (pruned !== total) throw new Error(`pruned ${pruned} rows of ${total}`);
    log(`[${kind.name}] pruned in ${pruneS.toFixed(1)} s, ${report.batches} batches, ${during.length} sign-ups meanwhile`);
    return { kind: kind.name, rows: total, seedS, pruneS, batches: report.batches, before: before.sort((a, b) => a - b), during: during.sort((a, b) => a - b) };
  } finally {
    await s.close();
  }
}

const latencies = (v: number[]) => `${ms(quantile(v, 0.5))} / ${ms(quantile(v, 0.99))} / ${ms(v.at(-1) ?? 0)}`;

export async function runRetention(kinds: DatabaseKind[], total: number, command: string, log: (line: string) => void, write: boolean): Promise<void> {
  const header = machine(command);
  log(header);
  const results: Row[] = [];
  for (const kind of kinds) results.push(await measure(kind, total, log));
  const body = [
    header,
    `- ${total.toLocaleString('en')} old rows per database (40% participants with a sign-up IP, 15% delivered webhook events with a delivery and an attempt each, 15% sent emails), all past their retention period, pruned by one run in batches of 250 rows on SQLite and 1,000 on PostgreSQL (half as many webhook events); meanwhile sign-ups are made one after another, each waiting for the last (${BEFORE} of them first, before pruning, for the baseline). Latencies in ms: p50 / p99 / max.`,
    '',
    table(
      ['database', 'rows', 'seeded in', 'pruned in', 'rows/s', 'batches', 'sign-ups meanwhile', 'sign-up before', 'sign-up while pruning'],
      results.map((r) => [
        r.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL',
        r.rows.toLocaleString('en'),
        `${r.seedS.toFixed(1)} s`,
        `${r.pruneS.toFixed(1)} s`,
        Math.round(r.rows / r.pruneS).toLocaleString('en'),
        String(r.batches),
        String(r.during.length),
        latencies(r.before),
        latencies(r.during),
      ]),
    ),
  ].join('\n');
  log(`\n${body}`);
  if (write) writeSection('Retention', body);
}
