/**
 * The shapes of the two routes the widget calls beyond the interface (getWidgetSettings, getMyReferrals).
 * They live beside ./schemas.ts rather than in Campaign and Participant, whose shapes are the
 * interface's, exactly. The widget imports these as types only.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LEADERBOARD_PERIODS, LeaderboardSettings, WaitlistSettings, Milestone, Participant, PerRewardKind, RewardCodeKind, RewardRules, ShareMessages } from './schemas.js';
import { PromotionCodeRef } from './promotion-schemas.js';
import { CaptchaView } from './fraud-schemas.js';

export const WidgetSettings = Type.Object({
  campaignId: Type.String(),
  rewardCurrency: Type.Optional(
    Type.String({ description: 'ISO 4217 code the reward values are in, when the reward is money (rewardType credit, cash, discount, ...)' }),
  ),
  rewardUnit: Type.Optional(Type.String({ description: 'What the reward values count when the reward is not money: the rewardType, e.g. points' })),
  shareMessages: ShareMessages,
  look: Type.Optional(
    Type.Object(
      {
        accent: Type.String({ description: 'A #rrggbb colour' }),
        radius: Type.String({ description: 'A length in px, e.g. 12px' }),
        font: Type.String({ description: 'A font-family list of the fixed set' }),
      },
      { description: "The campaign's widgetStyle as the CSS values the widget sets (beneath the page's own custom properties), the widget's defaults where it sets none" },
    ),
  ),
  rules: Type.Optional(Type.Composite([RewardRules], { description: "The campaign's reward rules, for the offer the widget shows" })),
  leaderboard: Type.Optional(Type.Composite([LeaderboardSettings], { description: 'The campaign has a leaderboard (getLeaderboard): its period and size' })),
  waitlist: Type.Optional(Type.Composite([WaitlistSettings], { description: 'The campaign is in waitlist mode: its settings (counts always given)' })),
  captcha: Type.Optional(
    Type.Composite(
      [
        CaptchaView,
        Type.Object({
          scriptUrl: Type.Optional(Type.String({ description: "Where the widget loads the provider's script from instead of the provider's own address (the service's CAPTCHA_SCRIPT_URL)" })),
        }),
      ],
      { description: 'Keyless sign-ups solve this CAPTCHA: the widget shows its challenge and sends captchaToken' },
    ),
  ),
});
export type WidgetSettings = Static<typeof WidgetSettings>;
/** The CAPTCHA as the widget reads it: the provider, its site key, and where its script is when not the provider's. */
export type WidgetCaptcha = NonNullable<WidgetSettings['captcha']>;

export const MyReferralsBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
    email: Type.Optional(Type.String({ format: 'line', minLength: 1, maxLength: 320, description: 'Needed only with Refkit-Email-Signature' })),
  },
  { additionalProperties: false },
);
export type MyReferralsBody = Static<typeof MyReferralsBody>;

/** A code a participant chose (a vanity code): the rules are the service's (4-24 of A-Z, 0-9 and -), said in its 400. */
export const VanityCode = Type.String({ format: 'line', minLength: 1, maxLength: 64, description: '4 to 24 of A-Z, 0-9 and - (any case; kept in capitals); unique in the campaign. The old code keeps working' });

export const SetMyReferralCodeBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
    email: Type.Optional(Type.String({ format: 'line', minLength: 1, maxLength: 320, description: 'Needed only with Refkit-Email-Signature' })),
    code: VanityCode,
  },
  { additionalProperties: false },
);
export type SetMyReferralCodeBody = Static<typeof SetMyReferralCodeBody>;

export const REFERRAL_STATUSES = ['joined', 'in_review', 'pending', 'qualified', 'refunded'] as const;
export const ReferralStatus = Type.Union(REFERRAL_STATUSES.map((s) => Type.Literal(s)), {
  description:
    '`joined`: signed up, waiting for their first payment; `in_review`: held for an admin; `pending`: qualified, the reward ' +
    'waits out the hold until availableOn; `qualified`: the reward is earned; `refunded`: their qualifying payment was refunded',
});
export type ReferralStatus = Static<typeof ReferralStatus>;

