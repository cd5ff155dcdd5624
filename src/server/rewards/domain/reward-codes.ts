/**
 * Reward code pools: codes an owner uploads (gift cards, coupon codes...) that the service hands out, one
 * per credit, as credits become available. A campaign has at most one pool per kind: `referral` for the
 * referrer's fixed referral rewards, `referee` for the referee's own reward, `milestone` for milestone
 * bonuses (commissions take none). Only a campaign with a pool of that kind hands codes out, so a program
 * without pools runs exactly as before.
 *
 * A credit takes its code in the transaction that makes it available (./reward-credits.ts, at once or
 * when its hold ends): it is on the ledger entry before the reward_unlocked event's payload is built. An
 * empty pool leaves the credit available without a code, waiting; a refill serves those waiting, oldest
 * first, in its own transaction, each with a reward_unlocked carrying the code. reward_codes_low fires
 * once each time a pool's free codes fall below the campaign's threshold.
 */
import {
  MAX_REWARD_CODE_LENGTH,
  MAX_REWARD_CODES_PER_FILE,
  REWARD_CODE_KINDS,
  type RewardCodeKind,
  type RewardCodePool,
  type RewardCodesAdded,
} from '../../../api/schemas.js';
import type { RewardEntryRow } from '../store/reward-entry-store.js';
import type { CampaignRow, Store } from '../../store/store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { guardedCsv } from '../../kernel/csv-guard.js';
import { fromSpreadsheetSafe } from '../../kernel/csv-cells.js';
import { AppError, RowsRefused, invalid } from '../../kernel/errors.js';
import { isLine, LINE_RULE } from '../../kernel/text-rules.js';
import { emit, emitPoolLow } from '../../webhooks/domain/webhook-events.js';

/** The pool a ledger entry of this kind takes its code from, if any kind of pool serves it. */
export const poolKindOf = (entryKind: RewardEntryRow['kind']): RewardCodeKind | undefined =>
  (REWARD_CODE_KINDS as readonly string[]).includes(entryKind) ? (entryKind as RewardCodeKind) : undefined;

/** The kinds of pool a campaign has (kept on the campaign, so a credit reads nothing to know). */
export const poolKinds = (c: CampaignRow): Set<RewardCodeKind> =>
  new Set(c.reward_code_kinds === null ? [] : (c.reward_code_kinds.split(',') as RewardCodeKind[]));

/** A code as stored: trimmed, one line, 1 to MAX_REWARD_CODE_LENGTH characters; else 400 naming `field`. */
export function checkCode(raw: string, field: string): string {
  const code = raw.trim();
  if (code === '') throw invalid(field, `${field} is empty: a reward code has at least one character`);
  if (code.length > MAX_REWARD_CODE_LENGTH) throw invalid(field, `${field} is ${code.length} characters long; a reward code has at most ${MAX_REWARD_CODE_LENGTH}`);
  if (!isLine(code)) throw invalid(field, `${field} ${LINE_RULE}`);
  return code;
}

/** A code that went to a credit of a batch, for its reward_unlocked. */
export interface GivenCode {
  code: string;
  kind: RewardCodeKind;
  label: string;
}

/**
 * The codes one transaction's credits draw (a RewardBatch's). A draw that finds the pool empty takes the
 * pool's lock and looks again, so that it cannot miss a refill committing meanwhile (the refill holds
 * that lock until it has served those waiting). settle() then fires reward_codes_low for the pools this
 * batch drew from that crossed the threshold.
 */
export class CodeDraws {
  readonly #kinds: Set<RewardCodeKind>;
  readonly #drawnFrom = new Set<RewardCodeKind>();
  readonly #locked = new Set<RewardCodeKind>();

  constructor(
    private readonly tx: Store,
    private readonly campaign: CampaignRow,
    private readonly now: number,
  ) {
    this.#kinds = poolKinds(campaign);
  }

  /** The pool a credit of `entryKind` becoming available takes a code from, if the campaign has it. */
  poolFor(entryKind: RewardEntryRow['kind']): RewardCodeKind | undefined {
    const kind = poolKindOf(entryKind);
    return kind !== undefined && this.#kinds.has(kind) ? kind : undefined;
  }

