/**
 * `refkit team ...` (members, roles, invitations) and `refkit audit ...` (the audit log). The CLI acts as
 * the machine's operator, an owner of the default account (docs/team.md). Changes go through the admin
 * routes, which write their audit entries, but `team invite`: it prints the link itself (the operator
 * hands it over, with or without SMTP_URL), so it writes its own entry.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { exportAuditLog } from '../accounts/domain/audit.js';
import { CLI_ACTOR } from '../kernel/context.js';
import type { Role } from '../kernel/roles.js';
import { inviteMember } from '../accounts/domain/team.js';
import { jsonOption, localChange, withDatabase, type Run } from './cli-run.js';
import { roleOption } from './cli-users.js';
import { commandConfig } from './project-database.js';

/** Calls one admin route in process as the CLI and prints its answer (cli.ts's `admin`). */
export type CallAdmin = (method: 'GET' | 'POST', route: string, body: Record<string, unknown>, json: boolean, empty?: string) => Promise<void>;

interface AuditOptions {
  actor?: string;
  action?: string;
  campaign?: string;
  from?: string;
  to?: string;
}

function auditFilters(cmd: Command): Command {
  return cmd
    .option('--actor <who>', "an email, a key's prefix, or cli")
    .option('--action <action>', 'an operation id (updateCampaign) or a CLI command (user create)')
    .option('--campaign <campaignId>')
    .option('--from <date-time>', 'entries at or after this instant (ISO 8601)')
    .option('--to <date-time>', 'entries before this instant (ISO 8601)');
}
const filterFields = (o: AuditOptions) => ({ actor: o.actor, action: o.action, campaignId: o.campaign, from: o.from, to: o.to });

export function teamCommands(program: Command, run: Run, { admin }: { admin: CallAdmin }): void {
  const team = program.command('team').description('members of the default account, their roles (owner, admin, viewer) and invitations');
  team
    .command('list')
    .description('the members and their roles')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin('GET', 'listMembers', {}, !!o.json, 'No members yet.'));
  team
    .command('invite')
    .description('invite someone with a role; prints the link to join (it works once, within 7 days), and emails it too when SMTP_URL is set')
    .requiredOption('--email <email>')
    .requiredOption('--role <role>', 'owner, admin or viewer', roleOption)
    .addOption(jsonOption)
    .action((o: { email: string; role: Role; json?: boolean }) =>
      localChange(
        run,
        'team invite',
        ({ ctx }) => inviteMember(ctx, CLI_ACTOR, o, commandConfig(run).publicUrl, 'return'),
        ({ link: _link, ...invitation }) => ({ target: invitation.email, after: invitation }),
        !!o.json,
      ),
    );
  team
    .command('invitations')
    .description('the open invitations')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin('GET', 'listInvitations', {}, !!o.json, 'No open invitations.'));
  team
    .command('revoke-invitation')
    .description('revoke an open invitation: its link stops working')
    .requiredOption('--id <invitationId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin('POST', 'revokeInvitation', { id: o.id }, !!o.json));
  team
    .command('set-role')
    .description("change a member's role (the last owner stays an owner)")
    .requiredOption('--email <email>')
    .requiredOption('--role <role>', 'owner, admin or viewer', roleOption)
    .addOption(jsonOption)
    .action((o: { email: string; role: Role; json?: boolean }) => admin('POST', 'changeMemberRole', { email: o.email, role: o.role }, !!o.json));
  team
    .command('remove')
    .description('remove a member; their sessions end at once and their invitations are revoked (the last owner cannot be removed)')
    .requiredOption('--email <email>')
    .option('--revoke-keys', 'also revoke the secret keys they made')
    .addOption(jsonOption)
    .action((o: { email: string; revokeKeys?: boolean; json?: boolean }) => admin('POST', 'removeMember', { email: o.email, ...(o.revokeKeys && { revokeKeys: true }) }, !!o.json));

  const audit = program.command('audit').description('the audit log: every change made through the dashboard, the admin API or the CLI');
  auditFilters(audit.command('list').description('entries, newest first'))
    .option('--page-size <n>', 'how many (default 20, at most 100)')
    .addOption(jsonOption)
    .action((o: AuditOptions & { pageSize?: string; json?: boolean }) => admin('GET', 'listAuditLog', { ...filterFields(o), pageSize: o.pageSize }, !!o.json, 'No entries.'));
  auditFilters(audit.command('export').description('entries as CSV, oldest first'))
    .option('--output <file>', 'write to this file instead of standard output')
    .action((o: AuditOptions & { output?: string }) =>
      withDatabase(run, false, async ({ ctx }) => {
        const csv = exportAuditLog(ctx, CLI_ACTOR, {
          ...(o.actor !== undefined && { actor: o.actor }),
          ...(o.action !== undefined && { action: o.action }),
          ...(o.campaign !== undefined && { campaignId: o.campaign }),
          ...(o.from !== undefined && { from: o.from }),
          ...(o.to !== undefined && { to: o.to }),
        });
        if (o.output) await pipeline(csv, createWriteStream(o.output));
        else await pipeline(csv, run.stdout, { end: false });
      }),
    );
}
