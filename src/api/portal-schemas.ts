/**
 * The shapes of the referrer's portal (src/server/portal/, the page at /portal/{campaignId}): signing in
 * by an emailed link, the session's CSRF token, and what a signed-in participant reads and sets of their
 * own (their link and friends, their reward ledger, their payouts, where their money goes).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Campaign, Email, Participant, REWARD_ENTRY_KINDS, REWARD_ENTRY_STATUSES } from './schemas.js';
import { MyReferral, VanityCode, WidgetSettings } from './widget-schemas.js';
import { CashPayout, CashPayoutSettings, PayoutMethodFields, PayoutMethodView, TaxDetailsFields, TaxDetailsView } from './payout-schemas.js';
import { PromotionCodeRef } from './promotion-schemas.js';

const CampaignId = Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' });

export const PortalSignInBody = Type.Object({ id: CampaignId, email: Email }, { additionalProperties: false });
export type PortalSignInBody = Static<typeof PortalSignInBody>;
export const PortalSignInAnswer = Type.Object(
  { sent: Type.Literal(true, { description: 'Always true, whether or not the address is a participant or a link went out just now' }) },
  { description: 'Taken: a participant of the campaign is emailed a link, unless one went out moments ago' },
);
export type PortalSignInAnswer = Static<typeof PortalSignInAnswer>;

export const PortalVerifyBody = Type.Object(
  { id: CampaignId, token: Type.String({ format: 'line', minLength: 1, maxLength: 200, description: 'The `token` of the emailed link' }) },
  { additionalProperties: false },
);
export type PortalVerifyBody = Static<typeof PortalVerifyBody>;

export const PortalCsrf = Type.Object(
  { csrfToken: Type.String({ description: 'Sent back as the x-csrf-token header on every portal POST made with the session' }) },
  { description: "Signed in: the session's CSRF token (its cookie is set)" },
);
export type PortalCsrf = Static<typeof PortalCsrf>;

/** The body of the portal's POSTs that take nothing but the campaign (signOut, connectStripe). */
export const PortalCampaignBody = Type.Object({ id: CampaignId }, { additionalProperties: false });
export type PortalCampaignBody = Static<typeof PortalCampaignBody>;
export const PortalMeQuery = Type.Object({ id: CampaignId }, { additionalProperties: false });

export const PortalSetReferralCodeBody = Type.Object({ id: CampaignId, code: VanityCode }, { additionalProperties: false });
export type PortalSetReferralCodeBody = Static<typeof PortalSetReferralCodeBody>;

export const PortalSetPayoutMethodBody = Type.Object({ id: CampaignId, ...PayoutMethodFields }, { additionalProperties: false });
export type PortalSetPayoutMethodBody = Static<typeof PortalSetPayoutMethodBody>;
export const PortalSetTaxDetailsBody = Type.Object({ id: CampaignId, ...TaxDetailsFields }, { additionalProperties: false });
export type PortalSetTaxDetailsBody = Static<typeof PortalSetTaxDetailsBody>;
export const PortalStripeLink = Type.Object(
  { url: Type.String({ description: "Stripe's onboarding page for the participant's Connect account: open it" }) },
  { description: "The link to Stripe's onboarding of the participant's account" },
);
/** The payouts' shapes as the portal's routes answer them, each named for the OpenAPI document. */
export const PortalPayoutMethodAnswer = Type.Composite([PayoutMethodView], { description: "The participant's payout method after the change" });
export const PortalTaxDetailsAnswer = Type.Composite([TaxDetailsView], { description: 'The tax details on file, masked' });

export const PORTAL_ENTRY_STATES = ['pending', 'available', 'reversed', 'redeemed', 'cancelled'] as const;
/** One entry of the participant's reward ledger, as the portal shows it (no other participant named). */
export const PortalLedgerEntry = Type.Object({
  id: Type.Integer(),
  kind: Type.Union(REWARD_ENTRY_KINDS.map((k) => Type.Literal(k))),
  rewardKind: Type.Union([Type.Literal('referral'), Type.Literal('referee')], { description: 'The balance it counts in' }),
  amount: Type.Integer({ description: 'In reward units: credits positive, reversals and redemptions negative' }),
  status: Type.Union(REWARD_ENTRY_STATUSES.map((s) => Type.Literal(s))),
  state: Type.Union(PORTAL_ENTRY_STATES.map((s) => Type.Literal(s)), {
    description: 'pending (waits out the hold until availableOn), available (in the balance), reversed (taken back: a refund, a dispute), redeemed (paid out or used), cancelled',
  }),
  availableOn: Type.String({ format: 'date-time' }),
  createdOn: Type.String({ format: 'date-time' }),
  label: Type.String({ description: "The service's description of the entry (English)" }),
});
export type PortalLedgerEntry = Static<typeof PortalLedgerEntry>;

export const MAX_PORTAL_ENTRIES = 100;
export const MAX_PORTAL_PAYOUTS = 100;

export const PortalLedger = Type.Object({
  pending: Type.Integer({ description: 'The sum of the credits waiting out their hold' }),
  available: Type.Integer({ description: 'Both balances, less what open payouts hold' }),
  inPayouts: Type.Integer({ description: 'What open payouts hold of the balances until they are paid' }),
  entries: Type.Array(PortalLedgerEntry, { description: `The newest ${MAX_PORTAL_ENTRIES} entries, newest first` }),
  more: Type.Boolean({ description: 'There are older entries than listed' }),
});
export type PortalLedger = Static<typeof PortalLedger>;

export const PortalMe = Type.Object({
  csrfToken: PortalCsrf.properties.csrfToken,
  campaign: Campaign,
  settings: WidgetSettings,
  participant: Participant,
  referrals: Type.Array(MyReferral, { description: 'Friends who joined through the link, as getMyReferrals shows them: first name or masked email, and a status' }),
  moreReferrals: Type.Boolean(),
  ledger: PortalLedger,
  payouts: Type.Array(CashPayout, { description: `The newest ${MAX_PORTAL_PAYOUTS} payouts, newest first` }),
  cashPayouts: Type.Union([Type.Pick(CashPayoutSettings, ['methods', 'minimum']), Type.Null()], { description: 'How the campaign pays cash; null: it pays none' }),
  payoutMethod: PayoutMethodView,
  taxDetails: Type.Union([TaxDetailsView, Type.Null()], { description: 'The tax details on file, masked; null: none' }),
  promotionCode: Type.Optional(Type.Composite([PromotionCodeRef], { description: "Their own Stripe promotion code, to share (the campaign's refereeDiscount; absent until made)" })),
});
export type PortalMe = Static<typeof PortalMe>;
