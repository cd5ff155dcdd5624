/**
 * Why a participant's rewards are held back, told to a caller with a secret key beside the interface's
 * fields (KeyedParticipant): a referral pays only when both its sides are approved (../../rewards/domain/rewards.ts), and a
 * backend that qualifies a held participant would otherwise get a 200 that credits nothing and says so
 * nowhere. Keyless callers are never told: the reasons are fraud signals, the owner's alone.
 */
import type { KeyedParticipant } from '../../../api/schemas.js';
import type { ParticipantRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { signals } from './directory.js';

type Hold = Pick<KeyedParticipant, 'held' | 'heldReason'>;

const RELEASE = 'Their rewards wait until you approve them in the dashboard\'s review queue (or with "refkit approve").';

/** Why a held participant is held, in words: rejected by the owner, or the signals fraud scoring and the owner's controls saw. */
async function why(ctx: Ctx, p: ParticipantRow, referrer: ParticipantRow | undefined): Promise<string> {
  if (await ctx.store.directory.isRejected(p.id)) return 'rejected by the owner';
  // A keyed or imported sign-up is not scored: its hold is an owner's control (../../fraud/domain/fraud-holds.ts).
  const score = p.fraud_score === '' ? '' : ` (fraud score ${p.fraud_score})`;
  return `held for review${score}: ${(await signals(ctx, p, referrer)).join('; ')}`;
}

/** The hold on `p`'s rewards, if any: on `p` itself, or on its referrer (the referral waits for both). */
export async function holdOf(ctx: Ctx, p: ParticipantRow): Promise<Hold> {
  // Approved, and their referral credited: nothing of theirs waits (and the referrer need not be read).
  if (p.approval === 1 && p.reward_credited === 1) return {};
  const referrer = p.referred_by_id === null ? undefined : await ctx.store.findParticipant(p.referred_by_id);
  if (p.approval === 0) return { held: true, heldReason: `${p.email} is ${await why(ctx, p, referrer)}. ${RELEASE}` };
  if (referrer && referrer.approval === 0) {
    const upstream = referrer.referred_by_id === null ? undefined : await ctx.store.findParticipant(referrer.referred_by_id);
    return { held: true, heldReason: `The referrer ${referrer.email} is ${await why(ctx, referrer, upstream)}. This referral's rewards wait for them: approve the referrer in the dashboard's review queue (or with "refkit approve").` };
  }
  return {};
}
