/**
 * `refkit export --dir DIR` and `refkit apply --dir DIR [--dry-run]`: campaigns as code (docs/config-as-code.md).
 * Export writes the account's campaigns and webhook endpoints as YAML files; apply prints what the files
 * would change, field by field, and (without --dry-run) changes it, all in one transaction.
 */
import type { Command } from 'commander';
import { exportConfig } from '../operations/domain/config-files.js';
import { applyConfig, ConfigRefused, type Change, type Plan, type PlanEntry } from '../operations/domain/config-plan.js';
import { recordAudit } from '../accounts/domain/audit.js';
import { CLI_ACTOR, DEFAULT_ACCOUNT, type Ctx } from '../kernel/context.js';
import { withDatabase, type Run } from './cli-run.js';
import { describeProblem, readConfigDir, writeConfigDir } from './config-yaml.js';
import { privateWebhooksAllowed } from './private-webhooks.js';
import { commandConfig } from './project-database.js';

/** A value in a plan: JSON, cut short when long (the files themselves are what a review reads in full). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

const changeLine = (c: Change) =>
  `    ${c.sign} ${c.field}: ${c.sign === '+' ? shown(c.to) : c.sign === '-' ? `${shown(c.from)} -> ${String(c.to)}` : `${shown(c.from)} -> ${shown(c.to)}`}\n`;

const SIGNS: Record<PlanEntry['action'], string> = { create: '+', change: '~', unchanged: ' ', 'not in config': '?' };
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The plan as terraform prints one: what is created, what changes from what to what, what is left alone. */
export function describePlan(plan: Plan, dryRun: boolean): string {
  let out = '';
  for (const e of plan.entries) {
    out += `${SIGNS[e.action]} ${e.kind} ${e.name}: ${e.action}${e.source && e.action !== 'unchanged' ? ` (${e.source})` : ''}\n`;
    out += e.changes.map(changeLine).join('');
  }
  const n = (action: PlanEntry['action']) => plan.entries.filter((e) => e.action === action).length;
  const created = n('create');
  const changed = n('change');
  if (n('not in config') > 0) out += `Not in config (left as they are): ${count(n('not in config'), 'item')}.\n`;
  if (created + changed === 0) return `${out}No changes.\n`;
  if (dryRun) return `${out}Dry run: ${created} to create, ${changed} to change. Nothing was changed.\n`;
  out += `Applied: ${created} created, ${changed} changed.\n`;
  for (const s of plan.secrets) out += `Signing secret of ${s.url} (shown once, verify with it in your app): ${s.secret}\n`;
  return out;
}

/** The audit log's entries of an apply: one per campaign or endpoint it created or changed, with each field from and to. */
async function recordApplied(ctx: Ctx, plan: Plan): Promise<void> {
  for (const e of plan.entries) {
    if (e.action !== 'create' && e.action !== 'change') continue;
    await recordAudit(ctx, CLI_ACTOR, {
      action: 'apply',
      campaignId: e.campaignId,
      target: `${e.kind} ${e.name}`,
      before: e.action === 'create' ? null : Object.fromEntries(e.changes.map((c) => [c.field, c.from])),
      after: Object.fromEntries(e.changes.map((c) => [c.field, c.to])),
    });
  }
}

export function addConfigCommands(program: Command, run: Run): void {
  program
    .command('export')
    .description('write every campaign and webhook endpoint as YAML files: DIR/campaigns/<id>.yaml, DIR/webhooks/<url>.yaml (never a secret)')
    .requiredOption('--dir <dir>', 'the folder to write (its campaigns/ and webhooks/ are replaced)')
    .action((o: { dir: string }) =>
      withDatabase(run, false, async ({ ctx }) => {
        const config = await exportConfig(ctx, DEFAULT_ACCOUNT);
        const { written, removed } = await writeConfigDir(o.dir, config);
        run.stdout.write(written.map((f) => `wrote ${f}\n`).join('') + removed.map((f) => `removed ${f} (names nothing exported)\n`).join(''));
        run.stdout.write(`Exported ${count(config.campaigns.length, 'campaign')} and ${count(config.webhooks.length, 'webhook endpoint')}.\n`);
      }),
    );
  program
    .command('apply')
    .description('show what the YAML files of DIR change, then change it through the admin rules, in one transaction (a bad file changes nothing)')
    .requiredOption('--dir <dir>', 'the folder export wrote')
    .option('--dry-run', 'show the changes and stop: nothing is changed')
    .action(async (o: { dir: string; dryRun?: boolean }) => {
      const files = await readConfigDir(o.dir);
      if (files.problems.length > 0) {
        run.stderr.write(`${files.problems.map((p) => `${describeProblem(p)}\n`).join('')}Nothing was changed.\n`);
        run.exitCode = 1;
        return;
      }
      await withDatabase(run, false, async ({ ctx }) => {
        try {
          // Its webhook endpoints' targets are checked as `webhook add` checks them.
          const allowPrivate = await privateWebhooksAllowed(run.env, commandConfig(run), ctx);
          const plan = await applyConfig(ctx, DEFAULT_ACCOUNT, files.set, { dryRun: !!o.dryRun, allowPrivate });
          if (!o.dryRun) await recordApplied(ctx, plan);
          run.stdout.write(describePlan(plan, !!o.dryRun));
        } catch (err) {
          if (!(err instanceof ConfigRefused)) throw err;
          run.stderr.write(`${describeProblem(files.problemAt(err.source, err.path, `${err.message} (${err.code})`))}\nNothing was changed.\n`);
          run.exitCode = 1;
        }
      });
    });
}
