/**
 * A participant reads their own standing, in any campaign state (a paused or ended campaign takes no
 * sign-ups, but its participants keep their link, referrals and balances): their record without
 * fraudScore, and who they referred, each shown by first name or masked email with a status. Only with
 * proof (./proof.ts): the browser's participant token, or the host's email signature for `email`.
 */
import { MAX_MY_CODES, MAX_MY_PENDING, MAX_MY_REFERRALS, type MyReferral, type MyReferrals, type MyRewards, type ReferralStatus } from '../../../api/widget-schemas.js';
import { promotionCodeField } from '../../promotions/domain/promotion-views.js';
import type { CampaignRow, ParticipantRow, RewardEntryRow, Store } from '../../store/store.js';
import { findCampaign } from '../../campaigns/domain/campaigns.js';
import type { Ctx } from '../../kernel/context.js';
import { maskEmail, normalizeEmail, shownFirstName } from '../../kernel/email.js';
import { AppError, participantNotFound } from '../../kernel/errors.js';
import { myRank } from '../../engagement/domain/leaderboard.js';
import { myWaitlist } from '../../engagement/domain/waitlist.js';
import { presentParticipant } from './present.js';
import { rulesOf } from '../../rewards/domain/reward-rules.js';
import { assertSignature, tokenParticipant, type Proof } from './proof.js';
import { iso } from '../../kernel/time.js';

/**
 * Pending credits read for the answer: enough to show the first MAX_MY_PENDING and to date the held
 * referrals listed (a referral's credit is one of the participant's pending entries).
 */
const MAX_MY_PENDING_READ = MAX_MY_REFERRALS + MAX_MY_PENDING;

const proofRequired = () =>
  new AppError(
    401,
    'unauthorized',
    'Proof of being the participant is required: the Refkit-Participant-Token this browser was given, or email with Refkit-Email-Signature',
  );

/** Where a referral stands; `heldUntil`: when the referrer's reward for it becomes available, if it is held. */
function referralStatus(p: ParticipantRow, heldUntil: number | undefined): ReferralStatus {
  if (p.approval === 0) return 'in_review';
  if (p.reward_event_completed === 0) return p.refunded === 1 ? 'refunded' : 'joined';
  // Qualified but not credited: waiting for their referrer's review.
  if (p.reward_credited === 0) return 'in_review';
  return heldUntil === undefined ? 'qualified' : 'pending';
}

export function describeReferral(p: ParticipantRow, heldUntil?: number): MyReferral {
  const status = referralStatus(p, heldUntil);
  return {
    name: shownFirstName(p.first_name) ?? maskEmail(p.email),
    status,
    joinedOn: iso(p.created_on),
    ...(status === 'pending' && { availableOn: iso(heldUntil!) }),
  };
}

/** The participant's pending credits, what they owe back, their milestones and reward codes. */
function myRewards(p: ParticipantRow, campaign: CampaignRow, pending: RewardEntryRow[], codes: MyCodes | undefined): MyRewards {
  const { milestones } = rulesOf(campaign);
  return {
    ...(codes && {
      codes: codes.given.map((c) => ({ code: c.code, label: c.label, kind: c.code_kind })),
      ...(codes.waiting > 0 && { codesWaiting: codes.waiting }),
    }),
    pending: pending.slice(0, MAX_MY_PENDING).map((e) => ({ rewardKind: e.reward_kind, amount: e.amount, availableOn: iso(e.available_on), label: e.label })),
    owed: { referral: p.referral_reward_owed, referee: p.referee_reward_owed },
    milestones: {
      qualifiedReferrals: p.credited_referrals,
      reached: milestones.filter((m) => m.referrals <= p.milestones_reached),
      next: milestones.find((m) => m.referrals > p.milestones_reached) ?? null,
    },
  };
}

type MyCodes = Awaited<ReturnType<Store['rewardCodes']['ofParticipant']>>;

/**
 * The participant a browser proves it is: by the host's email signature (for `email`), or by its participant
 * token; 401 without proof. The signature is judged before the email is looked up, so a forged one learns
 * nothing of who has joined.
 */
export async function provenParticipant(ctx: Ctx, campaign: CampaignRow, email: string | undefined, proof: Proof): Promise<ParticipantRow> {
  let participant: ParticipantRow | undefined;
  if (proof.emailSignature !== undefined) {
    if (email === undefined) throw new AppError(400, 'invalid_request', 'email is required with Refkit-Email-Signature', 'email');
    const normalized = normalizeEmail(email);
    // The signature first (401 invalid_signature when it is not this email's): only then may the answer
    // tell whether the email is a participant, or a forged signature would learn who has joined.
    assertSignature(campaign, normalized, proof.emailSignature);
    participant = await ctx.store.findParticipantByEmail(campaign.id, normalized);
    if (!participant) throw participantNotFound();
  } else if (proof.token !== undefined) {
    const id = await tokenParticipant(ctx, proof.token);
    participant = id === undefined ? undefined : await ctx.store.findParticipant(id);
    // A token of another campaign proves nothing here.
    if (participant?.campaign_id !== campaign.id) participant = undefined;
  }
  if (!participant) throw proofRequired();
  return participant;
}

export async function myReferrals(ctx: Ctx, campaignId: string, email: string | undefined, proof: Proof): Promise<MyReferrals> {
  const campaign = await findCampaign(ctx, campaignId);
  const participant = await provenParticipant(ctx, campaign, email, proof);
  const rows = await ctx.store.listParticipants({ campaignId: campaign.id, referredById: participant.id }, { offset: 0 }, MAX_MY_REFERRALS + 1);
  // Pending credits, soonest first: the participant's own, and when each referral's reward to them is due.
  const pending = await ctx.store.rewardEntries.pending(participant.id, MAX_MY_PENDING_READ);
  const heldUntil = new Map<number, number>();
  for (const e of pending) if (e.kind === 'referral' && e.referee_id !== null && !heldUntil.has(e.referee_id)) heldUntil.set(e.referee_id, e.available_on);
  // Only a campaign with pools reads codes: the others' answers cost what they did before.
  const codes = campaign.reward_code_kinds === null ? undefined : await ctx.store.rewardCodes.ofParticipant(participant.id, MAX_MY_CODES);
  const rank = await myRank(ctx, campaign, participant);
  const waitlist = await myWaitlist(ctx, campaign, participant);
  return {
    participant: presentParticipant(participant, campaign, 'self'),
    referrals: rows.slice(0, MAX_MY_REFERRALS).map((r) => describeReferral(r, heldUntil.get(r.id))),
    more: rows.length > MAX_MY_REFERRALS,
    rewards: myRewards(participant, campaign, pending, codes),
    ...(rank && { leaderboard: rank }),
    ...(waitlist && { waitlist }),
    ...(await promotionCodeField(ctx.store, campaign, participant)),
  };
}
