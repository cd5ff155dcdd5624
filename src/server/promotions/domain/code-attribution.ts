/**
 * Attribution by code alone: a Stripe payment whose discount is a participant's promotion code (a code
 * said on a podcast, typed at checkout, no link followed) makes the buyer that participant's referee.
 *
 * Run before the event's own transaction (../../billing/domain/stripe-events.ts), it sees to it that the
 * buyer is a participant: one unknown is signed up by email with the code's owner as referrer, as the
 * campaign's owner would with addParticipant, so the event then finds them (by email, or the customer a
 * first event linked) and qualifies them as any payment does. A sign-up is idempotent per email, so an
 * event sent again (or after a crash between the two steps) finds the same participant and changes
 * nothing more. The rules of a referral hold as everywhere:
 *
 * - the code's owner using it (their own Stripe customer, or their email) is a self-referral: not
 *   attributed, and the event says so;
 * - a buyer who is a participant already keeps their referrer, or none: a referral is never re-assigned,
 *   and the event says why the code did not count.
 */
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { normalizeEmail } from '../../kernel/email.js';
import { addParticipant } from '../../referrals/domain/signups.js';
import { StripePromotionsApi } from './stripe-promotions-api.js';
import { describeStripeError, stripeApiTarget } from '../../kernel/stripe-clients.js';

/** What a payment event says of its buyer and its discount. */
export interface CodedPayment {
  /** Stripe promotion code ids of its discounts (a checkout's, an invoice's expanded ones). */
  promotionCodes: string[];
  /** An invoice whose discounts came as ids only: read from Stripe with the campaign's key. */
  invoiceToRead?: string | undefined;
  email: string | null;
  customer: string | null;
}

/** The promotion code the payment used and whose it is, and what became of it (a note for the event). */
export interface Attribution {
  promotionCode: string;
  /** Why the code did not make the buyer its owner's referee, if it did not. */
  note?: string;
}

const apis = new Map<string, StripePromotionsApi>();
function apiFor(ctx: Ctx): StripePromotionsApi {
  const url = ctx.payouts?.stripeApiUrl ?? '';
  let api = apis.get(url);
  if (!api) apis.set(url, (api = new StripePromotionsApi({ api: stripeApiTarget(url), timeoutMs: 20_000 })));
  return api;
}

/** The event's promotion codes: those it names, or an invoice's, read from Stripe (a 502 when Stripe cannot be read: Stripe sends the event again). */
async function promotionCodesOf(ctx: Ctx, campaign: CampaignRow, payment: CodedPayment): Promise<string[]> {
  if (payment.promotionCodes.length > 0 || payment.invoiceToRead === undefined || campaign.stripe_reward_key === null) return payment.promotionCodes;
  try {
    return await apiFor(ctx).invoicePromotionCodes(campaign.stripe_reward_key, payment.invoiceToRead);
  } catch (err) {
    throw new AppError(502, 'stripe_unavailable', `The invoice's discounts could not be read from Stripe with the campaign's stripeRewardKey (${describeStripeError(err)}); Stripe sends the event again`);
  }
}

/**
 * If the payment used one of the campaign's promotion codes: makes its buyer the code owner's referee when
 * they are no participant yet, and answers the code with what became of it; undefined otherwise.
 */
export async function attributeByCode(ctx: Ctx, campaign: CampaignRow, payment: CodedPayment): Promise<Attribution | undefined> {
  const ids = await promotionCodesOf(ctx, campaign, payment);
  for (const id of ids) {
    const row = await ctx.store.promotionCodes.byStripeId(campaign.id, id);
    if (!row) continue;
    const owner = await ctx.store.findParticipant(row.participant_id);
    if (!owner) continue;
    const note = await referBuyer(ctx, campaign, owner, row.stripe_code, { email: payment.email, customerKey: payment.customer === null ? null : `customer:${payment.customer}` });
    return { promotionCode: id, ...(note && { note }) };
  }
  // Another promotion code (one made by hand, say): kept on the event, nothing to attribute.
  return ids.length > 0 ? { promotionCode: ids[0]! } : undefined;
}

/**
 * A buyer who paid with `owner`'s code (`shown`: the code as the buyer typed or saw it): signed up as the
 * owner's referee when they are no participant yet. Answers why the code did not count, when it did not:
 * the buyer is the owner (their customer, or their email: a self-referral), or a participant already (a
 * referral is never re-assigned), or the event names no email to sign them up with.
 */
export async function referBuyer(
  ctx: Ctx,
  campaign: CampaignRow,
  owner: ParticipantRow,
  shown: string,
  buyer: { email: string | null; customerKey: string | null },
): Promise<string | undefined> {
  const email = buyer.email === null ? undefined : normalizeEmail(buyer.email);
  const linked = buyer.customerKey === null ? undefined : await ctx.store.stripe.participantOf(campaign.id, [buyer.customerKey]);
  if (linked === owner.id || email === owner.email) return `Its code ${shown} is the buyer's own: a self-referral, not attributed`;
  const known = linked !== undefined ? await ctx.store.findParticipant(linked) : email !== undefined ? await ctx.store.findParticipantByEmail(campaign.id, email) : undefined;
  if (known) {
    if (known.referred_by_id === owner.id) return undefined;
    const was = known.referred_by_id === null ? 'no one' : 'someone else';
    return `Its code ${shown} did not change the buyer's referrer: they were a participant already, referred by ${was} (a referral is never re-assigned)`;
  }
  if (email === undefined) return `Its code ${shown} names a referrer, but the event carries no email to sign the buyer up with`;
  try {
    await addParticipant(ctx, { id: campaign.id, email, referredByCode: owner.code }, { source: 'api', ip: null, actor: { accountId: campaign.account_id } });
  } catch (err) {
    // A paused or ended campaign takes no one: the event is kept for the owner, as any it cannot apply.
    if (err instanceof AppError && err.status < 500) return `The buyer could not be signed up as ${owner.email}'s referee: ${err.message}`;
    throw err;
  }
  return undefined;
}
