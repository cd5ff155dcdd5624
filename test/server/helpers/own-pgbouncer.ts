/**
 * A PgBouncer of a test process's own, as the service is deployed behind it (docs/deployment.md#behind-pgbouncer):
 * transaction pooling, on a free loopback port, in front of the shared PostgreSQL. Its program is the
 * machine's (Debian's `pgbouncer`, test/requirements.ts). Each database it serves is an alias whose
 * server sessions start in one schema (`connect_query`): PgBouncer 1.18 refuses the `options` startup
 * parameter the direct test URLs set search_path with, and sessions of one alias are never handed to another.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresUser } from '../../requirements.js';
import { freePort } from './receiver.js';

export interface OwnPgbouncer {
  port: number;
  /**
   * Serves `alias`: PostgreSQL database `database` with search_path set to `schema`; the service's URL for
   * it (which says `pgbouncer=true`). Applied (RELOAD on the admin console) before it returns.
   */
  serve(alias: string, database: string, schema: string): Promise<string>;
  /** Stops the process (SIGKILL: its sessions are dropped with the database anyway) and deletes its files. */
  stop(): void;
}

/** `target`: the PostgreSQL to pool (host, port, user; trust authentication, as the test server has). */
export async function startOwnPgbouncer(target: URL): Promise<OwnPgbouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-own-pgbouncer-'));
  // PgBouncer refuses to run as root: -u makes it switch to user postgres, which must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, postgresUser()!.uid, postgresUser()!.gid);
  const port = await freePort();
  const user = decodeURIComponent(target.username) || 'postgres';
  const ini = join(dir, 'pgbouncer.ini');
  const aliases: string[] = [];
  const write = () =>
    writeFileSync(
      ini,
      [
        '[databases]',
        ...aliases,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        `admin_users = ${user}`,
        'pool_mode = transaction',
        // Test files open many clients at once (several services, CLI processes); the server pays for sessions, not clients.
        'max_client_conn = 1000',
        'default_pool_size = 20',
        'log_connections = 0',
        'log_disconnections = 0',
      ].join('\n'),
    );
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  write();
  const child: ChildProcess = spawn('pgbouncer', [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = () => child.kill('SIGKILL');
  // A test process that ends without stopping it (a failure) must not leave it running.
  process.once('exit', kill);
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      log += c.toString();
      if (/process up/.test(log)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`pgbouncer exited (${code}):\n${log}`)));
  });
  const admin = async (command: string) => {
    const client = new pg.Client({ connectionString: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer` });
    await client.connect();
    try {
      // The admin console speaks the simple query protocol only: a query without parameters.
      await client.query(command);
    } finally {
      await client.end();
    }
  };
  return {
    port,
    async serve(alias, database, schema) {
      aliases.push(`${alias} = host=${target.hostname} port=${target.port || 5432} dbname=${database} connect_query='set search_path to ${schema}'`);
      write();
      await admin('RELOAD');
      return `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${alias}?pgbouncer=true`;
    },
    stop() {
      process.removeListener('exit', kill);
      kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
