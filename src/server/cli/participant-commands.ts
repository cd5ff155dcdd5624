/**
 * `refkit participant ...` (import, export, rewards, approval of participants), `refkit person ...` (a
 * person's data across the campaigns) and `refkit rewards codes ...` (reward code pools).
 */
import { createReadStream, createWriteStream, openSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { SingleBar, Presets } from 'cli-progress';
import { Option, type Command } from 'commander';
import { REWARD_CODE_KINDS, type RewardCodeKind } from '../../api/schemas.js';
import { CLI_ACTOR, DEFAULT_ACCOUNT } from '../kernel/context.js';
import { csvRows, exportParticipants, importParticipants } from '../referrals/domain/participant-csv.js';
import { addRewardCodes, codesOfCsv } from '../rewards/domain/reward-codes.js';
import { admin, callAdmin, printRefusal } from './admin-calls.js';
import { jsonOption, localChange, printAnswer, withDatabase, type Run } from './cli-run.js';
import { int } from './option-values.js';

export function addParticipantCommands(program: Command, run: Run): void {
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
        printRefusal(run, answer, false);
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
}

export function addRewardCodeCommands(program: Command, run: Run): void {
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
}
