/**
 * Vanity codes: a participant (through the widget or their portal) or the campaign's owner replaces the
 * participant's referral code with one they chose. The rules, in one place:
 *
 * - 4 to 24 of A-Z, 0-9 and `-`, case-insensitive (kept in capitals, as every code), not starting or ending
 *   with `-`; not a reserved word or one of the offensive words (./code-words.ts);
 * - unique in the campaign among current codes and earlier ones (409 code_taken);
 * - at most MAX_CODE_CHANGES_PER_DAY changes a participant in 24 hours (429);
 * - the replaced code stays theirs as an alias: links and codes already shared keep naming them (the
 *   store's codeOwner reads aliases on a miss), and its Stripe promotion code stays active; the new code
 *   gets its own promotion code when the campaign has a referee discount.
 */
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { queueCodeFor } from '../../promotions/domain/referee-discount.js';
import { blockedWord } from './code-words.js';

export const MIN_VANITY_LENGTH = 4;
export const MAX_VANITY_LENGTH = 24;
export const MAX_CODE_CHANGES_PER_DAY = 3;
const DAY_MS = 86_400_000;

/** The chosen code as kept (capitals), or a 400 naming `code` that says which rule it breaks. */
export function checkVanityCode(raw: string): string {
  const code = raw.trim().toUpperCase();
  if (code.length < MIN_VANITY_LENGTH || code.length > MAX_VANITY_LENGTH) throw invalid('code', `A code has ${MIN_VANITY_LENGTH} to ${MAX_VANITY_LENGTH} characters`);
  if (!/^[A-Z0-9-]+$/.test(code)) throw invalid('code', 'A code has only letters A-Z, digits and -');
  if (code.startsWith('-') || code.endsWith('-')) throw invalid('code', 'A code does not start or end with -');
  if (blockedWord(code)) throw new AppError(400, 'code_not_allowed', 'This code cannot be used: choose another', 'code');
  return code;
}

const taken = () => new AppError(409, 'code_taken', 'Another participant of this campaign has this code: choose another', 'code');

/** A unique violation on the participants' codes (two changes to one code at once): the code is taken. */
const isUniqueViolation = (err: unknown) =>
  (err as { code?: string }).code === '23505' || /UNIQUE constraint failed/.test((err as Error).message ?? '');

/** Gives the participant the code they chose; answers their row as it is now. */
export async function setReferralCode(ctx: Ctx, campaign: CampaignRow, participant: ParticipantRow, raw: string): Promise<ParticipantRow> {
  const code = checkVanityCode(raw);
  if (code === participant.code) return participant;
  const now = ctx.now();
  await ctx.store.transaction(async (tx) => {
    if ((await tx.referralCodes.changesSince(participant.id, now - DAY_MS)) >= MAX_CODE_CHANGES_PER_DAY) {
      throw new AppError(429, 'rate_limited', `A participant's code changes at most ${MAX_CODE_CHANGES_PER_DAY} times a day: try again tomorrow`, 'code', { 'retry-after': String(DAY_MS / 1000) });
    }
    const holder = await tx.referralCodes.holder(campaign.id, code);
    if (holder && holder.participantId !== participant.id) throw taken();
    try {
      if (!(await tx.referralCodes.replace(campaign.id, participant.id, participant.code, code, now))) {
        throw new AppError(409, 'code_changed', 'The code was changed meanwhile: read it again', 'code');
      }
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
    await queueCodeFor(tx, campaign, participant.id, code, now);
  });
  return (await ctx.store.findParticipant(participant.id))!;
}
