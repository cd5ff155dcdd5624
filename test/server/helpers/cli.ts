/**
 * `refkit` command lines run in the test process: the CLI's own program (src/server/cli.ts, runCli) with
 * the environment given and its output captured, as a child process would see them but without starting
 * one. Tests where the process itself matters (signals, several processes at once) use ./process.ts.
 */
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../../src/server/cli.js';

export interface CliResult {
  /** The exit code the process would have. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stdin`: what the command reads from its standard input (not a terminal), e.g. for --password-stdin;
 * `cwd`: the folder it runs in (where it looks for the project's database without DATABASE_URL).
 */
export async function cli(args: string[], env: Record<string, string>, stdin = '', { cwd }: { cwd?: string } = {}): Promise<CliResult> {
  const out = { stdout: '', stderr: '' };
  const capture = (stream: keyof typeof out) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        out[stream] += chunk.toString();
        done();
      },
    });
  const { code } = await runCli(args, { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdin: Readable.from([stdin]), stdout: capture('stdout'), stderr: capture('stderr'), ...(cwd !== undefined && { cwd }) });
  return { code, ...out };
}
