/**
 * A participant reads their own standing, in any campaign state (a paused or ended campaign takes no
 * sign-ups, but its participants keep their link, referrals and balances): their record without
 * fraudScore, and who they referred, each shown by first name or masked email with a status. Only with
 * proof (./proof.ts): the browser's participant token, or the host's email signature for `email`.
 */
import { MAX_MY_REFERRALS, type MyReferral, type MyReferrals } from '../../api/widget-schemas.js';
import type { ParticipantRow } from '../store/store.js';
import { findCampaign } from './campaigns.js';
import type { Ctx } from './context.js';
import { normalizeEmail } from './email.js';
import { AppError, participantNotFound } from './errors.js';
import { presentParticipant } from './present.js';
import { assertSignature, tokenParticipant, type Proof } from './proof.js';
import { iso } from './time.js';

const proofRequired = () =>
  new AppError(
    401,
    'unauthorized',
    'Proof of being the participant is required: the Refkit-Participant-Token this browser was given, or email with Refkit-Email-Signature',
  );

/** `ann.lee@example.com` -> `a***@example.com`: enough to recognise a friend, not to write to them. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

export function describeReferral(p: ParticipantRow): MyReferral {
  const first = p.first_name?.trim().split(/\s+/)[0];
  return {
    name: first || maskEmail(p.email),
    status: p.approval === 0 ? 'in_review' : p.reward_event_completed === 1 ? 'qualified' : 'joined',
    joinedOn: iso(p.created_on),
  };
}

export async function myReferrals(ctx: Ctx, campaignId: string, email: string | undefined, proof: Proof): Promise<MyReferrals> {
  const campaign = await findCampaign(ctx, campaignId);
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
  const rows = await ctx.store.listParticipants({ campaignId: campaign.id, referredById: participant.id }, { offset: 0 }, MAX_MY_REFERRALS + 1);
  return {
    participant: presentParticipant(participant, campaign, 'self'),
    referrals: rows.slice(0, MAX_MY_REFERRALS).map(describeReferral),
    more: rows.length > MAX_MY_REFERRALS,
  };
}