export const MyReferral = Type.Object({
  name: Type.String({ description: 'The first name, else the email masked (a***@example.com)' }),
  status: ReferralStatus,
  joinedOn: Type.String({ format: 'date-time' }),
  availableOn: Type.Optional(Type.String({ format: 'date-time', description: 'status pending: when the reward becomes available' })),
});
export type MyReferral = Static<typeof MyReferral>;

export const MAX_MY_REFERRALS = 100;
export const MAX_MY_PENDING = 20;
export const MAX_MY_CODES = 20;

export const PendingReward = Type.Object({
  rewardKind: Type.Union([Type.Literal('referral'), Type.Literal('referee')]),
  amount: Type.Integer(),
  availableOn: Type.String({ format: 'date-time' }),
  label: Type.String(),
});
export type PendingReward = Static<typeof PendingReward>;

/** A reward code the participant got with a credit, from the campaign's pool of its kind. */
export const MyRewardCode = Type.Object({
  code: Type.String(),
  label: Type.String({ description: 'The credit it came with, e.g. "Referral of Bob" or "Milestone: Free month (3 referrals)"' }),
  kind: RewardCodeKind,
});
export type MyRewardCode = Static<typeof MyRewardCode>;

/** The participant's rewards beyond the balances: what waits out the hold, what is owed back, milestones, codes. */
export const MyRewards = Type.Object({
  pending: Type.Array(PendingReward, { description: `The first ${MAX_MY_PENDING} pending credits, soonest available first` }),
  owed: PerRewardKind,
  milestones: Type.Object({
    qualifiedReferrals: Type.Integer({ description: 'Credited referrals: what milestones count' }),
    reached: Type.Array(Milestone),
    next: Type.Union([Milestone, Type.Null()], { description: 'The next milestone not reached, or null' }),
  }),
  codes: Type.Optional(Type.Array(MyRewardCode, { description: `The reward codes the participant got, the newest ${MAX_MY_CODES} first; only in campaigns with reward code pools` })),
  codesWaiting: Type.Optional(Type.Integer({ description: 'Credits of the participant waiting for a code (their pool ran out); only when more than 0' })),
});
export type MyRewards = Static<typeof MyRewards>;

/** The participant's place on the campaign's leaderboard. */
export const MyRank = Type.Object({
  period: Type.Union(LEADERBOARD_PERIODS.map((p) => Type.Literal(p))),
  rank: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'null: not ranked yet (no qualified referral on this board), or held for review' }),
  referrals: Type.Integer({ description: 'Qualified referrals on this board' }),
});
export type MyRank = Static<typeof MyRank>;

/** The participant's place on the campaign's waitlist. */
export const MyWaitlist = Type.Object({
  position: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Their place in the queue (1: next in); null once let in' }),
  of: Type.Integer({ description: 'Participants waiting (not yet let in)' }),
  granted: Type.Boolean({ description: 'Let in (admin/grantAccess), or joined before the waitlist began' }),
  spotsPerReferral: Type.Integer({ description: 'Places a counted referral moves them up' }),
});
export type MyWaitlist = Static<typeof MyWaitlist>;

export const MyReferrals = Type.Object({
  participant: Participant,
  referrals: Type.Array(MyReferral, { description: `The first ${MAX_MY_REFERRALS}, oldest first` }),
  more: Type.Boolean({ description: 'true when there are more referrals than listed' }),
  rewards: Type.Optional(MyRewards),
  leaderboard: Type.Optional(Type.Composite([MyRank], { description: 'Only when the campaign has a leaderboard' })),
  waitlist: Type.Optional(Type.Composite([MyWaitlist], { description: 'Only when the campaign is in waitlist mode' })),
  promotionCode: Type.Optional(Type.Composite([PromotionCodeRef], { description: "Their own Stripe promotion code, to share (the campaign's refereeDiscount; absent until made)" })),
});
export type MyReferrals = Static<typeof MyReferrals>;
