/**
 * The shapes of the two routes the widget calls beyond the interface (getWidgetSettings, getMyReferrals).
 * They live beside ./schemas.ts rather than in Campaign and Participant, whose shapes are the
 * interface's, exactly. The widget imports these as types only.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Participant, ShareMessages } from './schemas.js';

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
});
export type WidgetSettings = Static<typeof WidgetSettings>;

export const MyReferralsBody = Type.Object(
  {
    id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }),
    email: Type.Optional(Type.String({ format: 'line', minLength: 1, maxLength: 320, description: 'Needed only with Refkit-Email-Signature' })),
  },
  { additionalProperties: false },
);
export type MyReferralsBody = Static<typeof MyReferralsBody>;

export const ReferralStatus = Type.Union([Type.Literal('joined'), Type.Literal('qualified'), Type.Literal('in_review')], {
  description: '`joined`: signed up; `qualified`: completed the qualifying event (the reward is earned); `in_review`: held for an admin',
});
export type ReferralStatus = Static<typeof ReferralStatus>;

export const MyReferral = Type.Object({
  name: Type.String({ description: 'The first name, else the email masked (a***@example.com)' }),
  status: ReferralStatus,
  joinedOn: Type.String({ format: 'date-time' }),
});
export type MyReferral = Static<typeof MyReferral>;

export const MAX_MY_REFERRALS = 100;

export const MyReferrals = Type.Object({
  participant: Participant,
  referrals: Type.Array(MyReferral, { description: `The first ${MAX_MY_REFERRALS}, oldest first` }),
  more: Type.Boolean({ description: 'true when there are more referrals than listed' }),
});
export type MyReferrals = Static<typeof MyReferrals>;
