/**
 * What a load costs the PostgreSQL server itself, beside the service's own CPU: the CPU time of the
 * backends serving the benchmark's database (their /proc/<pid>/stat, when the server runs on this
 * machine) and the write-ahead log its transactions wrote. The server is shared (other test runs write to
 * it at the same time), so the WAL is counted by reading the log itself with pg_waldump: the records that
 * touch a relation of this database, and every record of a transaction that did (its commit). The plain
 * difference of pg_current_wal_lsn() is kept beside it: on a quiet server the two agree.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { processCpuMs } from './servers.js';

const run = promisify(execFile);

export interface PgWindow {
  /** CPU time the database's backends used since the window opened, in ms (undefined when not on this machine). */
  backendCpuMs?: number;
  /** WAL bytes of this database's transactions (undefined when pg_waldump could not read the log). */
  walBytes?: number;
  /** The server's whole WAL over the window (every database's). */
  walBytesAll: number;
}

export interface PgObserver {
  /** Opens a measured window: the backends' CPU and the WAL position now. */
  open(): Promise<() => Promise<PgWindow>>;
  close(): Promise<void>;
}

const cpuOf = (pid: number): number | undefined => {
  try {
    return processCpuMs(pid);
  } catch {
    return undefined;
  }
};

export async function observePostgres(url: string): Promise<PgObserver> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const one = async <T>(text: string): Promise<T> => (await client.query(text)).rows[0] as T;
  const { oid, dir, me } = await one<{ oid: number; dir: string | null; me: number }>(
    `select (select oid from pg_database where datname = current_database()) as oid,
            current_setting('data_directory', true) as dir, pg_backend_pid() as me`,
  );
  const backends = async () => (await client.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and pid <> $1`, [me])).rows.map((r) => r.pid);
  const lsn = async () => (await one<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).lsn;
  return {
    async open() {
      const before = new Map<number, number | undefined>((await backends()).map((pid) => [pid, cpuOf(pid)]));
      const from = await lsn();
      return async () => {
        const to = await lsn();
        const { diff } = await one<{ diff: string }>(`select pg_wal_lsn_diff('${to}', '${from}')::text as diff`);
        let backendCpuMs: number | undefined = 0;
        for (const pid of await backends()) {
          const now = cpuOf(pid);
          // A backend born in the window counts from nothing; one not readable here means another machine.
          if (now === undefined) backendCpuMs = undefined;
          else if (backendCpuMs !== undefined) backendCpuMs += now - (before.get(pid) ?? 0);
        }
        return { backendCpuMs, walBytes: dir === null ? undefined : await walOf(`${dir}/pg_wal`, oid, from, to), walBytesAll: Number(diff) };
      };
    },
    close: () => client.end(),
  };
}

const WALDUMP = ['/usr/lib/postgresql/17/bin/pg_waldump', '/usr/lib/postgresql/16/bin/pg_waldump', '/usr/lib/postgresql/15/bin/pg_waldump', 'pg_waldump'];

/** The WAL bytes between two positions that belong to database `oid`, by pg_waldump; undefined when it cannot read them. */
async function walOf(walDir: string, oid: number, from: string, to: string): Promise<number | undefined> {
  for (const bin of WALDUMP) {
    let text: string;
    try {
      text = (await run(bin, ['-p', walDir, '-s', from, '-e', to], { maxBuffer: 1 << 30 })).stdout;
    } catch {
      continue;
    }
    // rmgr: Heap  len (rec/tot):  54/ 258, tx:  747, lsn: ..., desc: ..., blkref #0: rel 1663/<db>/<relation> blk 0
    const records = text.split('\n').map((line) => ({ total: Number(/len \(rec\/tot\):\s*\d+\/\s*(\d+)/.exec(line)?.[1] ?? 0), tx: /tx:\s*(\d+)/.exec(line)?.[1], mine: line.includes(`rel 1663/${oid}/`) }));
    const transactions = new Set(records.filter((r) => r.mine && r.tx !== '0').map((r) => r.tx));
    return records.filter((r) => r.mine || (r.tx !== '0' && transactions.has(r.tx))).reduce((sum, r) => sum + r.total, 0);
  }
  return undefined;
}
