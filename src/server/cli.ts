#!/usr/bin/env node
/**
 * `refkit`: serve the service, migrate, and run the admin contract from a shell.
 *
 * Admin commands go through the very routes of /api/v1/admin (by `inject`, in process, against the
 * database of DATABASE_URL, acting for the default account with a key that lives only for this
 * command), so the CLI and the HTTP API share validation, rules and answers by construction.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openSync, realpathSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { SingleBar, Presets } from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CampaignSettings, LeaderboardSettings, Milestone, ShareMessages, WaitlistSettings } from '../api/schemas.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { CLI_ACTOR, DEFAULT_ACCOUNT } from './kernel/context.js';
import { csvRows, exportParticipants, importParticipants } from './referrals/domain/participant-csv.js';
import { hashSecret } from './kernel/secrets.js';
import { openRuntime } from './runtime.js';
import { jsonOption, localChange, printAnswer, withDatabase, type CliIo, type Run } from './cli/cli-run.js';
import { teamCommands } from './cli/cli-team.js';
import { newPassword, userCommands } from './cli/cli-users.js';
import { serve } from './serve.js';
import { REWARD_CODE_KINDS, STRIPE_REWARD_MODES, WEBHOOK_EVENT_TYPES, type RewardCodeKind, type StripeRewardMode, type WebhookEventType } from '../api/schemas.js';
import { addRewardCodes, codesOfCsv } from './rewards/domain/reward-codes.js';
import { listen } from './webhooks/domain/listen.js';
import { addOwnerAccountCommands } from './cli/owner-commands.js';
import { addConfigCommands } from './cli/config-commands.js';
import { addSettingsCommands } from './cli/settings-commands.js';
import { addDatabaseCommands } from './cli/database-commands.js';

export type { CliIo } from './cli/cli-run.js';

function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('Not an integer.');
  return n;
}
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Calls one admin route in process, acting for the default account; the status and the parsed answer. */
async function callAdmin(
  run: Run,
  method: 'GET' | 'POST',
  route: string,
  body: Record<string, unknown>,
  overrides: Partial<Config> = {},
): Promise<{ status: number; answer: unknown }> {
  const config = { ...loadConfig(run.env), ...overrides };
  const runtime = await openRuntime(config);
  const key = `sk_cli_${randomBytes(24).toString('base64url')}`;
  const app = await buildApp({ ctx: runtime.ctx, config: { ...config, secretKeyHash: hashSecret(key) }, logger: false, envKeyActor: CLI_ACTOR });
  try {
    const payload = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    const res = await app.inject({
      method,
      url: `/api/v1/admin/${route}`,
      headers: { authorization: `Bearer ${key}` },
      ...(method === 'POST' ? { payload } : { query: Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, String(v)])) }),
    });
    return { status: res.statusCode, answer: res.json() };
  } finally {
    await app.close();
    await runtime.close();
  }
}

type ErrorAnswer = { error: { code: string; message: string; field?: string } };
const describeError = ({ error }: ErrorAnswer) => `${error.message} (${error.code}${error.field ? `, ${error.field}` : ''})`;

/**
 * Calls one admin route in process and prints its answer (`empty` when it is an empty list); a failure
 * prints the error and exits 1.
 */
async function admin(run: Run, method: 'GET' | 'POST', route: string, body: Record<string, unknown>, json: boolean, empty?: string): Promise<void> {
  const { status, answer } = await callAdmin(run, method, route, body);
  if (status >= 400) {
    run.stderr.write(json ? `${JSON.stringify(answer)}\n` : `error: ${describeError(answer as ErrorAnswer)}\n`);
    run.exitCode = 1;
  } else {
    printAnswer(run, answer, json, empty);
  }
}

/** An admin call whose answer the command goes on with; throws the service's error message. */
async function adminValue<T>(run: Run, method: 'GET' | 'POST', route: string, body: Record<string, unknown>, overrides: Partial<Config> = {}): Promise<T> {
  const { status, answer } = await callAdmin(run, method, route, body, overrides);
  if (status >= 400) throw new ConfigError(describeError(answer as ErrorAnswer));
  return answer as T;
}

