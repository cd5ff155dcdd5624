/** `refkit key ...`: the secret keys of the default account. */
import type { Command } from 'commander';
import { admin } from './admin-calls.js';
import { jsonOption, type Run } from './cli-run.js';

export function addKeyCommands(program: Command, run: Run): void {
  const key = program.command('key').description('secret keys of the default account');
  key
    .command('create')
    .description('create a secret key; it is printed once')
    .requiredOption('--name <text>')
    .option('--test', 'a test key (sk_test_...): sees and makes test campaigns only')
    .addOption(jsonOption)
    .action((o: { name: string; test?: boolean; json?: boolean }) => admin(run, 'POST', 'createApiKey', { name: o.name, ...(o.test && { test: true }) }, !!o.json));
  key
    .command('revoke')
    .description('revoke a secret key by its id (key_...)')
    .requiredOption('--id <keyId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'POST', 'revokeApiKey', { id: o.id }, !!o.json));
  key
    .command('list')
    .description('list secret keys (never the keys themselves)')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin(run, 'GET', 'listApiKeys', {}, !!o.json, 'No keys yet.'));
}
