/** Participant rules: joining (with or without a referrer), qualifying, crediting, redeeming, lists. */
import type { AddParticipantBody, PagingQuery, QualifyParticipantBody, RedeemRewardBody } from '../../api/schemas.js';
import type { CampaignRow, ParticipantRow, RewardKind, Store } from '../store/store.js';
import { assertOpen, findCampaign, ownCampaign } from './campaigns.js';
import { newReferralCode } from './codes.js';
import type { Actor, Ctx } from './context.js';
import { normalizeEmail, emailKey } from './email.js';
import { AppError, participantNotFound } from './errors.js';
import { scoreSignup } from './fraud.js';
import { fetchPage, pageRequest, type PageResult } from './paging.js';
import { emit } from './webhooks.js';

/** How a signup arrived: with a secret key (the product's backend) or keyless (a browser). */
export interface SignupSource {
  source: 'api' | 'browser';
  ip: string | null;
  /** The account of the secret key, for API signups: a key acts only on its own account's campaigns. */
  actor?: Actor;
}

export interface ParticipantView {
  participant: ParticipantRow;
  campaign: CampaignRow;
}

/** Codes are shown in capitals; people type them in any case and with stray spaces. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();

/** Tries enough fresh codes that a collision (about 1 in 10^11 per pair) can never surface as an error. */
const CODE_ATTEMPTS = 5;

export async function addParticipant(ctx: Ctx, input: AddParticipantBody, how: SignupSource): Promise<ParticipantView> {
  const email = normalizeEmail(input.email);
  const referredByEmail = input.referredByEmail ? normalizeEmail(input.referredByEmail, 'referredByEmail') : undefined;
  const referredByCode = input.referredByCode ? normalizeCode(input.referredByCode) : undefined;
  if (referredByEmail === email) throw new AppError(409, 'self_referral', 'A participant cannot refer themselves', 'referredByEmail');

  const campaign = how.actor ? await ownCampaign(ctx, how.actor, input.id) : await findCampaign(ctx, input.id);
  assertOpen(campaign, ctx.now());

  const existing = await ctx.store.findParticipantByEmail(campaign.id, email);
  if (existing) return { participant: existing, campaign };

  const referrer = await findReferrer(ctx.store, campaign.id, referredByCode, referredByEmail);
  const fraudScore = how.source === 'browser' ? await scoreSignup(ctx, { campaignId: campaign.id, email, ip: how.ip, referrer }) : '';

  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const now = ctx.now();
    const id = await ctx.store.transaction(async (tx) => {
      const inserted = await tx.insertParticipant({
        campaign_id: campaign.id,
        email,
        email_key: emailKey(email),
        first_name: input.firstName?.trim() || null,
        last_name: input.lastName?.trim() || null,
        code: newReferralCode(),
        referred_by_id: referrer?.id ?? null,
        referred_by_code: referrer?.code ?? null,
        created_on: now,
        updated_on: now,
        signup_source: how.source,
        signup_ip: how.ip,
        fraud_score: fraudScore,
        approval: fraudScore === 'high' ? 0 : 1,
      });
      if (inserted === undefined) return undefined;
      if (referrer) await tx.incrementReferrals(referrer.id, now);
      await emit(tx, referrer ? 'referee_added' : 'referrer_added', inserted, campaign, now);
      return inserted;
    });
    if (id !== undefined) {
      ctx.onEventsCommitted?.();
      return { participant: (await ctx.store.findParticipant(id))!, campaign };
    }
    // Nothing inserted: either the same email joined concurrently (answer with that participant, as the
    // serial order "theirs first" would), or the code was taken (try another).
    const raced = await ctx.store.findParticipantByEmail(campaign.id, email);
    if (raced) return { participant: raced, campaign };
  }
  throw new Error('Could not allocate a unique referral code');
}

async function findReferrer(store: Store, campaignId: string, code?: string, email?: string): Promise<ParticipantRow | undefined> {
  if (code === undefined && email === undefined) return undefined;
  const byCode = code !== undefined ? await store.findParticipantByCode(campaignId, code) : undefined;
  const byEmail = email !== undefined ? await store.findParticipantByEmail(campaignId, email) : undefined;
  const referrer = byCode ?? byEmail;
  if (!referrer || (byCode && byEmail && byCode.id !== byEmail.id)) {
    const field = code !== undefined ? 'referredByCode' : 'referredByEmail';
    throw new AppError(404, 'referrer_not_found', 'No participant of this campaign has this referral code or email', field);
  }
  return referrer;
}