/** The campaign fields both `campaign create` and `campaign update` take, named as in the API. */
function campaignFields(cmd: Command): Command {
  return cmd
    .option('--referrer-reward <n>', 'referrerRewardValue', int)
    .option('--referee-reward <n>', 'refereeRewardValue', int)
    .option('--reward-type <text>', 'rewardType')
    .option('--reward-currency <code>', 'rewardCurrency, e.g. USD')
    .option('--reward-header <text>', 'rewardHeader')
    .option('--reward-description <text>', 'rewardDescription')
    .option('--share-header <text>', 'shareHeader')
    .option('--share-description <text>', 'shareDescription')
    .option('--share-message-email-subject <text>', 'shareMessages.emailSubject: the subject of the email a participant sends')
    .option('--share-message-email <text>', 'shareMessages.email: the email body; {link} marks the link, else it is appended')
    .option('--share-message-x <text>', 'shareMessages.x: the post on X')
    .option('--share-message-whatsapp <text>', 'shareMessages.whatsapp: the WhatsApp message')
    .option('--share-message-native <text>', "shareMessages.native: the text for the device's share sheet")
    .option('--end <date-time>', 'end, ISO 8601')
    .option('--allowed-origin <origin>', 'allowedOrigins (repeat for several)', collect)
    .addOption(
      new Option('--require-email-confirmation <on>', 'requireEmailConfirmation: double opt-in for browser sign-ups (needs SMTP_URL)').choices(['true', 'false']),
    )
    .option('--referrer-reward-percent <n>', "referrerRewardPercent: the referrer's share of each referee payment (0-100, two decimals)", decimal)
    .option('--commission-payments <n>', "commissionPayments: 0 = every payment, n = the referee's first n", int)
    .option('--milestone <referrals:reward:label>', 'milestones: a bonus once at that many credited referrals (repeat for several; replaces the list)', collectMilestone)
    .option('--no-milestones', 'milestones: remove them all')
    .option('--max-referral-reward <n|none>', 'maxReferralReward: the most one referrer can earn; none removes the ceiling', intOrNone)
    .option('--hold-days <n>', 'holdDays: new credits stay pending this many days', int)
    .option('--stripe-webhook-secret <whsec>', "stripeWebhookSecret: the signing secret of the campaign's Stripe webhook endpoint ('' removes it)")
    .option('--stripe-reward-key <rk_...>', "stripeRewardKey: the restricted Stripe key rewards are paid into Stripe with ('' removes it)")
    .addOption(new Option('--stripe-reward-mode <mode>', 'stripeRewardMode: how an available reward is paid into Stripe').choices([...STRIPE_REWARD_MODES]))
    .option('--reward-codes-low-threshold <n>', 'rewardCodesLowThreshold: reward_codes_low fires when a code pool has fewer left (default 10)', int)
    .option('--leaderboard <period:size|off>', 'leaderboard: all:10 (since the start) or month:10 (this month) and how many it shows; off removes it', leaderboardOption)
    .option('--time-zone <iana>', "timeZone: where the campaign's months begin, e.g. Europe/Berlin (default UTC)")
    .option('--waitlist <spots|spots:qualified|off>', 'waitlist: 5 (each referred sign-up moves the referrer 5 places up) or 5:qualified (each qualified referral); off launches the campaign, for good', waitlistOption)
    .addOption(jsonOption);
}

