/**
 * The friend's reward at checkout (src/server/promotions): the campaign's referee discount, each
 * participant's Stripe promotion code, and the public read of the code a visitor's checkout applies.
 */
import { Type, type Static } from '@sinclair/typebox';

export const DISCOUNT_DURATIONS = ['once', 'repeating', 'forever'] as const;
export const MAX_DISCOUNT_MONTHS = 36;
/** Stripe keeps a promotion code's text to letters, digits and dashes; a prefix is the same, and short. */
export const PROMOTION_CODE_PREFIX_PATTERN = '^([A-Za-z0-9-]{1,12})?$';

const Duration = Type.Union(
  DISCOUNT_DURATIONS.map((d) => Type.Literal(d)),
  { description: '`once`: the first payment; `repeating`: durationInMonths months of payments; `forever`: every payment' },
);

/**
 * What the friend gets off at checkout. Exactly one of percentOff and amountOff (checked by the service:
 * a 400 names the field); durationInMonths with `repeating` only.
 */
export const RefereeDiscount = Type.Object(
  {
    percentOff: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, 'x-finite': true, description: 'A percentage off, up to two decimals' })),
    amountOff: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, 'x-finite': true, description: "An amount off, in whole units of the campaign's rewardCurrency" }),
    ),
    duration: Duration,
    durationInMonths: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DISCOUNT_MONTHS, 'x-finite': true, description: 'With duration `repeating`: for how many months' })),
  },
  {
    additionalProperties: false,
    description:
      "The friend's discount at checkout: a Stripe coupon, and for each participant a promotion code on it whose text is their referral code, " +
      "for a first purchase (needs stripeRewardKey; docs/billing.md). It comes on top of refereeRewardValue. null: none (the codes are deactivated)",
  },
);
export type RefereeDiscount = Static<typeof RefereeDiscount>;

/** A participant's own promotion code, the one they share (getMyReferrals, the portal, getParticipantDetail). */
export const PromotionCodeRef = Type.Object({
  code: Type.String({ description: 'The text typed at checkout: promotionCodePrefix, then the referral code' }),
  id: Type.String({ description: "Stripe's promotion code id (promo_...), for a Checkout Session's discounts" }),
});
export type PromotionCodeRef = Static<typeof PromotionCodeRef>;

export const GetPromotionCodeQuery = Type.Object({
  campaignId: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
  code: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: "The referrer's referral code (as captured from the share link), in any case" }),
});
export type GetPromotionCodeQuery = Static<typeof GetPromotionCodeQuery>;

/** The code to apply to a visitor's checkout, and what it takes off. */
export const PromotionCodeOffer = Type.Object({
  code: Type.String({ description: 'The promotion code as Stripe has it' }),
  id: Type.String({ description: "Stripe's promotion code id: `discounts: [{promotion_code: id}]` on a Checkout Session" }),
  percentOff: Type.Optional(Type.Number()),
  amountOff: Type.Optional(Type.String({ description: 'In currency, two decimals' })),
  currency: Type.String({ description: "The campaign's rewardCurrency" }),
  duration: Duration,
  durationInMonths: Type.Optional(Type.Integer()),
});
export type PromotionCodeOffer = Static<typeof PromotionCodeOffer>;

export const PROMOTION_CODE_STATUSES = ['queued', 'active', 'failed', 'deactivating', 'inactive'] as const;

/** A promotion code as the owner reviews it: made, waiting, or not made with the reason. */
export const PromotionCodeView = Type.Object({
  email: Type.String({ description: 'The participant it is for' }),
  code: Type.String({ description: 'The referral code it is for' }),
  stripeCode: Type.String({ description: 'The text Stripe has (or is asked for)' }),
  id: Type.Optional(Type.String({ description: "Stripe's id, once made" })),
  status: Type.Union(PROMOTION_CODE_STATUSES.map((s) => Type.Literal(s)), {
    description:
      '`queued`: to be made; `active`: made; `failed`: Stripe refused it (see reason: a code taken in the Stripe account wants promotionCodePrefix); ' +
      '`deactivating`: the discount changed, to be deactivated; `inactive`: deactivated',
  }),
  reason: Type.Optional(Type.String()),
  current: Type.Boolean({ description: "Of the campaign's current discount (an older one's codes are deactivated)" }),
  updatedOn: Type.String({ format: 'date-time' }),
});
export type PromotionCodeView = Static<typeof PromotionCodeView>;

export const ListPromotionCodesQuery = Type.Object({
  id: Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' }),
  status: Type.Optional(Type.Union(PROMOTION_CODE_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-finite': true, default: 50 })),
});
export type ListPromotionCodesQuery = Static<typeof ListPromotionCodesQuery>;
