/**
 * Holding a participant for the owner's review because one of the owner's fraud controls matched: a
 * blocklist, a payment with the referrer's card or customer, a payout method another participant has,
 * or an auto-approval limit. Their rewards wait (a referral pays only when both its sides are approved:
 * ../../rewards/domain/rewards.ts), and the signal, with its reason in words, joins the open case of the
 * referrer it is about (the participant themself when nobody referred them), which the owner approves or
 * rejects as a whole (./fraud-cases.ts). A rule matching the same participant twice records it once.
 *
 * The reasons are the owner's alone: a keyed caller reads them in heldReason; no keyless answer says which
 * rule matched (a blocked browser sign-up is refused with one message whatever the rule).
 */
import type { Ctx } from '../../kernel/context.js';
import type { ParticipantRow } from '../../store/store.js';
import type { FraudSignalKind } from '../../../api/fraud-schemas.js';

export interface FraudSignal {
  kind: FraudSignalKind;
  /** What matched, in words, for the owner (never shown to the participant or a browser). */
  detail: string;
}

/** Whom a participant's signals are grouped under: their referrer, else themself. */
export const caseSubject = (p: Pick<ParticipantRow, 'id' | 'referred_by_id'>): number => p.referred_by_id ?? p.id;

/**
 * Holds `p` for review with `signal` (in the caller's transaction, when it has one): the signal joins the
 * open case of `p`'s referrer, and `p`'s approval is withdrawn until the owner decides. A rule that
 * matched `p` before adds nothing: once the owner has decided on it, the same match does not hold them
 * again. Answers whether `p` was held by this call.
 */
export async function holdForReview(ctx: Ctx, p: Pick<ParticipantRow, 'id' | 'campaign_id' | 'referred_by_id' | 'approval'>, signal: FraudSignal): Promise<boolean> {
  if (await ctx.store.fraudCases.hasSignal(p.id, signal.kind)) return false;
  const now = ctx.now();
  const caseId = await ctx.store.fraudCases.openCase(p.campaign_id, caseSubject(p), now);
  // Recorded once (a unique index): a concurrent match of the same rule joins the same case and holds the same way.
  await ctx.store.fraudCases.addSignal({ campaign_id: p.campaign_id, case_id: caseId, participant_id: p.id, kind: signal.kind, detail: signal.detail, created_on: now });
  if (p.approval !== 0) await ctx.store.hold(p.id, now);
  return true;
}

/** The reasons recorded for `p`'s hold, in words, oldest first. */
export async function heldSignals(ctx: Ctx, p: Pick<ParticipantRow, 'id'>): Promise<string[]> {
  return (await ctx.store.fraudCases.signalsOf(p.id)).map((s) => s.detail);
}
