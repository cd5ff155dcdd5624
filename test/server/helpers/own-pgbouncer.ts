/**
 * A PgBouncer of a test process's own, as the service is deployed behind it (docs/deployment.md#behind-pgbouncer):
 * transaction pooling, on a free loopback port, in front of the shared PostgreSQL. Its program is the
 * machine's (Debian's `pgbouncer`, test/requirements.ts). Each database it serves is an alias whose
 * server sessions start in one schema (`connect_query`): PgBouncer 1.18 refuses the `options` startup
 * parameter the direct test URLs set search_path with, and sessions of one alias are never handed to another.
 * Its settings are docs/deployment.md's pgbouncer.ini, with the address, authentication and files of its own:
 * the documented configuration is the one the suite passes through.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresUser } from '../../requirements.js';
import { freePort } from './receiver.js';
import { ROOT } from './root.js';

/** The `[pgbouncer]` settings of docs/deployment.md's pgbouncer.ini, by name, in their order. */
function documentedSettings(): Map<string, string> {
  const ini = /^```ini\n([\s\S]*?)^```$/m.exec(readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8'))?.[1];
  const section = ini?.split(/^\[pgbouncer\]$/m)[1];
  if (section === undefined) throw new Error("docs/deployment.md has no ```ini block with a [pgbouncer] section");
  const settings = new Map<string, string>();
  for (const line of section.split('\n')) {
    const m = /^(\w+)\s*=\s*(.*)$/.exec(line);
    if (m) settings.set(m[1]!, m[2]!);
  }
  if (settings.get('pool_mode') !== 'transaction') throw new Error('docs/deployment.md\'s pgbouncer.ini must pool per transaction: the suite tests that');
  return settings;
}

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
  const settings = documentedSettings();
  const own = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    // The test PostgreSQL trusts loopback: so does this PgBouncer (the documented scram-sha-256 needs passwords).
    auth_type: 'trust',
    auth_file: join(dir, 'users.txt'),
    admin_users: user,
    log_connections: '0',
    log_disconnections: '0',
  };
  for (const [name, value] of Object.entries(own)) settings.set(name, value);
  const write = () =>
    writeFileSync(ini, ['[databases]', ...aliases, '[pgbouncer]', ...[...settings].map(([name, value]) => `${name} = ${value}`)].join('\n'));
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
  // Running, it must not keep its process alive: the databases are dropped (and it is stopped) at
  // 'beforeExit', which never comes while a child or its pipes hold the event loop (a benchmark hung so).
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref(): void }).unref();
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
