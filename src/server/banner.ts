/**
 * What `refkit serve` prints once it listens: where everything is, and the commands that make what is
 * still missing (an owner, a key). Those commands act on the database of DATABASE_URL, so they carry
 * this service's: a command run without it would make the owner in another database (the SQLite default)
 * and sign-in here would fail.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Config } from './config.js';
import { hasPassword, maskedDatabaseUrl } from './database-url.js';
import { DEMO_CAMPAIGN_ID } from './seed.js';

/** A word the shell reads as itself: as it is when plain, else in single quotes. */
const shellWord = (word: string) => (/^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The service's DATABASE_URL as another directory's command would need it: a relative SQLite path made absolute. */
function portableUrl(url: string): string {
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
  if (path === undefined || path === ':memory:' || isAbsolute(path)) return url;
  return `sqlite:${resolve(path)}`;
}

/**
 * A CLI command line for this service's database. Without a password in its URL, the command line
 * carries DATABASE_URL; with one, it is never printed: the line says to export it (shown masked).
 */
export function cliHint(config: Pick<Config, 'databaseUrl' | 'cliCommand'>, args: string): string {
  const command = `${config.cliCommand} ${args}`;
  if (hasPassword(config.databaseUrl)) return `export DATABASE_URL (this service's, ${maskedDatabaseUrl(config.databaseUrl)}), then: ${command}`;
  return `DATABASE_URL=${shellWord(portableUrl(config.databaseUrl))} ${command}`;
}

export function printBanner(config: Config, port: number, newKey: string | undefined, workers: number, owners: boolean): void {
  const base = config.port === 0 ? config.publicUrl.replace(/:\d+$/, `:${port}`) : config.publicUrl;
  const key = config.secretKeyHash
    ? 'the value of REFKIT_SECRET_KEY'
    : (newKey ?? `shown at first start only; make another with: ${cliHint(config, 'key create --name dev')}`);
  const lines = [
    '',
    `Refkit is listening on ${base}${workers > 1 ? ` (${workers} workers)` : ''}`,
    `  API:           ${base}/api/v1`,
    `  API docs:      ${base}/api/docs`,
    `  Dashboard:     ${base}/admin/`,
    ...(owners ? [] : [`  No owner yet:  create one to sign in with (it asks for a password): ${cliHint(config, 'user create --email you@example.com')}`]),
    `  Widget:        ${base}/widget/referral-widget.js`,
  ];
  if (config.demo) {
    lines.push(`  Demo page:     ${base}/demo/`, `  Demo campaign: ${DEMO_CAMPAIGN_ID}`, `  Secret key:    ${key}`);
  } else if (!config.secretKeyHash) {
    // Production seeds nothing: the operator's first key comes from the environment or the CLI.
    lines.push(`  Secret key:    none yet: set REFKIT_SECRET_KEY, or run: ${cliHint(config, 'key create --name ops')}`);
  } else {
    lines.push(`  Secret key:    ${key}`);
  }
  process.stdout.write([...lines, ''].join('\n') + '\n');
}
