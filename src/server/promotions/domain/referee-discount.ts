/**
 * The campaign fields `refereeDiscount` and `promotionCodePrefix`: how they are stored, read and checked,
 * and what a change of them does. The discount lives in Stripe as one coupon per generation: a change of
 * the discount, of the prefix (the codes' text) or of the key (another Stripe account) starts a new
 * generation, whose coupon and codes the outbox makes (./promotion-code-sync.ts), and retires the earlier
 * generation's codes (deactivated in Stripe).
 */
import type { RefereeDiscount } from '../../../api/promotion-schemas.js';
import type { CampaignRow, Store } from '../../store/store.js';
import { invalid } from '../../kernel/errors.js';

export function refereeDiscountOf(c: Pick<CampaignRow, 'referee_discount'>): RefereeDiscount | null {
  return c.referee_discount === null ? null : (JSON.parse(c.referee_discount) as RefereeDiscount);
}

/** The discount as stored (its fields in one order, so that an unchanged one compares equal); 400 naming the field when it is not one. */
export function writeRefereeDiscount(d: RefereeDiscount | null): string | null {
  if (d === null) return null;
  const field = 'refereeDiscount';
  if ((d.percentOff === undefined) === (d.amountOff === undefined)) throw invalid(field, 'refereeDiscount takes exactly one of percentOff and amountOff');
  if (d.percentOff !== undefined && Math.abs(Math.round(d.percentOff * 100) - d.percentOff * 100) > 1e-6) {
    throw invalid(`${field}.percentOff`, 'refereeDiscount.percentOff has at most two decimals (Stripe takes no finer percentage)');
  }
  if (d.duration === 'repeating' && d.durationInMonths === undefined) throw invalid(`${field}.durationInMonths`, 'A repeating discount says for how many months: durationInMonths');
  if (d.duration !== 'repeating' && d.durationInMonths !== undefined) throw invalid(`${field}.durationInMonths`, 'durationInMonths is for a repeating discount only');
  return JSON.stringify({
    ...(d.percentOff !== undefined && { percentOff: Math.round(d.percentOff * 100) / 100 }),
    ...(d.amountOff !== undefined && { amountOff: d.amountOff }),
    duration: d.duration,
    ...(d.durationInMonths !== undefined && { durationInMonths: d.durationInMonths }),
  });
}

/** The prefix as stored: capitals (Stripe's codes are case-blind; Refkit shows codes in capitals), '' is none. */
export const writePromotionCodePrefix = (prefix: string): string | null => (prefix === '' ? null : prefix.toUpperCase());

/** The text Stripe has for a participant's code. */
export const stripeCodeOf = (c: Pick<CampaignRow, 'promotion_code_prefix'>, code: string) => `${c.promotion_code_prefix ?? ''}${code}`;

/** Stripe makes the coupon and the codes with the campaign's restricted key: refuse a discount without one. */
export function assertCanDiscount(patch: Partial<CampaignRow>, current?: CampaignRow): void {
  const discount = patch.referee_discount !== undefined ? patch.referee_discount : (current?.referee_discount ?? null);
  const key = patch.stripe_reward_key !== undefined ? patch.stripe_reward_key : (current?.stripe_reward_key ?? null);
  if (discount !== null && key === null) {
    const field = patch.referee_discount !== undefined ? 'refereeDiscount' : 'stripeRewardKey';
    throw invalid(field, "refereeDiscount is made in Stripe with the campaign's restricted key: set stripeRewardKey (rk_live_... or rk_test_...) too (docs/billing.md lists its permissions)");
  }
}

/** Whether a change of these columns makes the participants' codes anew (a new coupon, a new text, another account). */
export function changesCodes(patch: Partial<CampaignRow>, current: CampaignRow): boolean {
  const changed = (k: 'referee_discount' | 'promotion_code_prefix' | 'stripe_reward_key') => patch[k] !== undefined && patch[k] !== current[k];
  return changed('referee_discount') || changed('promotion_code_prefix') || (current.referee_discount !== null && changed('stripe_reward_key'));
}

/** Queues a promotion code for a participant's new code (a vanity code), in the caller's transaction, when the campaign gives a discount. */
export async function queueCodeFor(tx: Store, campaign: CampaignRow, participantId: number, code: string, now: number): Promise<void> {
  if (campaign.referee_discount === null || campaign.stripe_reward_key === null) return;
  await tx.promotionCodes.queue(campaign.id, campaign.discount_generation, campaign.promotion_code_prefix ?? '', [{ id: participantId, code }], now);
}

/** Applies a campaign change that makes the codes anew, in one transaction: the columns, a new generation, the old codes retired. */
export async function changeCodes(store: Store, campaignId: string, patch: Partial<CampaignRow>, now: number): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.updateCampaign(campaignId, patch);
    await tx.promotionCodes.nextGeneration(campaignId, now);
  });
}
