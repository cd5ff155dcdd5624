/** What every `refkit` command shares: where it reads and writes, how it prints answers, and local calls. */
import { Option } from 'commander';
import type { RowProblem } from '../../api/schemas.js';
import { recordAudit, type AuditRecord } from '../accounts/domain/audit.js';
import { CLI_ACTOR } from '../kernel/context.js';
import { AppError, RowsRefused } from '../kernel/errors.js';
import { openRuntime, type Runtime } from '../runtime.js';
import { commandConfig } from './project-database.js';

/** Where a command line reads its settings and input and writes its output: the process's, or a test's. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  /** Read by commands that take a secret (a password) from a prompt or a pipe, never from argv. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The folder the command runs in, where the project's database is looked for (default: the process's). */
  cwd?: string;
}

/** One command line being run: its io, the exit code a refused command sets, and its database once chosen. */
export interface Run extends CliIo {
  exitCode: number;
  /** The database the command acts on, set (and named on stderr) when it first opens it: ./project-database.ts. */
  databaseUrl?: string;
}

export const jsonOption = new Option('--json', 'print the answer as JSON');

/**
 * `key: value` lines, one blank line between list items: for people; --json is for scripts. An empty
 * list prints `empty` ("No keys yet."), so that no answer looks like a command that did nothing.
 */
export function human(value: unknown, empty = 'None.'): string {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return `${empty}\n`;
  return items.map((item) => Object.entries(item as object).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`).join('')).join('\n');
}

/** Prints an answer: JSON for --json, else for people (with `empty` for an empty list). */
export function printAnswer(run: Run, answer: unknown, json: boolean, empty?: string): void {
  run.stdout.write(json ? `${JSON.stringify(answer, null, 2)}\n` : human(answer, empty));
}

/** The refused rows of an import, one a line: `  line 3, email: email must be an email address`. */
const rowReport = (rows: RowProblem[]) => rows.map((r) => `  line ${r.line}${r.field ? `, ${r.field}` : ''}: ${r.message}\n`).join('');

/**
 * Runs `task` against the command's database (./project-database.ts); a refusal prints its message (and
 * an import's refused rows) and sets exit code 1 (a command that goes on after it reads run.exitCode).
 */
export async function withDatabase(run: Run, json: boolean, task: (runtime: Runtime) => Promise<void>): Promise<void> {
  const runtime = await openRuntime(commandConfig(run));
  try {
    await task(runtime);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const rows = err instanceof RowsRefused ? err.rows : undefined;
    const body = { error: { code: err.code, message: err.message, ...(err.field && { field: err.field }), ...(rows && { rows }) } };
    run.stderr.write(json ? `${JSON.stringify(body)}\n` : `error: ${err.message} (${err.code}${err.field ? `, ${err.field}` : ''})\n${rows ? rowReport(rows) : ''}`);
    run.exitCode = 1;
  } finally {
    await runtime.close();
  }
}

/** Runs a domain call against the command's database and prints its answer; a refusal prints its message and exits 1. */
export function local(run: Run, fn: (runtime: Runtime) => Promise<unknown>, json: boolean, empty?: string): Promise<void> {
  return withDatabase(run, json, async (runtime) => printAnswer(run, await fn(runtime), json, empty));
}

/**
 * A command that changes something without an admin route (those write their own entry): runs `fn`, then
 * appends its audit entry as the CLI, `action` being the command (`user create`). A refusal writes none.
 */
export function localChange<T>(
  run: Run,
  action: string,
  fn: (runtime: Runtime) => Promise<T>,
  what: (answer: T) => Omit<AuditRecord, 'action'>,
  json: boolean,
): Promise<void> {
  return local(run, async (runtime) => {
    const answer = await fn(runtime);
    await recordAudit(runtime.ctx, CLI_ACTOR, { action, ...what(answer) });
    return answer;
  }, json);
}
