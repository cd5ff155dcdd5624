/**
 * `refkit settings retention` (read or change how long data is kept, through the account settings
 * routes) and `refkit settings prune` (run the retention pruner once now, as `serve` does every hour).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { jsonOption } from './cli-run.js';
import type { Ctx } from '../kernel/context.js';
import { pruneExpired } from '../privacy/domain/retention.js';

/** Calls one admin route and prints its answer (cli.ts's `admin`). */
export type CallAdmin = (method: 'GET' | 'POST', route: string, body: Record<string, unknown>, json: boolean) => Promise<void>;

function days(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError('Not a whole number of days.');
  return n;
}

interface RetentionOptions {
  ipDays?: number;
  webhookDays?: number;
  emailDays?: number;
  json?: boolean;
}

/** Runs a change on the local database and appends its audit entry as the CLI, `action` being the command (cli-run.ts's `localChange`). */
export type RunChange = (action: string, fn: (ctx: Ctx) => Promise<unknown>, json: boolean) => Promise<void>;

export function addSettingsCommands(program: Command, admin: CallAdmin, local: RunChange): void {
  const settings = program.command('settings').description("the account's settings");
  settings
    .command('retention')
    .description('how many days data is kept (docs/privacy.md#retention); without options, shows them')
    .option('--ip-days <n>', "ipDays: sign-up IP addresses and networks (0: none stored at all)", days)
    .option('--webhook-days <n>', 'webhookDays: delivered webhook events, their deliveries and attempts', days)
    .option('--email-days <n>', 'emailDays: sent, failed and skipped emails of the email log', days)
    .addOption(jsonOption)
    .action((o: RetentionOptions) => {
      const retention = { ipDays: o.ipDays, webhookDays: o.webhookDays, emailDays: o.emailDays };
      const change = Object.values(retention).some((v) => v !== undefined);
      return change ? admin('POST', 'updateAccountSettings', { retention: JSON.parse(JSON.stringify(retention)) }, !!o.json) : admin('GET', 'getAccountSettings', {}, !!o.json);
    });
  settings
    .command('prune')
    .description('prune what is past its retention period now, in batches (serve does it every hour; one process at a time)')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => local('settings prune', (ctx) => pruneExpired(ctx), !!o.json));
}
