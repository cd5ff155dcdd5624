/**
 * A PostgreSQL cluster and a Redis of a test's own, on free loopback ports, that the test may stop,
 * restart and start again: the shared ones (127.0.0.1:5432, :6379) serve other test files running at the
 * same time and are never touched. Their programs are the machine's (test/requirements.ts).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { postgresBinDir, postgresUser } from '../../requirements.js';
import { freePort } from './receiver.js';

const run = promisify(execFile);

/**
 * A reason to skip outside CI (test/requirements.ts's postgresServerProblem, or its check of redis-server);
 * under CI a missing program fails the test instead (nothing may be skipped there).
 */
export function skipUnlessCi(problem: string | undefined): string | undefined {
  if (problem !== undefined && process.env.CI) throw new Error(`${problem} (CI must run this test)`);
  return problem;
}

export interface OwnPostgres {
  port: number;
  /** The URL of database `name` in the cluster. */
  url(name: string): string;
  /** `pg_ctl restart -m fast`: sessions are ended, the server stops and starts again. */
  restart(): Promise<void>;
  /**
   * `pg_ctl stop -m fast`, or `-m immediate`: every backend ends at once, with no chance to finish what it
   * was doing (a statement whose lock was just let go by a session the fast stop ended first can still commit).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediately) and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * initdb into a temporary folder and start postgres on a free port. PostgreSQL refuses to run as root:
 * as root (the tests' CI), the programs run as user postgres (runuser), owning the folder.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'refkit-own-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, postgresUser()!.uid, postgresUser()!.gid);
  const as = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const data = join(dir, 'data');
  const port = await freePort();
  // fsync off: these restarts end the server, not the machine, so a commit is in the OS's cache either way.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (...args: string[]) => as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', ...args]);
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-locale', '-E', 'UTF8']);
  await ctl('-o', options, 'start');
  const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const client = new pg.Client({ connectionString: url('postgres') });
  await client.connect();
  await client.query('create database refkit');
  await client.end();
  return {
    port,
    url,
    restart: async () => void (await ctl('-m', 'fast', '-o', options, 'restart')),
    stop: async (mode = 'fast') => void (await ctl('-m', mode, 'stop')),
    start: async () => void (await ctl('-o', options, 'start')),
    async destroy() {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: gone at once, as a crashed or unplugged Redis). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty (nothing is saved). */
  start(): Promise<void>;
}

/** `redis-server` on a free port, as a child process, with nothing saved to disk. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = server;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        out += c.toString();
        if (/Ready to accept connections/.test(out)) resolve();
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)));
    });
  };
  const kill = async () => {
    const server = child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, start };
}
