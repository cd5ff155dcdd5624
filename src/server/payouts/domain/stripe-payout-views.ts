/** The owner's view of Stripe credit out (./stripe-payouts.ts): the payouts of a campaign, and retrying one. */
import type { ListStripePayoutsQuery, StripePayoutView } from '../../../api/billing-schemas.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { fetchPage, pageRequest, type PageResult } from '../../kernel/paging.js';
import { iso } from '../../kernel/time.js';
import type { ListedStripePayout, StripePayoutRow } from '../store/stripe-payout-store.js';

export async function listStripePayouts(ctx: Ctx, actor: Actor, query: ListStripePayoutsQuery): Promise<PageResult<ListedStripePayout>> {
  const { id, status, ...paging } = query;
  const campaign = await ownCampaign(ctx, actor, id);
  return fetchPage(pageRequest(paging), (start, limit) => ctx.store.stripePayouts.list(campaign.id, status, start, limit));
}

/** Sends a failed or waiting payout again now (a failed one as a new Stripe request). */
export async function retryStripePayout(ctx: Ctx, actor: Actor, campaignId: string, payoutId: number): Promise<StripePayoutView> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const retried = await ctx.store.stripePayouts.retry(campaign.id, payoutId, ctx.now());
  const row = retried ?? (await ctx.store.stripePayouts.find(campaign.id, payoutId));
  if (!row) throw new AppError(404, 'not_found', 'This campaign has no Stripe payout with this id', 'payoutId');
  if (!retried) {
    const why = row.status === 'paid' ? 'it is paid' : 'it is being sent to Stripe at this moment';
    throw new AppError(409, 'invalid_transition', `This payout cannot be retried: ${why}`, 'payoutId');
  }
  const participant = await ctx.store.findParticipant(row.participant_id);
  return presentStripePayout({ ...row, email: participant?.email ?? '' });
}

export function presentStripePayout(r: StripePayoutRow & { email: string }): StripePayoutView {
  return {
    id: Number(r.id),
    email: r.email,
    rewardKind: r.reward_kind,
    amount: Number(r.amount),
    currency: r.currency,
    mode: r.mode,
    label: r.label,
    status: r.status,
    attempts: r.attempts,
    ...(r.last_error && r.status !== 'paid' && { lastError: r.last_error }),
    ...(r.next_attempt_on !== null && r.status !== 'paid' && r.status !== 'failed' && { nextAttemptOn: iso(Number(r.next_attempt_on)) }),
    ...(r.customer && { customer: r.customer }),
    ...(r.stripe_id && { stripeId: r.stripe_id }),
    ...(r.promotion_code && { promotionCode: r.promotion_code }),
    createdOn: iso(Number(r.created_on)),
    ...(r.paid_on !== null && { paidOn: iso(Number(r.paid_on)) }),
  };
}
