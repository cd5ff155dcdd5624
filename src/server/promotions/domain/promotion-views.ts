/**
 * Reading the promotion codes: a participant's own (the one they share; on getMyReferrals, the portal and
 * the owner's participant detail), the one a visitor's checkout applies (the public getPromotionCode: the
 * captured referrer's, with what it takes off), and the owner's list of codes with their state.
 *
 * Two codes, never confused: a participant's `promotionCode` is theirs to share; getPromotionCode answers
 * for the code a visitor arrived with, which is their referrer's.
 */
import type { PromotionCodeOffer, PromotionCodeRef, PromotionCodeView } from '../../../api/promotion-schemas.js';
import type { PromotionCodeStatus } from '../../store/tables.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import { findCampaign, ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';
import { refereeDiscountOf } from './referee-discount.js';

const notFound = () => new AppError(404, 'promotion_code_not_found', 'No promotion code is made for this referral code in this campaign (the campaign has no refereeDiscount, or the code is not made yet)', 'code');

/** A participant's promotion code of the current discount: their current code's, else an earlier code's still active. */
export async function ownPromotionCode(store: Store, campaign: CampaignRow, participant: Pick<ParticipantRow, 'id' | 'code'>): Promise<PromotionCodeRef | null> {
  if (campaign.referee_discount === null) return null;
  const made = await store.promotionCodes.made(participant.id, campaign.discount_generation);
  const own = made.find((m) => m.code === participant.code) ?? made[0];
  return own?.stripe_id ? { code: own.stripe_code, id: own.stripe_id } : null;
}

/** `{promotionCode}` to spread into an answer about the participant, or nothing until their code is made. */
export async function promotionCodeField(store: Store, campaign: CampaignRow, participant: Pick<ParticipantRow, 'id' | 'code'>): Promise<{ promotionCode?: PromotionCodeRef }> {
  const own = await ownPromotionCode(store, campaign, participant);
  return own ? { promotionCode: own } : {};
}

/** The promotion code of `rawCode`'s owner (the captured referrer), with what it takes off; 404 when there is none. */
export async function getPromotionCode(ctx: Ctx, campaignId: string, rawCode: string): Promise<PromotionCodeOffer> {
  const campaign = await findCampaign(ctx, campaignId);
  const discount = refereeDiscountOf(campaign);
  if (!discount) throw notFound();
  const code = rawCode.trim().toUpperCase();
  const owner = await ctx.store.codeOwner(campaign.id, code);
  if (!owner) throw notFound();
  const made = await ctx.store.promotionCodes.made(owner.id, campaign.discount_generation);
  // The code the visitor arrived with, if it has its own (an earlier code of theirs, still theirs), else the owner's newest.
  const it = made.find((m) => m.code === code) ?? made[0];
  if (!it?.stripe_id) throw notFound();
  return {
    code: it.stripe_code,
    id: it.stripe_id,
    ...(discount.percentOff !== undefined && { percentOff: discount.percentOff }),
    ...(discount.amountOff !== undefined && { amountOff: discount.amountOff.toFixed(2) }),
    currency: campaign.reward_currency,
    duration: discount.duration,
    ...(discount.durationInMonths !== undefined && { durationInMonths: discount.durationInMonths }),
  };
}

/** The campaign's codes with their state, newest first: what is made, what waits, and why one is not made. */
export async function listPromotionCodes(ctx: Ctx, actor: Actor, campaignId: string, status: PromotionCodeStatus | undefined, limit: number): Promise<PromotionCodeView[]> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const rows = await ctx.store.promotionCodes.list(campaign.id, status, limit);
  return rows.map((r) => ({
    email: r.email,
    code: r.code,
    stripeCode: r.stripe_code,
    ...(r.stripe_id !== null && { id: r.stripe_id }),
    status: r.status,
    ...(r.reason !== null && { reason: r.reason }),
    current: r.generation === campaign.discount_generation,
    updatedOn: iso(r.updated_on),
  }));
}