/** A participant of one of the actor's campaigns. */
export async function getParticipant(ctx: Ctx, actor: Actor, campaignId: string, rawEmail: string): Promise<ParticipantView> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const participant = await ctx.store.findParticipantByEmail(campaign.id, normalizeEmail(rawEmail));
  if (!participant) throw participantNotFound();
  return { participant, campaign };
}

export async function listParticipants(ctx: Ctx, actor: Actor, campaignId: string, paging: PagingQuery) {
  const req = pageRequest(paging);
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const page = await fetchPage(req, (start, limit) => ctx.store.listParticipants({ campaignId: campaign.id }, start, limit));
  return { campaign, ...page };
}

export async function listReferrals(ctx: Ctx, actor: Actor, campaignId: string, email: string, paging: PagingQuery): Promise<PageResult & { campaign: CampaignRow }> {
  const req = pageRequest(paging);
  const { participant, campaign } = await getParticipant(ctx, actor, campaignId, email);
  const page = await fetchPage(req, (start, limit) =>
    ctx.store.listParticipants({ campaignId: campaign.id, referredById: participant.id }, start, limit),
  );
  return { campaign, ...page };
}

/** Turns "12.34" into 1234 cents; the schema has already checked the shape. */
function cents(amount: string): number {
  const [whole = '0', fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export async function qualifyParticipant(ctx: Ctx, actor: Actor, input: QualifyParticipantBody): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  assertOpen(campaign, ctx.now());
  if (participant.referred_by_id === null) {
    throw new AppError(409, 'not_referred', 'Only a referred participant can complete the qualifying event', 'email');
  }
  const referrerId = participant.referred_by_id;
  const credited = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    if (input.amountPaid !== undefined) await tx.recordPayment(participant.id, referrerId, cents(input.amountPaid), now);
    if (!(await tx.completeRewardEvent(participant.id, now))) return false;
    await tx.incrementCompletedReferred(referrerId, now);
    return creditIfDue(tx, campaign, participant.id, referrerId, now);
  });
  if (credited) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

/**
 * Credits both sides of a referral once its event is complete and the referee is approved. Called after
 * either of the two (qualify, approve); the claim is one conditional statement, so however the calls
 * interleave, exactly one of them credits.
 */
async function creditIfDue(tx: Store, campaign: CampaignRow, refereeId: number, referrerId: number, now: number): Promise<boolean> {
  if (!(await tx.claimRefereeCredit(refereeId, campaign.referee_reward_value, now))) return false;
  await tx.addReferralReward(referrerId, campaign.referrer_reward_value, now);
  // The event goes out for each side even when its reward value is 0: the unlock itself is news.
  await emit(tx, 'reward_unlocked', refereeId, campaign, now);
  await emit(tx, 'reward_unlocked', referrerId, campaign, now);
  return true;
}

export async function approveParticipant(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, campaignId, email);
  const credited = await ctx.store.transaction(async (tx) => {
    const now = ctx.now();
    await tx.approve(participant.id, now);
    return participant.referred_by_id !== null && creditIfDue(tx, campaign, participant.id, participant.referred_by_id, now);
  });
  if (credited) ctx.onEventsCommitted?.();
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

export async function redeemReward(ctx: Ctx, actor: Actor, input: RedeemRewardBody): Promise<ParticipantView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  const kind: RewardKind = input.kind;
  if (!(await ctx.store.redeem(participant.id, kind, input.amount, ctx.now()))) {
    throw new AppError(409, 'insufficient_balance', `The ${kind} reward balance is less than ${input.amount}`, 'amount');
  }
  return { participant: (await ctx.store.findParticipant(participant.id))!, campaign };
}

/** True when the code belongs to a participant of the campaign; a browser check counts an impression. */
export async function validateCode(ctx: Ctx, campaignId: string, rawCode: string, countImpression: boolean): Promise<boolean> {
  const campaign = await findCampaign(ctx, campaignId);
  const owner = await ctx.store.findParticipantByCode(campaign.id, normalizeCode(rawCode));
  if (owner && countImpression) await ctx.store.addImpression(owner.id);
  return owner !== undefined;
}
