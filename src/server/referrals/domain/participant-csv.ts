/**
 * Participants as CSV: an export streamed in keyset batches, and an import that reads a stream of rows
 * and writes them as they come, in one transaction, so a million rows never sit in memory at once and a
 * refused row leaves the campaign as it was.
 *
 * Imported participants are the product's own records (like sign-ups with a secret key): not scored for
 * fraud, and no webhook events (a migration of a whole program must not flood receivers).
 */
import { joinWaitlist } from '../../engagement/domain/waitlist.js';
import { setImmediate } from 'node:timers/promises';
import { stringify } from 'csv-stringify';
import { ImportRow, type ImportResult, type RowProblem } from '../../../api/schemas.js';
import { checker } from '../../kernel/validation.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import { dayOf } from '../../store/stats-store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import { CODE_ATTEMPTS, newReferralCode } from './referral-codes.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { fromSpreadsheetSafe, spreadsheetSafe } from '../../kernel/csv-cells.js';
import { guardedCsv } from '../../kernel/csv-guard.js';
import { emailKey, normalizeEmail } from '../../kernel/email.js';
import { AppError, RowsRefused, invalid } from '../../kernel/errors.js';
import { normalizeCode } from './participants.js';
import { iso } from '../../kernel/time.js';
import { units } from './directory.js';

const EXPORT_BATCH = 1000;
/** Progress is reported every this many rows. */
export const IMPORT_BATCH = 500;
const MAX_REPORTED_ERRORS = 100;

export const EXPORT_COLUMNS = [
  'email',
  'firstName',
  'lastName',
  'referralCode',
  'referredByCode',
  'createdOn',
  'totalReferrals',
  'referralReward',
  'referralRewardRedeemed',
  'refereeReward',
  'refereeRewardRedeemed',
  'rewardEventCompleted',
  'amountPaid',
  'paymentCount',
  'revenueGenerated',
  'impressionCount',
  'fraudScore',
  'approval',
] as const;

function exportRecord(p: ParticipantRow): (string | number)[] {
  return [
    p.email,
    p.first_name ?? '',
    p.last_name ?? '',
    p.code,
    p.referred_by_code ?? '',
    iso(p.created_on),
    p.total_referrals,
    p.referral_reward,
    p.referral_reward_redeemed,
    p.referee_reward,
    p.referee_reward_redeemed,
    p.reward_event_completed === 1 ? 'true' : 'false',
    units(p.amount_paid_cents),
    p.payment_count,
    units(p.revenue_generated_cents),
    p.impression_count,
    p.fraud_score,
    p.approval === 1 ? 'true' : 'false',
  ];
}

/**
 * Every participant of the campaign as CSV (header first, oldest first), read from the database a batch
 * at a time. Text that a spreadsheet would run as a formula is quoted (../../kernel/csv-cells.ts).
 */
export async function exportParticipants(ctx: Ctx, actor: Actor, campaignId: string): Promise<{ campaign: CampaignRow; csv: NodeJS.ReadableStream }> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], cast: { string: spreadsheetSafe } });
  void (async () => {
    let after: { createdOn: number; id: number } | undefined;
    for (;;) {
      const rows = await ctx.store.listParticipants({ campaignId: campaign.id }, after ? { after } : { offset: 0 }, EXPORT_BATCH);
      for (const r of rows) {
        // Respect back-pressure: wait for the reader when the buffer is full.
        if (!csv.write(exportRecord(r))) await new Promise((resolve) => csv.once('drain', resolve));
      }
      const last = rows[rows.length - 1];
      if (!last || rows.length < EXPORT_BATCH) break;
      after = { createdOn: last.created_on, id: last.id };
    }
    csv.end();
  })().catch((err: unknown) => csv.destroy(err instanceof Error ? err : new Error(String(err))));
  return { campaign, csv };
}

export interface ImportProgress {
  rows: number;
}

/** A record of an import file with the line it ends on; the export's column names; only email is required. */
export interface CsvRecord {
  line: number;
  record: Record<string, string | undefined>;
}

/** The longest record (a row, quoted line breaks included) an import accepts: a row of every column at its longest is under 2 KiB. */
export const MAX_RECORD_BYTES = 64 * 1024;
/** The most columns an import file's header may have (the export has 18). */
const MAX_COLUMNS = 100;

/** How often an import lets other work run: the parser hands over a chunk's rows at once, and SQLite's statements do not wait. */
const YIELD_EVERY_MS = 5;

/**
 * Records of a CSV stream with a header line, with their line numbers. `onBytes` hears how far into the
 * input the parser is (for a progress bar). A record longer than MAX_RECORD_BYTES fails with 413 before
 * it is parsed; a malformed file with 400.
 */
export async function* csvRows(input: NodeJS.ReadableStream, onBytes?: (bytes: number) => void): AsyncIterable<CsvRecord> {
  const columns = (header: string[]) => {
    if (header.length > MAX_COLUMNS) throw new AppError(413, 'payload_too_large', `The header has ${header.length} columns; an import file has at most ${MAX_COLUMNS}`, 'file');
    return header;
  };
  for await (const { record, info } of guardedCsv<Record<string, string>>(input, MAX_RECORD_BYTES, { columns, bom: true, skip_empty_lines: true, trim: true, relax_column_count: true })) {
    onBytes?.(info.bytes);
    yield { line: info.lines, record };
  }
}

const checkRow = checker(ImportRow);

/** A record's non-empty cells, the quote an export put in front of formula-like text taken off. */
function rowOf(record: CsvRecord['record']): Record<string, string> {
  const row: Record<string, string> = {};
  for (const [column, value] of Object.entries(record)) if (value) row[column] = fromSpreadsheetSafe(value);
  return row;
}

