/**
 * The re-sign-up block of an erased address: for ERASURE_BLOCK_DAYS after an erasure, a participant who
 * signs up with the same address may join, but their referral is never credited (no referee reward for
 * them, no referral credit, commission or milestone for their referrer). The address itself is not kept:
 * only its HMAC-SHA256 under a random salt of the account (../store/person-store.ts), which cannot be
 * reversed without the salt and does not link accounts.
 */
import { createHmac } from 'node:crypto';
import { isErasedEmail } from '../../../api/erased.js';
import type { CampaignRow, Store } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { DAY_MS } from '../../kernel/time.js';

export const DEFAULT_ERASURE_BLOCK_DAYS = 365;

/** The salted hash an erased address is kept as (of the address as the service keeps it: trimmed, lower-cased). */
export const addressHash = (salt: string, email: string) => createHmac('sha256', salt).update(email).digest('hex');

export const blockMs = (ctx: Pick<Ctx, 'erasureBlockDays'>) => (ctx.erasureBlockDays ?? DEFAULT_ERASURE_BLOCK_DAYS) * DAY_MS;

/**
 * Whether a referee's sign-up falls under an erasure's block: their address was erased from the account,
 * and they signed up before the block ended. No lower bound: every participant with the address when it
 * was erased was erased, so one found now signed up again (a sign-up racing the erasure included).
 * In an account that never erased anyone this reads nothing (its salt is cached as absent).
 */
export async function refereeBlocked(tx: Store, campaign: CampaignRow, refereeId: number, block: number): Promise<boolean> {
  const salt = await tx.people.salt(campaign.account_id);
  if (salt === null) return false;
  const referee = await tx.findParticipant(refereeId);
  if (!referee || isErasedEmail(referee.email)) return false;
  const erasedOn = await tx.people.erasedOn(campaign.account_id, addressHash(salt, referee.email));
  return erasedOn !== undefined && referee.created_on < erasedOn + block;
}
