/**
 * `refkit user reset-password` and `refkit user sign-out`: what whoever runs the service can do for an
 * owner who cannot help themselves in the dashboard (a forgotten password, a throttled email, a session
 * left signed in somewhere).
 */
import { Option, type Command } from 'commander';
import { newPassword, passwordOptions, PASSWORD_SET, type PasswordOptions } from './cli-users.js';
import { resetOwner, signOutOwner } from '../accounts/domain/owners.js';
import { localChange, type Run } from './cli-run.js';

export function addOwnerAccountCommands(user: Command, run: Run): void {
  passwordOptions(
    user
      .command('reset-password')
      .description("set a new password for an owner (asked for, hidden), forget their email's failed sign-ins, and end every session of theirs")
      .requiredOption('--email <email>'),
  )
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action(async (o: PasswordOptions & { email: string; json?: boolean }) => {
      const password = await newPassword(run, o);
      await localChange(run, 'user reset-password', ({ ctx }) => resetOwner(ctx, o.email, password), (a) => ({ target: a.email, after: a }), !!o.json);
      if (run.exitCode === 0) run.stderr.write(PASSWORD_SET);
    });
  user
    .command('sign-out')
    .description('sign an owner out everywhere: every session of theirs ends')
    .requiredOption('--email <email>')
    .addOption(new Option('--json', 'print the answer as JSON'))
    .action((o: { email: string; json?: boolean }) =>
      localChange(run, 'user sign-out', ({ ctx }) => signOutOwner(ctx, o.email), (a) => ({ target: a.email, after: a }), !!o.json),
    );
}
