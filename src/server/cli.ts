#!/usr/bin/env node
/**
 * `refkit`: serve the service, migrate, and run the admin contract from a shell. The commands live in
 * ./cli/, one module per group; this file makes the program of them and runs a command line.
 *
 * Every command that opens a database names it on stderr first (`Database: ...`, ./cli/project-database.ts,
 * which also finds the project's database when DATABASE_URL is not set). A failure is one line saying
 * what to do, and exit code 1; its stack trace only with --debug.
 */
import cluster from 'node:cluster';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Help, type Option } from 'commander';
import { localChange, type CliIo, type Run } from './cli/cli-run.js';
import { teamCommands } from './cli/cli-team.js';
import { userCommands } from './cli/cli-users.js';
import { serve } from './serve.js';
import { admin } from './cli/admin-calls.js';
import { addCampaignCommands } from './cli/campaign-commands.js';
import { addConfigCommands } from './cli/config-commands.js';
import { addDatabaseCommands } from './cli/database-commands.js';
import { failureReport } from './cli/failures.js';
import { addKeyCommands } from './cli/key-commands.js';
import { addOwnerAccountCommands } from './cli/owner-commands.js';
import { addParticipantCommands, addRewardCodeCommands } from './cli/participant-commands.js';
import { commandConfig } from './cli/project-database.js';
import { addSettingsCommands } from './cli/settings-commands.js';
import { packageVersion } from './cli/version.js';
import { addWebhookCommands } from './cli/webhook-commands.js';

export type { CliIo } from './cli/cli-run.js';

/**
 * The `refkit` program, writing to and failing through `run`. Made afresh for each command line: commander
 * keeps parsed options on its commands, so one program cannot serve two command lines at once.
 */
function createProgram(run: Run): Command {
  const program = new Command('refkit')
    .description('Refkit referral service')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--debug', 'on a failure, print its stack trace too (any command)')
    .showHelpAfterError()
    // Commander's errors and help end the run with a code instead of the process (subcommands inherit this).
    .exitOverride()
    .configureOutput({ writeOut: (text) => run.stdout.write(text), writeErr: (text) => run.stderr.write(text) })
    // Inherited by every command: the options it cannot run without say so in its --help.
    .configureHelp({
      optionDescription(this: Help, option: Option): string {
        const text = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `(required) ${text}`.trim() : text;
      },
    });

  program
    .command('serve')
    .description('start the service (configured by PORT, HOST, DATABASE_URL, REFKIT_SECRET_KEY, ...)')
    .option('--demo', 'demo mode: seed a fresh database with the demo campaign and a key, serve /demo/ (what npm start runs)')
    // Outside a project it makes ./data/refkit.db, as it always has; a WORKERS process is quiet (its primary named the database).
    .action((o: { demo?: boolean }) => serve(commandConfig(run, { fallback: 'here', ...(o.demo && { demo: true }), quiet: cluster.isWorker })));

  addDatabaseCommands(program, run);
  addConfigCommands(program, run);
  addCampaignCommands(program, run);
  addRewardCodeCommands(program, run);

  const user = program.command('user').description('dashboard owners (sign in at /admin/)');
  userCommands(user, run);
  addOwnerAccountCommands(user, run);
  teamCommands(program, run, { admin: (method, route, body, json, empty) => admin(run, method, route, body, json, empty) });
  addSettingsCommands(
    program,
    (method, route, body, json) => admin(run, method, route, body, json),
    (action, fn, json) => localChange(run, action, ({ ctx }) => fn(ctx), (answer) => ({ after: answer }), json),
  );

  addParticipantCommands(program, run);
  addKeyCommands(program, run);
  addWebhookCommands(program, run);
  return program;
}

/**
 * Runs one `refkit` command line (the arguments after `refkit`) and resolves with its exit code. An error
 * no command expects also resolves, printed, with `fatal`: the process must exit at once, as the command
 * may have left a server or a connection open. The tests run commands through this, in their own process.
 */
export async function runCli(args: string[], io: CliIo): Promise<{ code: number; fatal: boolean }> {
  const run: Run = { ...io, exitCode: 0 };
  const program = createProgram(run);
  try {
    await program.parseAsync(args, { from: 'user' });
    return { code: run.exitCode, fatal: false };
  } catch (err) {
    if (err instanceof CommanderError) return { code: err.exitCode, fatal: false };
    // Read from the arguments too: a failure may come before commander has parsed --debug.
    const debug = program.opts<{ debug?: boolean }>().debug === true || args.includes('--debug');
    io.stderr.write(`${failureReport(err, { debug, ...(run.databaseUrl !== undefined && { databaseUrl: run.databaseUrl }) })}\n`);
    return { code: 1, fatal: true };
  }
}

/** `refkit` as a process: its arguments, environment and output. */
export function main(): void {
  void runCli(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(({ code, fatal }) => {
    if (fatal) process.exit(code);
    process.exitCode = code;
  });
}

/** Started as the program itself (`node dist/server/cli.js`, tsx, a cluster worker); bin/refkit.js calls main(). */
function startedAsProgram(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}
if (startedAsProgram()) main();