function decimal(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('Not a number.');
  return n;
}
const intOrNone = (value: string): number | null => (value === 'none' ? null : int(value));
/** `month:10` -> { period: 'month', size: 10 }; `off` -> null. */
function leaderboardOption(value: string): LeaderboardSettings | null {
  if (value === 'off') return null;
  const [period, size = ''] = value.split(':');
  if (period !== 'all' && period !== 'month') throw new InvalidArgumentError('Expected all:<size>, month:<size> or off, e.g. month:10.');
  return { period, size: int(size) };
}
/** `5` -> { spotsPerReferral: 5 }; `5:qualified` -> counts qualified referrals; `off` -> null. */
function waitlistOption(value: string): WaitlistSettings | null {
  if (value === 'off') return null;
  const [spots = '', counts = 'signups', ...rest] = value.split(':');
  if ((counts !== 'signups' && counts !== 'qualified') || rest.length > 0) throw new InvalidArgumentError('Expected <spots>, <spots>:qualified or off, e.g. 5.');
  return { spotsPerReferral: int(spots), counts };
}
/** `3:50:Free month` -> { referrals: 3, reward: 50, label: 'Free month' } (the label may hold colons). */
function collectMilestone(value: string, previous: Milestone[] = []): Milestone[] {
  const [referrals = '', reward = '', ...label] = value.split(':');
  if (label.length === 0) throw new InvalidArgumentError('Expected referrals:reward:label, e.g. 3:50:Free month.');
  return [...previous, { referrals: int(referrals), reward: int(reward), label: label.join(':') }];
}

interface CampaignOptions {
  name?: string;
  hostUrl?: string;
  referrerReward?: number;
  refereeReward?: number;
  rewardType?: string;
  rewardCurrency?: string;
  rewardHeader?: string;
  rewardDescription?: string;
  shareHeader?: string;
  shareDescription?: string;
  shareMessageEmailSubject?: string;
  shareMessageEmail?: string;
  shareMessageX?: string;
  shareMessageWhatsapp?: string;
  shareMessageNative?: string;
  end?: string;
  allowedOrigin?: string[];
  requireEmailConfirmation?: 'true' | 'false';
  referrerRewardPercent?: number;
  commissionPayments?: number;
  /** The --milestone flags given; false with --no-milestones; true (commander's default) with neither. */
  milestone?: Milestone[];
  milestones?: boolean;
  maxReferralReward?: number | null;
  holdDays?: number;
  stripeWebhookSecret?: string;
  stripeRewardKey?: string;
  stripeRewardMode?: StripeRewardMode;
  rewardCodesLowThreshold?: number;
  leaderboard?: LeaderboardSettings | null;
  timeZone?: string;
  waitlist?: WaitlistSettings | null;
  json?: boolean;
}
/** The --share-message-* flags given, as shareMessages; undefined when none is. */
function shareMessages(o: CampaignOptions): ShareMessages | undefined {
  const messages = {
    emailSubject: o.shareMessageEmailSubject,
    email: o.shareMessageEmail,
    x: o.shareMessageX,
    whatsapp: o.shareMessageWhatsapp,
    native: o.shareMessageNative,
  };
  const given = Object.entries(messages).filter(([, text]) => text !== undefined);
  return given.length > 0 ? (Object.fromEntries(given) as ShareMessages) : undefined;
}

const campaignBody = (o: CampaignOptions) => ({
  campaignName: o.name,
  hostURL: o.hostUrl,
  referrerRewardValue: o.referrerReward,
  refereeRewardValue: o.refereeReward,
  rewardType: o.rewardType,
  rewardCurrency: o.rewardCurrency,
  rewardHeader: o.rewardHeader,
  rewardDescription: o.rewardDescription,
  shareHeader: o.shareHeader,
  shareDescription: o.shareDescription,
  shareMessages: shareMessages(o),
  end: o.end,
  allowedOrigins: o.allowedOrigin,
  requireEmailConfirmation: o.requireEmailConfirmation === undefined ? undefined : o.requireEmailConfirmation === 'true',
  referrerRewardPercent: o.referrerRewardPercent,
  commissionPayments: o.commissionPayments,
  milestones: o.milestones === false ? [] : o.milestone,
  maxReferralReward: o.maxReferralReward,
  holdDays: o.holdDays,
  stripeWebhookSecret: o.stripeWebhookSecret,
  stripeRewardKey: o.stripeRewardKey,
  stripeRewardMode: o.stripeRewardMode,
  rewardCodesLowThreshold: o.rewardCodesLowThreshold,
  leaderboard: o.leaderboard,
  timeZone: o.timeZone,
  waitlist: o.waitlist,
});

/**
 * The campaign's allowedOrigins now, with `added` after them: what --add-allowed-origin sets, so that
 * adding an origin never drops another (the landing page's own is always allowed besides). An unknown
 * campaign gives `added` alone, and the update then answers campaign_not_found.
 */
