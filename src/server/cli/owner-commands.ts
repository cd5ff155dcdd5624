/**
 * `refkit user reset-password` and `refkit user sign-out`: what whoever runs the service can do for an
 * owner who cannot help themselves in the dashboard (a forgotten password, a throttled email, a session
 * left signed in somewhere).
 */
import { Option, type Command } from 'commander';
import { passwordOptions, type PasswordOptions } from './cli-users.js';
import type { Ctx } from '../kernel/context.js';
import { resetOwner, signOutOwner } from '../accounts/domain/owners.js';

/** Runs a domain change against the service's database, writes its audit entry as `action`, and prints its answer (cli-run.ts's `localChange`). */
export type RunLocal = (action: string, fn: (ctx: Ctx) => Promise<{ email: string }>, json: boolean) => Promise<void>;

/** The new password, asked for or read as `user create` does (cli-users.ts, newPassword). */
export type AskPassword = (o: PasswordOptions) => Promise<string>;

export function addOwnerAccountCommands(user: Command, local: RunLocal, askPassword: AskPassword): void {
  passwordOptions(
    user
      .command('reset-password')
      .description("set a new password for an owner (asked for, hidden), forget their email's failed sign-ins, and end every session of theirs")
      .requiredOption('--email <email>'),
  )
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action(async (o: PasswordOptions & { email: string; json?: boolean }) => {
      const password = await askPassword(o);
      await local('user reset-password', (ctx) => resetOwner(ctx, o.email, password), !!o.json);
    });
  user
    .command('sign-out')
    .description('sign an owner out everywhere: every session of theirs ends')
    .requiredOption('--email <email>')
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action((o: { email: string; json?: boolean }) => local('user sign-out', (ctx) => signOutOwner(ctx, o.email), !!o.json));
}
