/** DATABASE_URL as people are shown it: in printed hints (its password masked) and in a failure to open it. */
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from './config.js';

/** The URL with its password, if any, replaced by ***: safe to print in a banner or a log. */
export function maskedDatabaseUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/**
 * The URL as a command names the database it acts on: the password masked, a relative SQLite path made
 * absolute (sqlite:/srv/app/data/refkit.db), so that the line says which file whatever folder it ran in.
 */
export function shownDatabaseUrl(url: string): string {
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length).replace(/^\/\//, '') : undefined;
  if (path === undefined) return maskedDatabaseUrl(url);
  return path === ':memory:' || isAbsolute(path) ? `sqlite:${path}` : `sqlite:${resolve(path)}`;
}

/** True when the URL carries a password: a printed hint then says to export it rather than showing it. */
export function hasPassword(url: string): boolean {
  return maskedDatabaseUrl(url) !== url;
}

/**
 * The one line a person needs when the database cannot be opened for a reason they must fix (it does
 * not exist, nothing listens there): a ConfigError, printed without a stack trace. Other failures are
 * returned as they are.
 */
export function databaseOpenError(err: unknown, url: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (!/^postgres(ql)?:\/\//.test(url)) return err;
  const shown = maskedDatabaseUrl(url);
  if (code === '3D000') {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    return new ConfigError(
      `the PostgreSQL database "${name}" of DATABASE_URL (${shown}) does not exist: create it first, e.g. createdb ${name} (or CREATE DATABASE "${name}"; in psql)`,
    );
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError(`cannot reach PostgreSQL at DATABASE_URL (${shown}): ${(err as Error).message}. Is it running, and is the host right?`);
  }
  return err;
}
