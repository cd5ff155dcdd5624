/** `refkit campaign ...` (create, change, list campaigns) and `refkit clock ...` (a test campaign's time). */
import { Option, type Command } from 'commander';
import type { CampaignSettings } from '../../api/schemas.js';
import { ConfigError } from '../config.js';
import { admin, printCall, valueOf, withAdmin, type AdminCalls } from './admin-calls.js';
import { jsonOption, type Run } from './cli-run.js';
import { campaignBody, campaignFields, secretNotices, type CampaignOptions } from './campaign-options.js';
import { collect, int } from './option-values.js';
import { DAY_MS } from '../kernel/time.js';

/**
 * The campaign's allowedOrigins now, with `added` after them: what --add-allowed-origin sets, so that
 * adding an origin never drops another (the landing page's own is always allowed besides). An unknown
 * campaign gives `added` alone, and the update then answers campaign_not_found.
 */
async function originsWith(call: AdminCalls, campaignId: string, added: string[]): Promise<string[]> {
  const campaigns = valueOf<CampaignSettings[]>(await call('GET', 'listCampaigns', {}));
  const c = campaigns.find((x) => x.campaignId === campaignId);
  const current = c?.allowedOrigins ?? [];
  // Compared as the service stores them (https://Shop.example:443 is https://shop.example).
  const origin = (o: string) => (URL.canParse(o) ? new URL(o).origin : o);
  const origins = new Map([...current, ...added].map((o) => [origin(o), o]));
  return [...origins.values()];
}

/**
 * Calls a route that creates or changes a campaign, through `call` (the command's one app); once it
 * succeeds, says which secrets it set (stderr: stdout stays the answer).
 */
async function changeCampaign(run: Run, call: AdminCalls, route: string, body: Record<string, unknown>, o: CampaignOptions): Promise<void> {
  printCall(run, await call('POST', route, body), !!o.json);
  if (run.exitCode === 0) run.stderr.write(secretNotices(o));
}

export function addCampaignCommands(program: Command, run: Run): void {
  const campaign = program.command('campaign').description('create and change campaigns');
  // Its required options first: they are what a first campaign needs, before the many optional fields.
  const create = campaign
    .command('create')
    .description('create a campaign')
    .requiredOption('--name <text>', 'campaignName')
    .requiredOption('--host-url <url>', 'hostURL: the landing page share links point to');
  campaignFields(create)
    .option('--test', 'a test campaign: its data stay apart from live data and its clock can be moved (docs/testing-mode.md); never changed after')
    .action((o: CampaignOptions & { test?: boolean }) => withAdmin(run, (call) => changeCampaign(run, call, 'createCampaign', { ...campaignBody(o), ...(o.test && { test: true }) }, o)));
  const update = campaign
    .command('update')
    .description('change fields of a campaign')
    .requiredOption('--id <campaignId>')
    .option('--name <text>', 'campaignName')
    .option('--host-url <url>', 'hostURL')
    .option('--add-allowed-origin <origin>', 'add to allowedOrigins, keeping the origins it allows now (repeat for several)', collect);
  campaignFields(update).action(async (o: CampaignOptions & { id: string; addAllowedOrigin?: string[] }) => {
    if (o.addAllowedOrigin && o.allowedOrigin) throw new ConfigError('--allowed-origin replaces the list and --add-allowed-origin adds to it: give one of them');
    // The origins read and the update made through one app.
    await withAdmin(run, async (call) => {
      const allowedOrigins = o.addAllowedOrigin ? await originsWith(call, o.id, o.addAllowedOrigin) : o.allowedOrigin;
      await changeCampaign(run, call, 'updateCampaign', { id: o.id, ...campaignBody(o), allowedOrigins }, o);
    });
  });
  campaign
    .command('status')
    .description('pause, resume or end a campaign')
    .requiredOption('--id <campaignId>')
    .addOption(new Option('--status <status>').choices(['Active', 'Pause', 'End']).makeOptionMandatory())
    .addOption(jsonOption)
    .action((o: { id: string; status: string; json?: boolean }) => admin(run, 'POST', 'setCampaignStatus', { id: o.id, status: o.status }, !!o.json));
  campaign
    .command('list')
    .description('list the campaigns with their settings and reward rules')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin(run, 'GET', 'listCampaigns', {}, !!o.json, 'no campaigns'));
  campaign
    .command('liability')
    .description('what the program owes: pending, available, redeemed and owed rewards')
    .requiredOption('--id <campaignId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'GET', 'getRewardLiability', { id: o.id }, !!o.json));
  campaign
    .command('secret')
    .description("print the campaign's email-signing secret (your backend signs visitors' emails with it)")
    .requiredOption('--id <campaignId>')
    .option('--rotate', 'replace it: signatures made with the old one stop working')
    .addOption(jsonOption)
    .action((o: { id: string; rotate?: boolean; json?: boolean }) => admin(run, 'POST', o.rotate ? 'rotateSigningSecret' : 'getSigningSecret', { id: o.id }, !!o.json));

  const clock = program.command('clock').description("a test campaign's time (test mode, docs/testing-mode.md)");
  clock
    .command('advance')
    .description("move a test campaign's time forward, firing what falls due on the way in time order (give --to or --days)")
    .requiredOption('--campaign <campaignId>')
    .option('--to <date-time>', 'the new time, ISO 8601 (e.g. 2027-01-31T00:00:00Z)')
    .option('--days <n>', "or this many days after the campaign's time now", int)
    .addOption(jsonOption)
    .action(async (o: { campaign: string; to?: string; days?: number; json?: boolean }) => {
      if ((o.to === undefined) === (o.days === undefined)) throw new ConfigError('give the new time with --to <date-time> or --days <n>, one of them');
      // The clock read (for --days) and moved through one app.
      await withAdmin(run, async (call) => {
        const to = o.to ?? new Date(Date.parse(valueOf<{ now: string }>(await call('GET', 'getCampaignClock', { id: o.campaign })).now) + o.days! * DAY_MS).toISOString();
        printCall(run, await call('POST', 'advanceClock', { id: o.campaign, to }), !!o.json);
      });
    });
  clock
    .command('show')
    .description("a test campaign's time now")
    .requiredOption('--campaign <campaignId>')
    .addOption(jsonOption)
    .action((o: { campaign: string; json?: boolean }) => admin(run, 'GET', 'getCampaignClock', { id: o.campaign }, !!o.json));
}
