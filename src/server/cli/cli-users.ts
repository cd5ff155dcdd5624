/**
 * `refkit user ...`: the dashboard's owners. A password is asked for, hidden, at a terminal, or read
 * from stdin with --password-stdin (scripts, `docker compose exec -T`). --password still works for the
 * scripts that used it, with a warning, as `docker login` does: an argument stays in the shell's
 * history and shows in the process list.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { read } from 'read';
import { ConfigError } from '../config.js';
import { CLI_ACTOR } from '../kernel/context.js';
import { createOwner, listOwners } from '../accounts/domain/owners.js';
import { isRole, ROLES, type Role } from '../kernel/roles.js';
import { removeMember } from '../accounts/domain/team.js';
import { MIN_PASSWORD_LENGTH } from '../accounts/domain/passwords.js';
import { jsonOption, local, localChange, type Run } from './cli-run.js';

/** All of a stream, as text. */
async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** What a command that set a password says once it is set (on stderr), never the password. */
export const PASSWORD_SET = 'Password set.\n';

/** How a command that sets a password was told it. */
export interface PasswordOptions {
  passwordStdin?: boolean;
  password?: string;
}

/** The options of a command that sets an owner's password (user create, user reset-password). */
export function passwordOptions(cmd: Command): Command {
  return cmd
    .option('--password-stdin', `read the password (at least ${MIN_PASSWORD_LENGTH} characters) from stdin instead of asking`)
    .option('--password <password>', 'discouraged: it stays in the shell history (leave it out to be asked)');
}

/** The new password: from stdin (its first line), from argv (warned), or from a hidden prompt, typed twice. */
export async function newPassword(run: Run, o: PasswordOptions): Promise<string> {
  if (o.passwordStdin && o.password !== undefined) throw new ConfigError('--password and --password-stdin: give one of them');
  if (o.passwordStdin) return (await readAll(run.stdin)).split(/\r?\n/)[0] ?? '';
  if (o.password !== undefined) {
    run.stderr.write('warning: a password given with --password stays in the shell history; leave it out to be asked, or use --password-stdin\n');
    return o.password;
  }
  if (!run.stdin.isTTY) throw new ConfigError('no terminal to ask for the password on: pipe it in with --password-stdin');
  const ask = (prompt: string) => read({ prompt, silent: true, replace: '', input: run.stdin, output: run.stderr });
  const password = await ask(`Password (at least ${MIN_PASSWORD_LENGTH} characters): `);
  if ((await ask('The same password again: ')) !== password) throw new ConfigError('the two passwords differ; nothing was changed');
  return password;
}

/** A --role value: owner, admin or viewer. */
export function roleOption(value: string): Role {
  if (!isRole(value)) throw new InvalidArgumentError(`Expected one of ${ROLES.join(', ')}.`);
  return value;
}

/** The email of `user create you@example.com` or `user create --email you@example.com`. */
function ownerEmail(given: string | undefined, option: string | undefined): string {
  if (given !== undefined && option !== undefined && given !== option) throw new ConfigError(`two emails given (${given} and --email ${option}): give one`);
  const email = option ?? given;
  if (email === undefined) throw new ConfigError("give the owner's email: refkit user create you@example.com");
  return email;
}

export function userCommands(user: Command, run: Run): void {
  passwordOptions(
    user
      .command('create')
      .description('create an owner of the default account (asks for the password, hidden)')
      .argument('[email]', "the owner's email (or --email)")
      .option('--email <email>')
      .option('--role <role>', `${ROLES.join(', ')} (default owner; docs/team.md)`, roleOption, 'owner'),
  )
    .addOption(jsonOption)
    .action(async (given: string | undefined, o: PasswordOptions & { email?: string; role: Role; json?: boolean }) => {
      const email = ownerEmail(given, o.email);
      const password = await newPassword(run, o);
      await localChange(
        run,
        'user create',
        async ({ ctx }) => {
          const owner = await createOwner(ctx, email, password, CLI_ACTOR, o.role);
          return { id: owner.id, email: owner.email, ...(o.role !== 'owner' && { role: o.role }) };
        },
        (a) => ({ target: a.email, after: { ...a, role: o.role } }),
        !!o.json,
      );
      if (run.exitCode === 0) run.stderr.write(PASSWORD_SET);
    });
  user
    .command('list')
    .description('list the owners of the default account')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => local(run, ({ ctx }) => listOwners(ctx), !!o.json, 'No owners yet.'));
  user
    .command('remove')
    .description('remove an owner; their dashboard sessions end at once')
    .requiredOption('--email <email>')
    .addOption(jsonOption)
    .action((o: { email: string; json?: boolean }) =>
      localChange(run, 'user remove', ({ ctx }) => removeMember(ctx, CLI_ACTOR, o.email), (a) => ({ target: a.email }), !!o.json),
    );
}
