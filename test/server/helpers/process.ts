/**
 * The real service as a child process (`refkit serve`), for restart, crash and multi-process tests, and
 * the CLI run to completion. These start the built CLI (dist/server/cli.js, what `npx refkit` runs):
 * plain JavaScript starts in a fraction of the time tsx needs to compile the sources. The build is
 * brought up to date first (scripts/build-if-stale.js), so a child never runs older code than the tests.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT } from './root.js';
const CLI = fileURLToPath(new URL('../../../dist/server/cli.js', import.meta.url));

execFileSync(process.execPath, ['scripts/build-if-stale.js'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * Every per-client and per-campaign rate limit off: a load test's calls come from one address, and no
 * limit may turn one away (the limits have their own tests: rate-limit.test.ts).
 */
export const NO_RATE_LIMITS = { RATE_LIMIT_PER_IP: '0', RATE_LIMIT_SIGNUPS_PER_IP: '0', RATE_LIMIT_SIGNUPS_PER_CAMPAIGN: '0' } as const;

/**
 * Webhooks for a test: loopback receivers allowed, the outbox polled every 50 ms, retries 200 ms apart, a
 * lease of 1.5 s (so a killed sender's claims come back quickly); `overrides` for a test's own timings.
 */
export function fastWebhooks(overrides: Record<string, string> = {}): Record<string, string> {
  return { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_DELAYS_MS: '200,200,200', WEBHOOK_LEASE_MS: '1500', WEBHOOK_TIMEOUT_MS: '5000', ...overrides };
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the exit; resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Where a child runs (default: this process's folder) and what it reads on its standard input (default: nothing). */
export interface ChildOptions {
  cwd?: string;
  input?: string;
  /** How long `serve` may take to listen (default 20 s; a test starting several on a busy machine may need more). */
  startTimeoutMs?: number;
  /** Another build's dist/server/cli.js (another revision's: the upgrade test); default this checkout's. */
  cli?: string;
}

export function runCli(args: string[], env: Record<string, string>, { cwd, input, cli = CLI }: ChildOptions = {}) {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(cwd !== undefined && { cwd }),
  });
  if (input !== undefined) child.stdin!.end(input);
  return child;
}

export async function startProcess(env: Record<string, string>, args: string[] = [], options: ChildOptions = {}): Promise<ServiceProcess> {
  const child = runCli(['serve', ...args], { PORT: '0', HOST: '127.0.0.1', ...env }, options);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A child that has not started is nobody's to stop (the caller gets no handle): end it here.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${out}`));
    }, options.startTimeoutMs ?? 20_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`service exited:\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a CLI command to completion. */
export function cli(args: string[], env: Record<string, string>, options: ChildOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = runCli(args, env, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** A word for `sh -c`: in single quotes. */
const shellWord = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs a command line at a terminal: a pseudo-terminal made by util-linux `script`, as a person at a
 * shell runs it. Each answer is typed once its prompt has appeared in the output (after the previous
 * answer's), so that it is typed where the program reads it and not echoed by the terminal first.
 * Resolves with the exit code and all the terminal showed.
 */
export function atTerminal(command: string[], env: Record<string, string>, answers: { prompt: RegExp; text: string }[]): Promise<{ code: number | null; output: string }> {
  const child = spawn('script', ['-qec', command.map(shellWord).join(' '), '/dev/null'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  let from = 0;
  const onData = (c: Buffer) => {
    output += c.toString();
    const next = answers[answered];
    if (!next) return;
    const seen = next.prompt.exec(output.slice(from));
    if (!seen) return;
    from += seen.index + seen[0].length;
    answered++;
    child.stdin!.write(`${next.text}\r`);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      child.stdin!.end();
      resolve({ code, output });
    }),
  );
}

/** The built CLI's command line, for atTerminal. */
export const cliCommand = (args: string[]) => [process.execPath, CLI, ...args];
