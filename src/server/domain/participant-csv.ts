/**
 * Participants as CSV: an export streamed in keyset batches, and an import that reads a stream of rows
 * and writes them in batches, one transaction each, so a million rows never sit in memory at once.
 *
 * Imported participants are the product's own records (like sign-ups with a secret key): not scored for
 * fraud, and no webhook events (a migration of a whole program must not flood receivers).
 */
import { pipeline } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import type { ImportResult } from '../../api/schemas.js';
import type { CampaignRow, ParticipantRow, Store } from '../store/store.js';
import { dayOf } from '../store/stats-store.js';
import { ownCampaign } from './campaigns.js';
import { newReferralCode } from './referral-codes.js';
import type { Actor, Ctx } from './context.js';
import { emailKey, normalizeEmail } from './email.js';
import { AppError, invalid } from './errors.js';
import { normalizeCode } from './participants.js';
import { isLine, LINE_RULE } from './text-rules.js';
import { iso } from './time.js';
import { units } from './directory.js';

const EXPORT_BATCH = 1000;
export const IMPORT_BATCH = 500;
const MAX_REPORTED_ERRORS = 100;
/**
 * The longest line (a record) the parser will hold: far above any real participant's row, and far below
 * the longest string JavaScript can make (about 512 MB), which a field without an end would otherwise
 * reach before failing as no CSV error at all.
 */
export const MAX_RECORD_BYTES = 64 * 1024;
/** The columns an import reads; each holds one line of text, like the same fields in a request. */
const IMPORT_COLUMNS = ['email', 'firstName', 'lastName', 'referralCode', 'referredByCode', 'referredByEmail', 'createdOn'] as const;

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

/** Every participant of the campaign as CSV (header first, oldest first), read from the database a batch at a time. */
export async function exportParticipants(ctx: Ctx, actor: Actor, campaignId: string): Promise<{ campaign: CampaignRow; csv: NodeJS.ReadableStream }> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS] });
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

/** A row of an import file: the export's column names; only email is required. */
export interface ImportRow {
  line: number;
  record: Record<string, string | undefined>;
}

export interface ImportProgress {
  rows: number;
}

class RowError extends Error {}

/**
 * Rows of a CSV stream with a header line, with their line numbers. `onBytes` hears how far into the
 * input the parser is (for a progress bar).
 */
export async function* csvRows(input: NodeJS.ReadableStream, onBytes?: (bytes: number) => void): AsyncIterable<ImportRow> {
  const parser = parse({ columns: true, bom: true, skip_empty_lines: true, trim: true, info: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES });
  // pipeline, not pipe: an input that fails (a body over its limit, a client gone) fails the parser too,
  // which would otherwise wait for the rest of the input for ever.
  pipeline(input, parser, () => {});
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number; bytes: number } }>) {
      onBytes?.(info.bytes);
      yield { line: info.lines, record };
    }
  } catch (err) {
    // csv-parse's errors (CSV_...) are about the file, not about us: the caller hears 400, rows before it stay.
    if (err instanceof CsvError) throw invalid('file', `The CSV file is malformed: ${err.message}`);
    throw err;
  }
}

/** Imports rows into the campaign; rows whose email is already there are skipped, bad rows are reported. */
export async function importParticipants(
  ctx: Ctx,
  actor: Actor,
  campaignId: string,
  rows: AsyncIterable<ImportRow>,
  onProgress?: (p: ImportProgress) => void,
): Promise<ImportResult> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const result: ImportResult = { created: 0, skipped: 0, failed: 0, errors: [] };
  let batch: ImportRow[] = [];
  let done = 0;
  const flush = async () => {
    await ctx.store.transaction((tx) => importBatch(ctx, tx, campaign, batch, result));
    done += batch.length;
    batch = [];
    onProgress?.({ rows: done });
  };
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return result;
}

async function importBatch(ctx: Ctx, tx: Store, campaign: CampaignRow, rows: ImportRow[], result: ImportResult): Promise<void> {
  // Sign-ups per day of this batch, added to the daily counters once at the end.
  const perDay = new Map<number, { signups: number; referred: number }>();
  for (const { line, record } of rows) {
    try {
      const created = await importRow(ctx, tx, campaign, record);
      if (!created) {
        result.skipped++;
        continue;
      }
      result.created++;
      const day = perDay.get(dayOf(created.created_on)) ?? { signups: 0, referred: 0 };
      day.signups++;
      if (created.referred_by_id !== null) day.referred++;
      perDay.set(dayOf(created.created_on), day);
    } catch (err) {
      if (!(err instanceof RowError || err instanceof AppError)) throw err;
      result.failed++;
      if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, message: err.message });
    }
  }
  for (const [day, n] of perDay) await tx.stats.addSignups(campaign.id, day, n.signups, n.referred);
}

type Created = Pick<ParticipantRow, 'created_on' | 'referred_by_id'>;

/** Inserts one row; what the counters need of it, or undefined when the email is already in the campaign. */
async function importRow(ctx: Ctx, tx: Store, campaign: CampaignRow, record: ImportRow['record']): Promise<Created | undefined> {
  for (const column of IMPORT_COLUMNS) {
    const value = record[column];
    if (value !== undefined && !isLine(value)) throw new RowError(`${column} ${LINE_RULE}`);
  }
  const email = normalizeEmail(record.email ?? '');
  if (await tx.findParticipantByEmail(campaign.id, email)) return undefined;
  const referrer = await importReferrer(tx, campaign.id, record);
  const createdOn = record.createdOn ? Date.parse(record.createdOn) : ctx.now();
  if (Number.isNaN(createdOn)) throw new RowError(`createdOn "${record.createdOn}" is not a date`);
  const givenCode = record.referralCode ? normalizeCode(record.referralCode) : undefined;
  if (givenCode !== undefined && !/^[0-9A-Z]{4,64}$/.test(givenCode)) throw new RowError(`referralCode "${record.referralCode}" is not 4 to 64 letters and digits`);
  const inserted = await tx.insertParticipant({
    campaign_id: campaign.id,
    email,
    email_key: emailKey(email),
    first_name: record.firstName?.trim().slice(0, 100) || null,
    last_name: record.lastName?.trim().slice(0, 100) || null,
    code: givenCode ?? newReferralCode(),
    referred_by_id: referrer?.id ?? null,
    referred_by_code: referrer?.code ?? null,
    created_on: createdOn,
    updated_on: ctx.now(),
    signup_source: 'import',
    signup_ip: null,
  });
  // The email was checked above in this transaction, so a conflict is the code (a fresh one: about 1 in 10^11).
  if (inserted === undefined) throw new RowError(`referralCode ${givenCode ?? ''} belongs to another participant`);
  if (referrer) await tx.incrementReferrals(referrer.id, ctx.now());
  return { created_on: createdOn, referred_by_id: referrer?.id ?? null };
}

async function importReferrer(tx: Store, campaignId: string, record: ImportRow['record']): Promise<ParticipantRow | undefined> {
  if (record.referredByCode) {
    const r = await tx.findParticipantByCode(campaignId, normalizeCode(record.referredByCode));
    if (!r) throw new RowError(`no participant has the referral code ${record.referredByCode} (referrers must come first in the file)`);
    return r;
  }
  if (record.referredByEmail) {
    const r = await tx.findParticipantByEmail(campaignId, normalizeEmail(record.referredByEmail, 'referredByEmail'));
    if (!r) throw new RowError(`no participant has the email ${record.referredByEmail} (referrers must come first in the file)`);
    return r;
  }
  return undefined;
}
