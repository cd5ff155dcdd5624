/**
 * `refkit user reset-password` and `refkit user sign-out`: what whoever runs the service can do for an
 * owner who cannot help themselves in the dashboard (a forgotten password, a throttled email, a session
 * left signed in somewhere).
 */
import { Option, type Command } from 'commander';
import type { Ctx } from './domain/context.js';
import { resetOwner, signOutOwner } from './domain/owners.js';

/** Runs a domain call against the service's database and prints its answer (cli.ts's `local`). */
export type RunLocal = (fn: (ctx: Ctx) => Promise<unknown>, json: boolean) => Promise<void>;

export function addOwnerAccountCommands(user: Command, local: RunLocal): void {
  user
    .command('reset-password')
    .description("set a new password for an owner, forget their email's failed sign-ins, and end every session of theirs")
    .requiredOption('--email <email>')
    .requiredOption('--password <password>', 'the new password, at least 10 characters')
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action((o: { email: string; password: string; json?: boolean }) => local((ctx) => resetOwner(ctx, o.email, o.password), !!o.json));
  user
    .command('sign-out')
    .description('sign an owner out everywhere: every session of theirs ends')
    .requiredOption('--email <email>')
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action((o: { email: string; json?: boolean }) => local((ctx) => signOutOwner(ctx, o.email), !!o.json));
}
