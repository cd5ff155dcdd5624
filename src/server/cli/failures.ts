/**
 * How a command line that failed says so: one line on stderr, naming what went wrong and what to do,
 * and exit code 1. The stack trace is for whoever debugs the CLI itself: only with --debug.
 */
import { ConfigError } from '../config.js';
import { databaseOpenError } from '../database-url.js';

/** What a failed system call on a file means to the person who named the file. */
const FILE_ERRORS: Record<string, (path: string) => string> = {
  ENOENT: (path) => `${path}: no such file or folder; check the path`,
  EACCES: (path) => `${path}: permission denied; check who may read and write it`,
  EPERM: (path) => `${path}: permission denied; check who may read and write it`,
  EISDIR: (path) => `${path} is a folder: give a file`,
  ENOTDIR: (path) => `${path}: a part of this path is a file, not a folder; check the path`,
};

/** The error as one line: a message made for people as it is, a file's error said for its file, anything else with the way to its stack. */
function oneLine(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  const { code, path } = (err ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code === 'string' && typeof path === 'string' && FILE_ERRORS[code]) return FILE_ERRORS[code](path);
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
  return `${message} (run again with --debug to see where it failed)`;
}

/**
 * The line (or, with --debug, the stack) for an error no command expected, `databaseUrl` being the
 * database the command opened, if any: a database that does not exist or cannot be reached is said as
 * such, with the URL (password masked).
 */
export function failureReport(err: unknown, { debug, databaseUrl }: { debug: boolean; databaseUrl?: string }): string {
  const said = databaseUrl === undefined ? err : databaseOpenError(err, databaseUrl);
  if (debug) return err instanceof Error ? (err.stack ?? err.message) : String(err);
  return `refkit: ${oneLine(said)}`;
}