  /** A code of the pool, or undefined when it is empty (the credit then waits for a refill). */
  async draw(kind: RewardCodeKind): Promise<string | undefined> {
    this.#drawnFrom.add(kind);
    const code = await this.tx.rewardCodes.draw(this.campaign.id, kind, this.now);
    if (code !== undefined || this.#locked.has(kind)) return code;
    await this.tx.rewardCodes.lockPool(this.campaign.id, kind);
    this.#locked.add(kind);
    return this.tx.rewardCodes.draw(this.campaign.id, kind, this.now);
  }

  /** Fires reward_codes_low for each pool drawn from that fell below the threshold; true when one was queued. */
  async settle(): Promise<boolean> {
    let queued = false;
    for (const kind of this.#drawnFrom) if (await lowEvent(this.tx, this.campaign, kind, this.now)) queued = true;
    return queued;
  }
}

/** reward_codes_low, if the pool is below the threshold and was not already low (once per crossing). */
async function lowEvent(tx: Store, campaign: CampaignRow, kind: RewardCodeKind, now: number): Promise<boolean> {
  const threshold = campaign.reward_codes_low_threshold;
  if (!(await tx.rewardCodes.markLow(campaign.id, kind, threshold))) return false;
  const pool = (await tx.rewardCodes.pools(campaign.id)).find((p) => p.kind === kind)!;
  return emitPoolLow(tx, campaign, { campaignId: campaign.id, threshold, ...pool }, now);
}

/** Credits served per read of those waiting. */
const SERVE_BATCH = 500;

/**
 * Adds codes to a campaign's pool of `kind` (creating it), skipping those already in it or repeated, and
 * serves the credits waiting for one, oldest first, each with a reward_unlocked carrying its code. All
 * in one transaction. `codes` are checked (checkCode) by the caller, who knows where each came from.
 */
export async function addRewardCodes(ctx: Ctx, actor: Actor, campaignId: string, kind: RewardCodeKind, codes: readonly string[]): Promise<RewardCodesAdded> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const unique = [...new Set(codes)];
  const now = ctx.now();
  const { answer, queued } = await ctx.store.transaction(async (tx) => {
    const kinds = await tx.rewardCodes.lockPoolKinds(campaign.id);
    await tx.rewardCodes.ensurePool(campaign.id, kind, now);
    if (!kinds.has(kind)) await tx.updateCampaign(campaign.id, { reward_code_kinds: [...kinds, kind].sort().join(',') });
    await tx.rewardCodes.lockPool(campaign.id, kind);
    const added = await tx.rewardCodes.insertCodes(campaign.id, kind, unique, now);
    let queued = false;
    let served = 0;
    serving: for (;;) {
      const waiting = await tx.rewardCodes.waiting(campaign.id, kind, SERVE_BATCH);
      for (const e of waiting) {
        const code = await tx.rewardCodes.draw(campaign.id, kind, now);
        if (code === undefined) break serving;
        await tx.rewardCodes.setEntryCode(e.id, kind, code);
        served++;
        const given = [{ code, kind, label: e.label }];
        if (await emit(tx, 'reward_unlocked', e.participant_id, campaign, now, { rewardCode: code, rewardCodes: given })) queued = true;
      }
      if (waiting.length < SERVE_BATCH) break;
    }
    // Back to the threshold: the next fall below it fires again. Still below it after serving: as a draw.
    if ((await tx.rewardCodes.available(campaign.id, kind)) >= campaign.reward_codes_low_threshold) await tx.rewardCodes.clearLow(campaign.id, kind);
    else if (served > 0 && (await lowEvent(tx, campaign, kind, now))) queued = true;
    const pool = (await tx.rewardCodes.pools(campaign.id)).find((p) => p.kind === kind)!;
    return { answer: { added, duplicates: codes.length - added, served, pool }, queued };
  });
  if (queued) ctx.onEventsCommitted?.();
  return answer;
}

/** A campaign's pools with what is left, used and waiting. */
export async function listRewardCodePools(ctx: Ctx, actor: Actor, campaignId: string): Promise<RewardCodePool[]> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  return ctx.store.rewardCodes.pools(campaign.id);
}

/** The longest line of a codes file: a code at its longest, quoted and in a few columns, is far under it. */
export const MAX_CODE_RECORD_BYTES = 4 * 1024;

/** The most refused lines an answer lists. */
const MAX_REPORTED_ERRORS = 100;

/**
 * The codes of a CSV file: one per line, or, when the first line is a header naming a `code` column, that
 * column of each line. Every bad code is reported with its line (RowsRefused, 400) and none is added;
 * a malformed file, or more than MAX_REWARD_CODES_PER_FILE codes, is a 400 too.
 */
export async function codesOfCsv(input: NodeJS.ReadableStream): Promise<string[]> {
  const codes: string[] = [];
  const problems: { line: number; field: string; message: string }[] = [];
  let column: number | undefined;
  let rows = 0;
  let refused = 0;
  // Every line ending, even mixed: a list pasted together from several sources is still one code per line.
  const records = guardedCsv<string[]>(input, MAX_CODE_RECORD_BYTES, { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n', '\r'] });
  for await (const { record, info } of records) {
    if (column === undefined) {
      const header = record.findIndex((cell) => cell.trim().toLowerCase() === 'code');
      column = header === -1 ? 0 : header;
      if (header !== -1) continue;
      if (record.length > 1) throw invalid('file', 'The file has several columns: name the one holding the codes `code` in a header line');
    }
    if (++rows > MAX_REWARD_CODES_PER_FILE) throw invalid('file', `The file has more than ${MAX_REWARD_CODES_PER_FILE} codes: split it`);
    try {
      codes.push(checkCode(fromSpreadsheetSafe(record[column] ?? ''), 'code'));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused++;
      if (problems.length < MAX_REPORTED_ERRORS) problems.push({ line: info.lines, field: 'code', message: err.message });
    }
  }
  if (refused > 0) {
    throw new RowsRefused(`${refused} of ${rows} codes cannot be added, so none was: correct ${refused === 1 ? 'it' : 'them'} and upload the file again`, problems);
  }
  if (codes.length === 0) throw invalid('file', 'The file has no codes');
  return codes;
}
