/**
 * The measured servers, each in a process of its own: the service itself (the built `refkit serve`,
 * rate limits off) and the bare Fastify baseline (bench/baseline-server.ts). Both announce `listening on <url>`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Server {
  url: string;
  /** CPU time (user + system) the server's process has used so far, in milliseconds. */
  cpuMs(): number;
  /** SIGTERM, and the exit; the service then writes its CPU profile when it runs with --cpu-prof. */
  stop(): Promise<void>;
}

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every common build). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process, read from /proc (fields 14 and 15, counted after the command's closing parenthesis). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

async function launch(script: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  // TypeScript sources (the baseline) run through tsx; the service runs as built, as it is deployed.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...loader, script, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]!.replace('localhost', '127.0.0.1'));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening:\n${log}`)));
  });
  return {
    url,
    cpuMs: () => processCpuMs(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let built = false;
/**
 * The built service (dist/), rebuilt first when a source changed since the last build; or, with `cli`,
 * another build of it (another revision's, bench/compare.ts).
 */
export function startService(databaseUrl: string, nodeArgs: string[] = [], cli?: string, env: Record<string, string> = {}): Promise<Server> {
  if (!built && cli === undefined) {
    execFileSync(process.execPath, [path('../scripts/build-if-stale.js')], { cwd: path('..'), stdio: 'ignore' });
    built = true;
  }
  return launch(cli ?? path('../dist/server/cli.js'), ['serve'], { DATABASE_URL: databaseUrl, TRUST_PROXY: '1', RATE_LIMIT_PER_IP: '0', RATE_LIMIT_SIGNUPS_PER_IP: '0', RATE_LIMIT_SIGNUPS_PER_CAMPAIGN: '0', RATE_LIMIT_KEY_FAILURES_PER_IP: '0', ...env }, nodeArgs);
}

export function startBaseline(databaseUrl: string, campaignId: string, nodeArgs: string[] = []): Promise<Server> {
  return launch(path('./baseline-server.ts'), [], { DATABASE_URL: databaseUrl, BENCH_CAMPAIGN_ID: campaignId }, nodeArgs);
}
