#!/usr/bin/env node
/**
 * `refkit`: serve the service, migrate, and run the admin contract from a shell.
 *
 * Admin commands go through the very routes of /api/v1/admin (by `inject`, in process, against the
 * database of DATABASE_URL, acting for the default account with a key that lives only for this
 * command), so the CLI and the HTTP API share validation, rules and answers by construction.
 */
import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ShareMessages } from '../api/schemas.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { hashSecret } from './domain/secrets.js';
import { openRuntime } from './runtime.js';
import { serve } from './serve.js';

function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('Not an integer.');
  return n;
}
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Calls one admin route in process and prints its answer; a failure prints the error and exits 1. */
async function admin(method: 'GET' | 'POST', route: string, body: Record<string, unknown>, json: boolean): Promise<void> {
  const config = loadConfig();
  const runtime = await openRuntime(config);
  const key = `sk_cli_${randomBytes(24).toString('base64url')}`;
  const app = await buildApp({ ctx: runtime.ctx, config: { ...config, secretKeyHash: hashSecret(key) }, logger: false });
  try {
    const payload = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    const res = await app.inject({
      method,
      url: `/api/v1/admin/${route}`,
      headers: { authorization: `Bearer ${key}` },
      ...(method === 'POST' ? { payload } : { query: Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, String(v)])) }),
    });
    const answer: unknown = res.json();
    if (res.statusCode >= 400) {
      const { error } = answer as { error: { code: string; message: string; field?: string } };
      process.stderr.write(json ? `${JSON.stringify(answer)}\n` : `error: ${error.message} (${error.code}${error.field ? `, ${error.field}` : ''})\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(json ? `${JSON.stringify(answer, null, 2)}\n` : human(answer));
    }
  } finally {
    await app.close();
    await runtime.close();
  }
}

/** `key: value` lines, one blank line between list items: for people; --json is for scripts. */
function human(value: unknown): string {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => Object.entries(item as object).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`).join('')).join('\n');
}

const program = new Command('refkit').description('Refkit referral service').showHelpAfterError();
const jsonOption = new Option('--json', 'print the answer as JSON');

program
  .command('serve')
  .description('start the service (configured by PORT, HOST, DATABASE_URL, REFKIT_SECRET_KEY, ...)')
  .action(() => serve(loadConfig()));

program
  .command('migrate')
  .description('bring the database schema up to date, then exit')
  .action(async () => {
    const runtime = await openRuntime(loadConfig());
    await runtime.close();
    process.stdout.write('database is up to date\n');
  });

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
    .addOption(jsonOption);
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
});

const campaign = program.command('campaign').description('create and change campaigns');
campaignFields(campaign.command('create').description('create a campaign'))
  .requiredOption('--name <text>', 'campaignName')
  .requiredOption('--host-url <url>', 'hostURL: the landing page share links point to')
  .action((o: CampaignOptions) => admin('POST', 'createCampaign', campaignBody(o), !!o.json));
campaignFields(campaign.command('update').description('change fields of a campaign'))
  .requiredOption('--id <campaignId>')
  .option('--name <text>', 'campaignName')
  .option('--host-url <url>', 'hostURL')
  .action((o: CampaignOptions & { id: string }) => admin('POST', 'updateCampaign', { id: o.id, ...campaignBody(o) }, !!o.json));
campaign
  .command('status')
  .description('pause, resume or end a campaign')
  .requiredOption('--id <campaignId>')
  .addOption(new Option('--status <status>').choices(['Active', 'Pause', 'End']).makeOptionMandatory())
  .addOption(jsonOption)
  .action((o: { id: string; status: string; json?: boolean }) => admin('POST', 'setCampaignStatus', { id: o.id, status: o.status }, !!o.json));

campaign
  .command('secret')
  .description("print the campaign's email-signing secret (your backend signs visitors' emails with it)")
  .requiredOption('--id <campaignId>')
  .option('--rotate', 'replace it: signatures made with the old one stop working')
  .addOption(jsonOption)
  .action((o: { id: string; rotate?: boolean; json?: boolean }) => admin('POST', o.rotate ? 'rotateSigningSecret' : 'getSigningSecret', { id: o.id }, !!o.json));