async function originsWith(run: Run, campaignId: string, added: string[]): Promise<string[]> {
  const campaigns = await adminValue<CampaignSettings[]>(run, 'GET', 'listCampaigns', {});
  const c = campaigns.find((x) => x.campaignId === campaignId);
  const current = c?.allowedOrigins ?? [];
  // Compared as the service stores them (https://Shop.example:443 is https://shop.example).
  const origin = (o: string) => (URL.canParse(o) ? new URL(o).origin : o);
  const origins = new Map([...current, ...added].map((o) => [origin(o), o]));
  return [...origins.values()];
}

/**
 * The `refkit` program, writing to and failing through `run`. Made afresh for each command line: commander
 * keeps parsed options on its commands, so one program cannot serve two command lines at once.
 */
function createProgram(run: Run): Command {
  const program = new Command('refkit')
    .description('Refkit referral service')
    .showHelpAfterError()
    // Commander's errors and help end the run with a code instead of the process (subcommands inherit this).
    .exitOverride()
    .configureOutput({ writeOut: (text) => run.stdout.write(text), writeErr: (text) => run.stderr.write(text) });

  program
    .command('serve')
    .description('start the service (configured by PORT, HOST, DATABASE_URL, REFKIT_SECRET_KEY, ...)')
    .option('--demo', 'demo mode: seed a fresh database with the demo campaign and a key, serve /demo/ (what npm start runs)')
    .action((o: { demo?: boolean }) => serve(loadConfig(run.env, o.demo ? { demo: true } : {})));

  addDatabaseCommands(program, run);

  addConfigCommands(program, run);

  const campaign = program.command('campaign').description('create and change campaigns');
  campaignFields(campaign.command('create').description('create a campaign'))
    .requiredOption('--name <text>', 'campaignName')
    .requiredOption('--host-url <url>', 'hostURL: the landing page share links point to')
    .option('--test', 'a test campaign: its data stay apart from live data and its clock can be moved (docs/testing-mode.md); never changed after')
    .action((o: CampaignOptions & { test?: boolean }) => admin(run, 'POST', 'createCampaign', { ...campaignBody(o), ...(o.test && { test: true }) }, !!o.json));
  campaignFields(campaign.command('update').description('change fields of a campaign'))
    .requiredOption('--id <campaignId>')
    .option('--name <text>', 'campaignName')
    .option('--host-url <url>', 'hostURL')
    .option('--add-allowed-origin <origin>', 'add to allowedOrigins, keeping the origins it allows now (repeat for several)', collect)
    .action(async (o: CampaignOptions & { id: string; addAllowedOrigin?: string[] }) => {
      if (o.addAllowedOrigin && o.allowedOrigin) throw new ConfigError('--allowed-origin replaces the list and --add-allowed-origin adds to it: give one of them');
      const allowedOrigins = o.addAllowedOrigin ? await originsWith(run, o.id, o.addAllowedOrigin) : o.allowedOrigin;
      await admin(run, 'POST', 'updateCampaign', { id: o.id, ...campaignBody(o), allowedOrigins }, !!o.json);
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
    .description("what the program owes: pending, available, redeemed and owed rewards")
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
    .description("move a test campaign's time forward, firing what falls due on the way in time order")
    .requiredOption('--campaign <campaignId>')
    .requiredOption('--to <date-time>', 'the new time, ISO 8601 (e.g. 2027-01-31T00:00:00Z)')
    .addOption(jsonOption)
    .action((o: { campaign: string; to: string; json?: boolean }) => admin(run, 'POST', 'advanceClock', { id: o.campaign, to: o.to }, !!o.json));
  clock
    .command('show')
    .description("a test campaign's time now")
    .requiredOption('--campaign <campaignId>')
    .addOption(jsonOption)
    .action((o: { campaign: string; json?: boolean }) => admin(run, 'GET', 'getCampaignClock', { id: o.campaign }, !!o.json));

  const codes = program.command('rewards').description('reward code pools').command('codes').description("a campaign's reward codes: one to each credit of the pool's kind");
  codes
    .command('add')
    .description('add codes to a pool from a file: one per line, or a CSV with a `code` column; duplicates are skipped, a bad code adds nothing')
    .requiredOption('--id <campaignId>')
    .addOption(new Option('--kind <kind>', "referral: the referrer's fixed rewards, referee: the friend's own, milestone: milestone bonuses").choices(REWARD_CODE_KINDS).makeOptionMandatory())
    .requiredOption('--file <file>', 'the codes file')
    .addOption(jsonOption)
    .action((o: { id: string; kind: RewardCodeKind; file: string; json?: boolean }) =>
      localChange(run, 'rewards codes add', async ({ ctx }) => {
        // Opened here, so that a missing file fails before anything is read or written.
        const input = createReadStream(o.file, { fd: openSync(o.file, 'r') });
        try {
          return await addRewardCodes(ctx, CLI_ACTOR, o.id, o.kind, await codesOfCsv(input));
        } finally {
          input.destroy();
        }
      }, (a) => ({ campaignId: o.id, target: o.kind, after: a }), !!o.json),
    );
  codes
    .command('list')
    .description("a campaign's pools: codes available and used, and credits waiting for a code")
    .requiredOption('--id <campaignId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'GET', 'listRewardCodePools', { id: o.id }, !!o.json, 'no reward code pools'));

  const user = program.command('user').description('dashboard owners (sign in at /admin/)');
  userCommands(user, run);
  addOwnerAccountCommands(user, (action, fn, json) => localChange(run, action, ({ ctx }) => fn(ctx), (a) => ({ target: a.email, after: a }), json), (o) => newPassword(run, o));
  teamCommands(program, run, { admin: (method, route, body, json, empty) => admin(run, method, route, body, json, empty) });
  addSettingsCommands(
    program,
    (method, route, body, json) => admin(run, method, route, body, json),
    (action, fn, json) => localChange(run, action, ({ ctx }) => fn(ctx), (answer) => ({ after: answer }), json),
  );

  const participant = program.command('participant').alias('participants').description('rewards, approval and import of participants');
  participant
    .command('import')
    .description('import participants from a CSV file (header: email, firstName, lastName, referralCode, referredByCode, referredByEmail, createdOn)')
    .requiredOption('--campaign <campaignId>')
    .argument('<file>', 'the CSV file')
    .addOption(jsonOption)
    .action((file: string, o: { campaign: string; json?: boolean }) =>
      localChange(run, 'participant import', async ({ ctx }) => {
        const total = statSync(file).size;
        // Progress by bytes read: known from the start, unlike the number of rows. On stderr, so --json stays clean.
        // Off a terminal (a log, a pipe) it still reports, every few seconds and at the end.
        const bar = new SingleBar(
          { format: 'importing [{bar}] {percentage}% | {rows} rows | {eta_formatted} left', stream: run.stderr, noTTYOutput: true, notTTYSchedule: 5000 },
          Presets.shades_classic,
        );
        bar.start(total, 0, { rows: 0 });
        let bytes = 0;
        // Opened here, not lazily by the stream: a refused import (an unknown campaign) never reads the file,
        // and the finally below closes it at once rather than leaving an open in flight.
        const input = createReadStream(file, { fd: openSync(file, 'r') });
        try {
          return await importParticipants(ctx, CLI_ACTOR, o.campaign, csvRows(input, (b) => (bytes = b)), ({ rows }) => bar.update(bytes, { rows }));
        } finally {
          input.destroy();
          bar.update(bytes);
          bar.stop();
        }
      }, (a) => ({ campaignId: o.campaign, after: a }), !!o.json),
    );
  participant
    .command('export')
    .description('write every participant of a campaign as CSV, oldest first (text a spreadsheet would run as a formula starts with a quote)')
    .requiredOption('--campaign <campaignId>')
    .option('--output <file>', 'write to this file instead of standard output')
    .action((o: { campaign: string; output?: string }) =>
      withDatabase(run, false, async ({ ctx }) => {
        const { csv } = await exportParticipants(ctx, DEFAULT_ACCOUNT, o.campaign);
        if (o.output) await pipeline(csv, createWriteStream(o.output));
        else await pipeline(csv, run.stdout, { end: false });
      }),
    );
  participant
    .command('redeem')
    .description('redeem from a reward balance')
    .requiredOption('--id <campaignId>')
    .requiredOption('--email <email>')
    .addOption(new Option('--kind <kind>').choices(['referral', 'referee']).makeOptionMandatory())
    .requiredOption('--amount <n>', 'amount to redeem', int)
    .addOption(jsonOption)
    .action((o: { id: string; email: string; kind: string; amount: number; json?: boolean }) =>
      admin(run, 'POST', 'redeemReward', { id: o.id, email: o.email, kind: o.kind, amount: o.amount }, !!o.json),
    );
  participant
    .command('refund')
    .description("record a refund of a referee's payment: the commission it earned is reversed, a referral inside its hold undone")
    .requiredOption('--id <campaignId>')
    .requiredOption('--email <email>', "the referee's email")
    .requiredOption('--amount <amount>', 'what was refunded, e.g. 12.50')
    .option('--payment-id <n>', 'the payment refunded (default: the latest payments first)', int)
    .addOption(jsonOption)
    .action((o: { id: string; email: string; amount: string; paymentId?: number; json?: boolean }) =>
      admin(run, 'POST', 'refundPayment', { id: o.id, email: o.email, amount: o.amount, paymentId: o.paymentId }, !!o.json),
    );
  participant
    .command('ledger')
    .description("list a participant's reward ledger, newest first")
    .requiredOption('--id <campaignId>')
    .requiredOption('--email <email>')
    .addOption(jsonOption)
    .action((o: { id: string; email: string; json?: boolean }) => admin(run, 'GET', 'listRewardEntries', { id: o.id, email: o.email, pageSize: 100 }, !!o.json, 'no entries'));
  participant
    .command('approve')
    .description('approve a participant held back by fraud scoring, crediting what they earned')
    .requiredOption('--id <campaignId>')
    .requiredOption('--email <email>')
    .addOption(jsonOption)
    .action((o: { id: string; email: string; json?: boolean }) => admin(run, 'POST', 'approveParticipant', { id: o.id, email: o.email }, !!o.json));

  participant
    .command('sign-out')
    .description("revoke a participant's tokens: every browser they used sees only their link until proven again")
    .requiredOption('--id <campaignId>')
    .requiredOption('--email <email>')
    .addOption(jsonOption)
    .action((o: { id: string; email: string; json?: boolean }) => admin(run, 'POST', 'revokeParticipantTokens', { id: o.id, email: o.email }, !!o.json));

  const person = program.command('person').description("a person's data across the campaigns: export it, erase it (docs/privacy.md)");
  person
    .command('export')
    .description('print everything stored about an email across the campaigns, as JSON')
    .requiredOption('--email <email>')
    .option('--output <file>', 'write to this file instead of standard output')
    .action(async (o: { email: string; output?: string }) => {
      const { status, answer } = await callAdmin(run, 'GET', 'exportPerson', { email: o.email });
      if (status >= 400) {
        run.stderr.write(`error: ${describeError(answer as ErrorAnswer)}\n`);
        run.exitCode = 1;
      } else if (o.output) {
        await writeFile(o.output, `${JSON.stringify(answer, null, 2)}\n`);
      } else {
        printAnswer(run, answer, true);
      }
    });
  person
    .command('erase')
    .description('erase a person: their data is deleted or anonymised in every table; they read as "Deleted participant"; it cannot be undone')
    .requiredOption('--email <email>')
    .addOption(jsonOption)
    .action((o: { email: string; json?: boolean }) => admin(run, 'POST', 'erasePerson', { email: o.email }, !!o.json));

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

  const webhook = program.command('webhook').description('webhook endpoints and deliveries of the default account');
  webhook
    .command('add')
    .description('add an endpoint; its signing secret is printed once')
    .requiredOption('--url <url>')
    .requiredOption('--events <types>', 'comma-separated: referrer_added,referee_added,reward_unlocked', (v: string) => v.split(',').map((t) => t.trim()))
    .option('--test', "gets test campaigns' events only (default: live campaigns' only)")
    .addOption(jsonOption)
    .action((o: { url: string; events: string[]; test?: boolean; json?: boolean }) =>
      admin(run, 'POST', 'createWebhookEndpoint', { url: o.url, eventTypes: o.events, ...(o.test && { test: true }) }, !!o.json),
    );
  webhook
    .command('list')
    .description('list endpoints (never their secrets)')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin(run, 'GET', 'listWebhookEndpoints', {}, !!o.json, 'No webhook endpoints yet.'));
  webhook
    .command('remove')
    .description('remove an endpoint by its id (whe_...)')
    .requiredOption('--id <endpointId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'POST', 'deleteWebhookEndpoint', { id: o.id }, !!o.json));
  webhook
    .command('deliveries')
    .description('list deliveries, newest first, with their attempts')
    .addOption(new Option('--status <status>').choices(['pending', 'delivered', 'failed']))
    .option('--endpoint <endpointId>')
    .option('--event-type <type>')
    .option('--limit <n>', 'at most this many (1-100)', int)
    .addOption(jsonOption)
    .action((o: { status?: string; endpoint?: string; eventType?: string; limit?: number; json?: boolean }) =>
      admin(
        run,
        'GET',
        'listWebhookDeliveries',
        { status: o.status, endpointId: o.endpoint, eventType: o.eventType, limit: o.limit },
        !!o.json,
        o.status || o.endpoint || o.eventType ? 'No deliveries match.' : 'No deliveries yet.',
      ),
    );
  webhook
    .command('listen')
    .description('receive webhooks locally: print each event with its signature checked, optionally forward it to your app')
    .option('--forward-to <url>', 'send each event on (same body and signature headers) and answer with its status')
    .option('--port <n>', 'local port to listen on (default: any free one)', int, 0)
    .option('--events <types>', 'comma-separated event types', (v: string) => v.split(',').map((t) => t.trim()), [...WEBHOOK_EVENT_TYPES])
    .action(async (o: { forwardTo?: string; port: number; events: WebhookEventType[] }) => {
      const listener = await listen({
        host: '127.0.0.1',
        port: o.port,
        events: o.events,
        ...(o.forwardTo && { forwardTo: o.forwardTo }),
        // Its own target is loopback by design; the serving process still decides whether it delivers there.
        register: (url, eventTypes) =>
          adminValue<{ id: string; secret: string }>(run, 'POST', 'createWebhookEndpoint', { url, eventTypes }, { webhookAllowPrivate: true }),
        unregister: (id) => adminValue(run, 'POST', 'deleteWebhookEndpoint', { id }).then(() => undefined),
        print: (line) => run.stdout.write(`${line}\n`),
      });
      run.stdout.write(
        `Ready: webhooks of ${o.events.join(', ')} go to ${listener.url}${o.forwardTo ? ` and on to ${o.forwardTo}` : ''}\n` +
          `Signing secret (verify with it in your app): ${listener.secret}\nCtrl+C stops and removes the endpoint.\n`,
      );
      const stop = () => void listener.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  webhook
    .command('redeliver')
    .description('send a delivery again now (dlv_...)')
    .requiredOption('--id <deliveryId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'POST', 'redeliverWebhook', { id: o.id }, !!o.json));
  return program;
}

/**
 * Runs one `refkit` command line (the arguments after `refkit`) and resolves with its exit code. An error
 * no command expects also resolves, printed, with `fatal`: the process must exit at once, as the command
 * may have left a server or a connection open. The tests run commands through this, in their own process.
 */
export async function runCli(args: string[], io: CliIo): Promise<{ code: number; fatal: boolean }> {
  const run: Run = { ...io, exitCode: 0 };
  try {
    await createProgram(run).parseAsync(args, { from: 'user' });
    return { code: run.exitCode, fatal: false };
  } catch (err) {
    if (err instanceof CommanderError) return { code: err.exitCode, fatal: false };
    io.stderr.write(`refkit: ${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
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