/** Sign-ups per day, added to the daily counters once at the end. */
type PerDay = Map<number, { signups: number; referred: number }>;

/**
 * Imports the rows into the campaign, all or nothing: in one transaction, each row checked by
 * addParticipant's rules. Rows whose email is already there are skipped. If any row is refused, nothing
 * is imported and the answer (RowsRefused, 400) names every refused row's line, field and reason (the
 * first 100 of them); a malformed or oversized file also changes nothing.
 */
export async function importParticipants(
  ctx: Ctx,
  actor: Actor,
  campaignId: string,
  records: AsyncIterable<CsvRecord>,
  onProgress?: (p: ImportProgress) => void,
): Promise<ImportResult> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  return ctx.store.transaction(async (tx) => {
    const result: ImportResult = { created: 0, skipped: 0 };
    const problems: RowProblem[] = [];
    let refused = 0;
    let rows = 0;
    const perDay: PerDay = new Map();
    let lastYield = performance.now();
    for await (const { line, record } of records) {
      rows++;
      try {
        const created = await importRow(ctx, tx, campaign, rowOf(record));
        if (!created) result.skipped++;
        else {
          result.created++;
          const day = perDay.get(dayOf(created.created_on)) ?? { signups: 0, referred: 0 };
          day.signups++;
          if (created.referred_by_id !== null) day.referred++;
          perDay.set(dayOf(created.created_on), day);
        }
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refused++;
        if (problems.length < MAX_REPORTED_ERRORS) problems.push({ line, ...(err.field && { field: err.field }), message: err.message });
      }
      if (rows % IMPORT_BATCH === 0) onProgress?.({ rows });
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await setImmediate();
        lastYield = performance.now();
      }
    }
    onProgress?.({ rows });
    if (refused > 0) {
      throw new RowsRefused(
        `${refused} of ${rows} rows cannot be imported, so none was: correct ${refused === 1 ? 'it' : 'them'} and import the file again`,
        problems,
      );
    }
    for (const [day, n] of perDay) await tx.stats.addSignups(campaign.id, day, n.signups, n.referred);
    return result;
  });
}

type Created = Pick<ParticipantRow, 'created_on' | 'referred_by_id'>;

/** Checks and inserts one row; what the counters need of it, or undefined when the email is already in the campaign. */
async function importRow(ctx: Ctx, tx: Store, campaign: CampaignRow, row: Record<string, string>): Promise<Created | undefined> {
  const problem = checkRow(row);
  if (problem) throw invalid(problem.field ?? 'file', problem.message);
  const input = row as ImportRow;
  const email = normalizeEmail(input.email);
  const referredByEmail = input.referredByEmail === undefined ? undefined : normalizeEmail(input.referredByEmail, 'referredByEmail');
  const code = input.referralCode === undefined ? undefined : normalizeCode(input.referralCode);
  if (referredByEmail === email) throw invalid('referredByEmail', 'A participant cannot refer themselves');
  if (code !== undefined && input.referredByCode !== undefined && normalizeCode(input.referredByCode) === code) {
    throw invalid('referredByCode', 'A participant cannot refer themselves');
  }
  if (await tx.findParticipantByEmail(campaign.id, email)) return undefined;
  const referrer = await importReferrer(tx, campaign.id, input.referredByCode, referredByEmail);
  const createdOn = input.createdOn === undefined ? ctx.now() : Date.parse(input.createdOn);
  // A code from the file is kept, or the row refused; a fresh one is drawn again when taken (in a large
  // campaign, about once in 650,000 rows per million participants).
  let inserted: Awaited<ReturnType<Store['insertParticipant']>>;
  for (let attempt = 1; ; attempt++) {
    inserted = await tx.insertParticipant({
      campaign_id: campaign.id,
      email,
      email_key: emailKey(email),
      first_name: input.firstName?.trim() || null,
      last_name: input.lastName?.trim() || null,
      code: code ?? newReferralCode(),
      referred_by_id: referrer?.id ?? null,
      referred_by_code: referrer?.code ?? null,
      created_on: createdOn,
      updated_on: ctx.now(),
      signup_source: 'import',
      signup_ip: null,
    });
    if (inserted) break;
    // The same email, from a sign-up or an import that committed since the check above (PostgreSQL's
    // insert waited for it): skipped, as it would have been after it. Otherwise the code was taken.
    if (await tx.findParticipantByEmail(campaign.id, email)) return undefined;
    if (code !== undefined) throw invalid('referralCode', `referralCode ${code} belongs to another participant`);
    if (attempt === CODE_ATTEMPTS) throw new Error('Could not allocate a unique referral code');
  }
  if (referrer) await tx.incrementReferrals(referrer.id, ctx.now());
  // In waitlist mode an imported row queues like a sign-up, in the file's order (and moves its referrer).
  await joinWaitlist(tx, campaign, inserted);
  return { created_on: createdOn, referred_by_id: referrer?.id ?? null };
}

async function importReferrer(tx: Store, campaignId: string, byCode: string | undefined, byEmail: string | undefined): Promise<ParticipantRow | undefined> {
  if (byCode !== undefined) {
    const r = await tx.findParticipantByCode(campaignId, normalizeCode(byCode));
    if (!r) throw invalid('referredByCode', `No participant has the referral code ${byCode} (referrers must come first in the file)`);
    return r;
  }
  if (byEmail !== undefined) {
    const r = await tx.findParticipantByEmail(campaignId, byEmail);
    if (!r) throw invalid('referredByEmail', `No participant has the email ${byEmail} (referrers must come first in the file)`);
    return r;
  }
  return undefined;
}