const participant = program.command('participant').description('rewards and approval of participants');
participant
  .command('redeem')
  .description('redeem from a reward balance')
  .requiredOption('--id <campaignId>')
  .requiredOption('--email <email>')
  .addOption(new Option('--kind <kind>').choices(['referral', 'referee']).makeOptionMandatory())
  .requiredOption('--amount <n>', 'amount to redeem', int)
  .addOption(jsonOption)
  .action((o: { id: string; email: string; kind: string; amount: number; json?: boolean }) =>
    admin('POST', 'redeemReward', { id: o.id, email: o.email, kind: o.kind, amount: o.amount }, !!o.json),
  );
participant
  .command('approve')
  .description('approve a participant held back by fraud scoring, crediting what they earned')
  .requiredOption('--id <campaignId>')
  .requiredOption('--email <email>')
  .addOption(jsonOption)
  .action((o: { id: string; email: string; json?: boolean }) => admin('POST', 'approveParticipant', { id: o.id, email: o.email }, !!o.json));

participant
  .command('sign-out')
  .description("revoke a participant's tokens: every browser they used sees only their link until proven again")
  .requiredOption('--id <campaignId>')
  .requiredOption('--email <email>')
  .addOption(jsonOption)
  .action((o: { id: string; email: string; json?: boolean }) => admin('POST', 'revokeParticipantTokens', { id: o.id, email: o.email }, !!o.json));

const key = program.command('key').description('secret keys of the default account');
key
  .command('create')
  .description('create a secret key; it is printed once')
  .requiredOption('--name <text>')
  .addOption(jsonOption)
  .action((o: { name: string; json?: boolean }) => admin('POST', 'createApiKey', { name: o.name }, !!o.json));
key
  .command('revoke')
  .description('revoke a secret key by its id (key_...)')
  .requiredOption('--id <keyId>')
  .addOption(jsonOption)
  .action((o: { id: string; json?: boolean }) => admin('POST', 'revokeApiKey', { id: o.id }, !!o.json));
key
  .command('list')
  .description('list secret keys (never the keys themselves)')
  .addOption(jsonOption)
  .action((o: { json?: boolean }) => admin('GET', 'listApiKeys', {}, !!o.json));

const webhook = program.command('webhook').description('webhook endpoints and deliveries of the default account');
webhook
  .command('add')
  .description('add an endpoint; its signing secret is printed once')
  .requiredOption('--url <url>')
  .requiredOption('--events <types>', 'comma-separated: referrer_added,referee_added,reward_unlocked', (v: string) => v.split(',').map((t) => t.trim()))
  .addOption(jsonOption)
  .action((o: { url: string; events: string[]; json?: boolean }) => admin('POST', 'createWebhookEndpoint', { url: o.url, eventTypes: o.events }, !!o.json));
webhook
  .command('list')
  .description('list endpoints (never their secrets)')
  .addOption(jsonOption)
  .action((o: { json?: boolean }) => admin('GET', 'listWebhookEndpoints', {}, !!o.json));
webhook
  .command('remove')
  .description('remove an endpoint by its id (whe_...)')
  .requiredOption('--id <endpointId>')
  .addOption(jsonOption)
  .action((o: { id: string; json?: boolean }) => admin('POST', 'deleteWebhookEndpoint', { id: o.id }, !!o.json));
webhook
  .command('deliveries')
  .description('list deliveries, newest first, with their attempts')
  .addOption(new Option('--status <status>').choices(['pending', 'delivered', 'failed']))
  .option('--endpoint <endpointId>')
  .option('--event-type <type>')
  .option('--limit <n>', 'at most this many (1-100)', int)
  .addOption(jsonOption)
  .action((o: { status?: string; endpoint?: string; eventType?: string; limit?: number; json?: boolean }) =>
    admin('GET', 'listWebhookDeliveries', { status: o.status, endpointId: o.endpoint, eventType: o.eventType, limit: o.limit }, !!o.json),
  );
webhook
  .command('redeliver')
  .description('send a delivery again now (dlv_...)')
  .requiredOption('--id <deliveryId>')
  .addOption(jsonOption)
  .action((o: { id: string; json?: boolean }) => admin('POST', 'redeliverWebhook', { id: o.id }, !!o.json));

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`refkit: ${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
