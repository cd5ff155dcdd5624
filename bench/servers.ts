/**
 * The measured servers, each in a process of its own: the service itself (`refkit serve`, rate limits
 * off) and the bare Fastify baseline (bench/baseline-server.ts). Both announce `listening on <url>`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface Server {
  url: string;
  /** SIGTERM, and the exit; the service then writes its CPU profile when it runs with --cpu-prof. */
  stop(): Promise<void>;
}

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

async function launch(script: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], {
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
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function startService(databaseUrl: string, nodeArgs: string[] = []): Promise<Server> {
  return launch(path('../src/server/cli.ts'), ['serve'], { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_IP: '0', RATE_LIMIT_SIGNUPS_PER_CAMPAIGN: '0', RATE_LIMIT_KEY_FAILURES_PER_IP: '0' }, nodeArgs);
}

export function startBaseline(databaseUrl: string, campaignId: string): Promise<Server> {
  return launch(path('./baseline-server.ts'), [], { DATABASE_URL: databaseUrl, BENCH_CAMPAIGN_ID: campaignId });
}
