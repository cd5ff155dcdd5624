/**
 * The wire shapes of the Referral Program Service Interface, as TypeBox schemas.
 *
 * This is the one place the shapes live: the server validates and serialises with these schemas (and
 * the OpenAPI document is generated from them), the typed client and the widget import the static
 * types with `import type`, so no schema code reaches the browser bundle.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ACCENT_PATTERN, MAX_WIDGET_RADIUS, WIDGET_FONT_NAMES } from './widget-style.js';
import { CashPayoutSettings } from './cash-payout-settings.js';
import { PaymentSecretFields } from './payment-source-schemas.js';
import { PROMOTION_CODE_PREFIX_PATTERN, PromotionCodeRef, RefereeDiscount } from './promotion-schemas.js';
import { FraudControlFields, FraudControlSettings } from './fraud-schemas.js';

export const DateTime = Type.String({ format: 'date-time' });

export const CampaignStatus = Type.Union([Type.Literal('Active'), Type.Literal('Pause'), Type.Literal('End')]);
export type CampaignStatus = Static<typeof CampaignStatus>;

export const Participant = Type.Object(
  {
    email: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    referralCode: Type.Optional(Type.String()),
    referredByCode: Type.Optional(Type.String()),
    createdOn: Type.Optional(DateTime),
    campaignId: Type.Optional(Type.String()),
    shareLink: Type.Optional(Type.String({ format: 'uri' })),
    totalReferrals: Type.Optional(Type.Integer()),
    referralReward: Type.Optional(Type.Integer()),
    referralRewardRedeemed: Type.Optional(Type.Integer()),
    referralRewardBalance: Type.Optional(Type.Integer()),
    refereeReward: Type.Optional(Type.Integer()),
    refereeRewardRedeemed: Type.Optional(Type.Integer()),
    refereeRewardBalance: Type.Optional(Type.Integer()),
    rewardEventCompleted: Type.Optional(Type.Boolean()),
    fraudScore: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type Participant = Static<typeof Participant>;

/**
 * The Participant that addParticipant and qualifyParticipant answer a caller with a secret key: the
 * interface's fields, and, when rewards are held back, why (so a backend hears of it at once). A keyless
 * caller never gets these fields: fraud signals are the owner's alone.
 */
export const KeyedParticipant = Type.Composite([
  Participant,
  Type.Object({
    held: Type.Optional(Type.Boolean({ description: 'true when this participant\'s rewards are held back: present only then' })),
    heldReason: Type.Optional(Type.String({ description: 'Why, and how they are released (the owner approves in the review queue)' })),
  }),
], { additionalProperties: false });
export type KeyedParticipant = Static<typeof KeyedParticipant>;

export const Campaign = Type.Object(
  {
    campaignId: Type.Optional(Type.String()),
    campaignName: Type.Optional(Type.String()),
    status: Type.Optional(CampaignStatus),
    createdOn: Type.Optional(DateTime),
    end: Type.Optional(DateTime),
    hostURL: Type.Optional(Type.String({ format: 'uri' })),
    paused: Type.Optional(Type.Boolean()),
    ended: Type.Optional(Type.Boolean()),
    rewardHeader: Type.Optional(Type.String()),
    rewardDescription: Type.Optional(Type.String()),
    shareHeader: Type.Optional(Type.String()),
    shareDescription: Type.Optional(Type.String()),
    referrerRewardValue: Type.Optional(Type.Integer()),
    refereeRewardValue: Type.Optional(Type.Integer()),
    rewardType: Type.Optional(Type.String()),
    participants: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type Campaign = Static<typeof Campaign>;

export const ErrorCode = Type.Union(
  [
    'invalid_request',
    'unauthorized',
    'forbidden_origin',
    'not_found',
    'campaign_not_found',
    'participant_not_found',
    'referrer_not_found',
    'api_key_not_found',
    'webhook_endpoint_not_found',
    'delivery_not_found',
    'campaign_paused',
    'campaign_ended',
    'not_referred',
    'self_referral',
    'invalid_signature',
    'link_not_found',
    'invalid_transition',
    'insufficient_balance',
    'refund_exceeds_payments',
    'dispute_exceeds_payment',
    'dispute_open',
    'idempotency_conflict',
    'idempotency_in_progress',
    'invalid_credentials',
    'csrf_failed',
    'owner_exists',
    'owner_not_found',
    'forbidden',
    'last_owner',
    'invitation_not_found',
    'not_held',
    'cash_payouts_off',
    'payouts_not_configured',
    'payout_provider_error',
    'encryption_key_missing',
    'payout_not_found',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'internal',
    'unavailable',
    'database_unavailable',
    'service_closing',
  ].map((code) => Type.Literal(code)),
);
export type ErrorCode = Static<typeof ErrorCode>;

/** The error envelope: every non-2xx answer has this body. */
export const ApiErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    field: Type.Optional(Type.String()),
  }),
});
export type ApiErrorBody = Static<typeof ApiErrorBody>;

// ---- request shapes ------------------------------------------------------------------------------

/**
 * Every string a request carries has a format (or a pattern or an enum) the server checks before any
 * handler runs: `line` (one line, no control or bidirectional-override characters, no unpaired
 * surrogates), `text` (the same, but tabs and line breaks allowed), `http-url`, `http-origin`,
 * `date-time` (an instant: no leap second). Every integer has bounds and `x-finite` (a query's
 * "Infinity" or "1e400" is not a number). The server adds these to its validator (src/server/kernel/validation.ts).
 */
const Line = (options: { minLength?: number; maxLength: number; description?: string }) => Type.String({ format: 'line', ...options });
const Int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum, 'x-finite': true });

/** Identifiers and emails are bounded so that a bad client cannot make us store megabytes per row. */
export const Id = Line({ minLength: 1, maxLength: 64 });
export const Email = Line({ minLength: 1, maxLength: 320, description: 'Trimmed and lower-cased by the service' });
const Code = Line({ minLength: 1, maxLength: 64 });
const Name = Line({ maxLength: 100 });

/** The utm_* parameters of the page a visitor signed up on: the channel they came by (the widget sends them). */
export const UTM_FIELDS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
const UtmValue = (f: string) => Type.Optional(Line({ minLength: 1, maxLength: 200, description: `utm_${f}` }));
export const Utm = Type.Object(
  { source: UtmValue('source'), medium: UtmValue('medium'), campaign: UtmValue('campaign'), term: UtmValue('term'), content: UtmValue('content') },
  { additionalProperties: false, description: "The utm_* of the landing page (share links tag theirs: utm_source=refkit, utm_medium the channel); kept with the participant for the analytics by channel" },
);
export type Utm = Static<typeof Utm>;

export const AddParticipantBody = Type.Object({
  id: Id,
  email: Email,
  firstName: Type.Optional(Name),
  lastName: Type.Optional(Name),
  referredByCode: Type.Optional(Code),
  referredByEmail: Type.Optional(Email),
  utm: Type.Optional(Utm),
  captchaToken: Type.Optional(
    Line({ minLength: 1, maxLength: 4096, description: "The CAPTCHA's answer, when the campaign has a captcha: needed by keyless sign-ups (400 captcha_required without it, 403 captcha_failed when the provider refuses it); ignored with a secret key" }),
  ),
});
export type AddParticipantBody = Static<typeof AddParticipantBody>;

/** The proof headers a browser may send (src/api/headers.ts); documented here for the OpenAPI document. */
/** A language tag (`de`, `fr-CA`): the language of a new participant's emails (en, de, fr, es, ar; others read en). */
export const LocaleTag = Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$', description: "The language of a new participant's emails: en, de, fr, es or ar (another reads en)" });

export const ProofHeaders = Type.Object({
  'refkit-participant-token': Type.Optional(Type.String({ maxLength: 100, description: 'The token this browser was given at sign-up' })),
  'refkit-email-signature': Type.Optional(
    Type.String({ maxLength: 128, description: "Hex HMAC-SHA256 of the lower-cased email with the campaign's signing secret" }),
  ),
  'refkit-email-link': Type.Optional(
    Type.Literal('send', { description: 'Email a sign-in link when the email is a participant this request does not prove' }),
  ),
  'refkit-locale': Type.Optional(LocaleTag),
});

export const CampaignQuery = Type.Object({ id: Id });
export const ValidateCodeQuery = Type.Object({ campaignId: Id, code: Line({ maxLength: 64 }) });
export const ParticipantQuery = Type.Object({ id: Id, email: Email });

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const PagingQuery = Type.Object({
  page: Type.Optional(Int(1, 1_000_000)),
  pageSize: Type.Optional(Int(1, MAX_PAGE_SIZE)),
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 200 })),
});
export type PagingQuery = Static<typeof PagingQuery>;
export const AllParticipantsQuery = Type.Composite([CampaignQuery, PagingQuery]);
export const ReferralsQuery = Type.Composite([ParticipantQuery, PagingQuery]);
export const RewardEntriesQuery = ReferralsQuery;

export const QualifyParticipantBody = Type.Object({
  id: Id,
  email: Email,
  amountPaid: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,2})?$', description: 'Numeric text, at most two decimals' }),
  ),
});
export type QualifyParticipantBody = Static<typeof QualifyParticipantBody>;

// ---- admin shapes --------------------------------------------------------------------------------

const Url = Type.String({ format: 'http-url', maxLength: 2000 });
const Text = Type.String({ format: 'text', maxLength: 2000 });
const RewardValue = Int(0, 1_000_000_000);

/** A share message: plain text (never HTML); `{link}` marks where the share link goes, else it is appended. */
const ShareMessage = Type.String({ format: 'text', maxLength: 1000 });
/**
 * What the friend receives, per channel (Facebook and LinkedIn take only the link; they show the landing
 * page's Open Graph preview). In updateCampaign, the channels given replace theirs and '' clears one.
 */
export const ShareMessages = Type.Object(
  {
    emailSubject: Type.Optional(Line({ maxLength: 200 })),
    email: Type.Optional(ShareMessage),
    x: Type.Optional(Type.String({ format: 'text', maxLength: 280 })),
    whatsapp: Type.Optional(ShareMessage),
    native: Type.Optional(ShareMessage),
  },
  { additionalProperties: false },
);
export type ShareMessages = Static<typeof ShareMessages>;
export const SHARE_CHANNELS = ['emailSubject', 'email', 'x', 'whatsapp', 'native'] as const satisfies readonly (keyof ShareMessages)[];

/**
 * The widget's look, kept on the campaign so that every embed shows it; CSS custom properties set on the
 * element by the page still win. In updateCampaign the object given replaces the stored one ({} clears it).
 */
export const WidgetStyle = Type.Object(
  {
    accent: Type.Optional(Type.String({ pattern: ACCENT_PATTERN, description: 'Buttons, links and the focus ring: #rrggbb' })),
    radius: Type.Optional(Int(0, MAX_WIDGET_RADIUS)),
    font: Type.Optional(Type.Union(WIDGET_FONT_NAMES.map((f) => Type.Literal(f)), { description: 'One of a fixed set of font stacks' })),
  },
  { additionalProperties: false },
);
export type WidgetStyle = Static<typeof WidgetStyle>;

/** A bonus a referrer earns once, when their credited referrals reach `referrals`. */
export const Milestone = Type.Object(
  {
    referrals: Int(1, 1_000_000),
    reward: RewardValue,
    label: Line({ minLength: 1, maxLength: 80, description: 'What the participant sees, e.g. "Free month"' }),
  },
  { additionalProperties: false },
);
export type Milestone = Static<typeof Milestone>;
export const MAX_MILESTONES = 20;
export const MAX_HOLD_DAYS = 365;

/**
 * The campaign's reward rules beyond the fixed rewards (src/server/rewards/domain/reward-rules.ts applies them).
 * In updateCampaign each one given replaces the stored one; `maxReferralReward: null` removes the ceiling.
 */
export const RewardRulesFields = {
  referrerRewardPercent: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      multipleOf: 0.01,
      'x-finite': true,
      description: "The referrer also earns this share of each of their referee's payments (amountPaid), in reward units, rounded down with the remainder carried to the next payment",
    }),
  ),
  commissionPayments: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1000, 'x-finite': true, description: "0: every payment earns the commission; n: the referee's first n payments" }),
  ),
  milestones: Type.Optional(
    Type.Array(Milestone, { maxItems: MAX_MILESTONES, description: 'Bonuses once per referrer; referrals counts are distinct' }),
  ),
  maxReferralReward: Type.Optional(
    Type.Union([Type.Null(), RewardValue], { description: 'A ceiling on what one referrer can earn in the campaign; what exceeds it is recorded as capped' }),
  ),
  holdDays: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_HOLD_DAYS, 'x-finite': true, description: 'New credits stay pending this many days, then become available' }),
  ),
};

/** The rules as a campaign's settings show them: every one present. */
export const RewardRules = Type.Object({
  referrerRewardPercent: Type.Number(),
  commissionPayments: Type.Integer(),
  milestones: Type.Array(Milestone),
  maxReferralReward: Type.Union([Type.Integer(), Type.Null()]),
  holdDays: Type.Integer(),
});
export type RewardRules = Static<typeof RewardRules>;

export const STRIPE_REWARD_MODES = ['off', 'balance', 'promotion_code'] as const;
export const StripeRewardMode = Type.Union(STRIPE_REWARD_MODES.map((m) => Type.Literal(m)), {
  description:
    "How an available reward is paid into the participant's Stripe customer: `off` (default), `balance` (a customer balance credit), " +
    '`promotion_code` (a one-off coupon and a promotion code for that customer, redeemable once). Needs stripeRewardKey',
});
export type StripeRewardMode = Static<typeof StripeRewardMode>;
export const LEADERBOARD_PERIODS = ['all', 'month'] as const;
export const MAX_LEADERBOARD_SIZE = 100;
/** A campaign's leaderboard: ranked by qualified referrals, over all time or the current month. */
export const LeaderboardSettings = Type.Object(
  {
    period: Type.Union(LEADERBOARD_PERIODS.map((p) => Type.Literal(p)), {
      description: '`all`: since the campaign began; `month`: this calendar month in the campaign\'s timeZone (a new board on the first)',
    }),
    size: Int(1, MAX_LEADERBOARD_SIZE),
  },
  { additionalProperties: false, description: 'How many entries getLeaderboard answers' },
);
export type LeaderboardSettings = Static<typeof LeaderboardSettings>;
export const WAITLIST_COUNTS = ['signups', 'qualified'] as const;
export const MAX_SPOTS_PER_REFERRAL = 1000;
/** Waitlist mode: a queue by sign-up order, each counted referral moving its referrer up. */
export const WaitlistSettings = Type.Object(
  {
    spotsPerReferral: Int(1, MAX_SPOTS_PER_REFERRAL),
    counts: Type.Optional(
      Type.Union(WAITLIST_COUNTS.map((c) => Type.Literal(c)), {
        description: '`signups` (default): every referred sign-up moves the referrer up; `qualified`: only credited (qualified) referrals',
      }),
    ),
  },
  { additionalProperties: false, description: 'Places a referral moves its referrer up the waitlist' },
);
export type WaitlistSettings = Static<typeof WaitlistSettings>;

export const CampaignFields = {
  campaignName: Line({ minLength: 1, maxLength: 200 }),
  hostURL: Url,
  referrerRewardValue: Type.Optional(RewardValue),
  refereeRewardValue: Type.Optional(RewardValue),
  rewardType: Type.Optional(Line({ maxLength: 50 })),
  rewardCurrency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  rewardHeader: Type.Optional(Line({ maxLength: 2000 })),
  rewardDescription: Type.Optional(Text),
  shareHeader: Type.Optional(Line({ maxLength: 2000 })),
  shareDescription: Type.Optional(Text),
  end: Type.Optional(Type.Union([DateTime, Type.Null()])),
  allowedOrigins: Type.Optional(
    Type.Array(Type.String({ format: 'http-origin', maxLength: 300 }), {
      maxItems: 50,
      description: "Origins whose pages may embed the widget besides the origin of hostURL (always allowed) and the service's own: a www. host, a second site",
    }),
  ),
  requireEmailConfirmation: Type.Optional(
    Type.Boolean({ description: 'Double opt-in: keyless sign-ups wait until their emailed link is followed (needs SMTP_URL)' }),
  ),
  shareMessages: Type.Optional(ShareMessages),
  widgetStyle: Type.Optional(WidgetStyle),
  ...RewardRulesFields,
  stripeWebhookSecret: Type.Optional(
    Type.String({
      pattern: '^(whsec_[A-Za-z0-9_]{8,200})?$',
      description: "The signing secret (whsec_...) of the campaign's Stripe webhook endpoint; write-only (settings show stripeWebhookConfigured); '' removes it",
    }),
  ),
  stripeRewardKey: Type.Optional(
    Type.String({
      pattern: '^(rk_(live|test)_[A-Za-z0-9]{10,240})?$',
      description:
        "A restricted Stripe key (rk_live_... or rk_test_...) that pays this campaign's rewards into Stripe; write-only (settings show stripeRewardKeyConfigured); '' removes it",
    }),
  ),
  stripeRewardMode: Type.Optional(StripeRewardMode),
  ...PaymentSecretFields,
  cashPayouts: Type.Optional(
    Type.Union([CashPayoutSettings, Type.Null()], { description: 'Cash payouts by PayPal or Stripe Connect (docs/payouts.md); null: none. Only for rewards that are money' }),
  ),
  refereeDiscount: Type.Optional(Type.Union([RefereeDiscount, Type.Null()], { description: RefereeDiscount.description })),
  promotionCodePrefix: Type.Optional(
    Type.String({
      pattern: PROMOTION_CODE_PREFIX_PATTERN,
      description: "Put before each referral code in Stripe's promotion codes, for campaigns sharing one Stripe account (Stripe wants active codes unique in it); '' removes it",
    }),
  ),
  rewardCodesLowThreshold: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, 'x-finite': true, description: 'reward_codes_low fires when a reward code pool has fewer codes left than this (default 10; 0: never)' }),
  ),
  leaderboard: Type.Optional(Type.Union([Type.Null(), LeaderboardSettings], { description: 'The public leaderboard (getLeaderboard); null or absent: none' })),
  timeZone: Type.Optional(
    Line({ minLength: 1, maxLength: 64, description: 'An IANA time zone (e.g. Europe/Berlin), where the campaign\'s months begin; default UTC' }),
  ),
  waitlist: Type.Optional(
    Type.Union([Type.Null(), WaitlistSettings], {
      description: 'Waitlist mode (admin/grantAccess); null or absent: a normal campaign. Turning it off (launch) is for good; its settings cannot change while it is on',
    }),
  ),
  ...FraudControlFields,
};
export const CreateCampaignBody = Type.Object(
  {
    ...CampaignFields,
    test: Type.Optional(
      Type.Boolean({
        description: "A test campaign (test mode, docs/testing-mode.md): its data stay apart from live data and its clock can be moved (advanceClock). Set at creation, never changed. Default: the key's mode (false for a user or the CLI)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;
export const UpdateCampaignBody = Type.Object(
  { id: Id, ...Type.Partial(Type.Object(CampaignFields)).properties },
  { additionalProperties: false },
);
export type UpdateCampaignBody = Static<typeof UpdateCampaignBody>;
export const SetCampaignStatusBody = Type.Object({ id: Id, status: CampaignStatus });
export const RedeemRewardBody = Type.Object({
  id: Id,
  email: Email,
  kind: Type.Union([Type.Literal('referral'), Type.Literal('referee')]),
  amount: Int(1, 1_000_000_000),
});
export type RedeemRewardBody = Static<typeof RedeemRewardBody>;

export const Money = (description: string) => Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,2})?$', description });
export const RefundPaymentBody = Type.Object(
  {
    id: Id,
    email: Email,
    amount: Money('What the refund took back, numeric text with at most two decimals; more than zero'),
    paymentId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true, description: 'The payment refunded; without it the latest payments are refunded first' })),
  },
  { additionalProperties: false },
);
export type RefundPaymentBody = Static<typeof RefundPaymentBody>;

/** A reward balance of the program: what its participants are owed (`pending`, `available`), redeemed, and owe back (`owed`). */
export const LiabilityAmounts = Type.Object({
  pending: Type.Integer({ description: 'Credits waiting out their hold' }),
  available: Type.Integer({ description: 'Earned and not redeemed: the balances' }),
  redeemed: Type.Integer(),
  owed: Type.Integer({ description: 'Reversals that found no balance to take back, to be netted from later credits' }),
});
export type LiabilityAmounts = Static<typeof LiabilityAmounts>;
export const RewardLiability = Type.Object({
  referral: LiabilityAmounts,
  referee: LiabilityAmounts,
  total: LiabilityAmounts,
});
export type RewardLiability = Static<typeof RewardLiability>;

export const REWARD_ENTRY_KINDS = ['referral', 'referee', 'commission', 'milestone', 'reversal', 'redemption'] as const;
export const REWARD_ENTRY_STATUSES = ['pending', 'available', 'cancelled'] as const;
export const RewardEntry = Type.Object({
  id: Type.Integer(),
  kind: Type.Union(REWARD_ENTRY_KINDS.map((k) => Type.Literal(k))),
  rewardKind: Type.Union([Type.Literal('referral'), Type.Literal('referee')], { description: 'The balance it counts in' }),
  amount: Type.Integer({ description: 'In reward units; credits are positive, reversals and redemptions negative' }),
  status: Type.Union(REWARD_ENTRY_STATUSES.map((s) => Type.Literal(s))),
  availableOn: DateTime,
  label: Type.String(),
  refereeEmail: Type.Optional(Type.String({ description: 'The referee whose referral earned it' })),
  paymentId: Type.Optional(Type.Integer({ description: 'The payment that earned it' })),
  capped: Type.Optional(Type.Integer({ description: 'What the campaign’s maxReferralReward kept back from this credit; present only when more than 0' })),
  code: Type.Optional(Type.String({ description: "The reward code this credit got from the campaign's pool (Reward codes in docs/rewards.md)" })),
  codeWaiting: Type.Optional(Type.Literal(true, { description: 'The credit takes a reward code and waits for its pool to be refilled' })),
  createdOn: DateTime,
});
export type RewardEntry = Static<typeof RewardEntry>;

// ---- reward code pools ---------------------------------------------------------------------------

export const REWARD_CODE_KINDS = ['referral', 'referee', 'milestone'] as const;
export const RewardCodeKind = Type.Union(REWARD_CODE_KINDS.map((k) => Type.Literal(k)), {
  description: "Which credits take a code from the pool: `referral` the referrer's fixed referral rewards, `referee` the referee's own reward, `milestone` milestone bonuses",
});
export type RewardCodeKind = Static<typeof RewardCodeKind>;
export const MAX_REWARD_CODE_LENGTH = 100;
export const MAX_REWARD_CODES_PER_CALL = 10_000;
export const MAX_REWARD_CODES_PER_FILE = 100_000;
export const AddRewardCodesBody = Type.Object(
  {
    id: Id,
    kind: RewardCodeKind,
    codes: Type.Array(Line({ minLength: 1, maxLength: MAX_REWARD_CODE_LENGTH }), {
      minItems: 1,
      maxItems: MAX_REWARD_CODES_PER_CALL,
      description: `Codes to add, each trimmed, at most ${MAX_REWARD_CODE_LENGTH} characters; those already in the pool (or repeated) are skipped`,
    }),
  },
  { additionalProperties: false },
);
export type AddRewardCodesBody = Static<typeof AddRewardCodesBody>;
export const RewardCodesQuery = Type.Object({ id: Id, kind: RewardCodeKind });
export const RewardCodePool = Type.Object({
  kind: RewardCodeKind,
  available: Type.Integer({ description: 'Codes not yet given' }),
  used: Type.Integer({ description: 'Codes given to credits' }),
  waiting: Type.Integer({ description: 'Available credits waiting for a code: the pool ran out; a refill serves them, oldest first' }),
});
export type RewardCodePool = Static<typeof RewardCodePool>;
export const RewardCodesAdded = Type.Object({
  added: Type.Integer(),
  duplicates: Type.Integer({ description: 'Codes skipped: repeated in the upload or already in the pool' }),
  served: Type.Integer({ description: 'Credits that were waiting and got one of the codes added' }),
  pool: RewardCodePool,
});
export type RewardCodesAdded = Static<typeof RewardCodesAdded>;
export const CreateApiKeyBody = Type.Object({
  name: Line({ minLength: 1, maxLength: 100 }),
  test: Type.Optional(Type.Boolean({ description: 'A test key (sk_test_...): sees and makes test campaigns only. Default false: a live key (sk_live_...)' })),
});
export const RevokeApiKeyBody = Type.Object({ id: Id });

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it in lists' }),
  test: Type.Boolean({ description: 'A test key: sees test campaigns only (a live key, live ones only)' }),
  createdOn: DateTime,
  createdBy: Type.Optional(Type.String({ description: 'Who made it: a user’s email, a key’s prefix, or cli (absent for keys made before this was kept)' })),
  revokedOn: Type.Optional(DateTime),
  key: Type.Optional(Type.String({ description: 'The secret key itself; present only in the answer that created it' })),
});
export type ApiKey = Static<typeof ApiKey>;

export const VerifyEmailBody = Type.Object(
  { id: Id, token: Line({ minLength: 1, maxLength: 100, description: 'The refkit_verify parameter of the emailed link' }) },
  { additionalProperties: false },
);
export const CampaignIdBody = Type.Object({ id: Id }, { additionalProperties: false });

export const MAX_GRANT = 1000;
/** admin/grantAccess: the first `count` of the waitlist, or the participants with these emails. */
export const GrantAccessBody = Type.Union([
  Type.Object({ id: Id, count: Int(1, MAX_GRANT) }, { additionalProperties: false }),
  Type.Object({ id: Id, emails: Type.Array(Email, { minItems: 1, maxItems: MAX_GRANT }) }, { additionalProperties: false }),
]);
export type GrantAccessBody = Static<typeof GrantAccessBody>;
export const GrantAccessResult = Type.Object({
  granted: Type.Array(Type.Object({ participantId: Type.Integer(), email: Type.String() }), { description: 'Let in by this call, in waitlist order; those let in before are not listed again' }),
  unknown: Type.Array(Type.String(), { description: 'Emails given that are no participant of the campaign (nothing is done for them)' }),
});
export type GrantAccessResult = Static<typeof GrantAccessResult>;
export const MAX_WAITLIST_PAGE = 100;
export const WaitlistQuery = Type.Object({ id: Id, limit: Type.Optional(Int(1, MAX_WAITLIST_PAGE)) }, { additionalProperties: false });
export type WaitlistQuery = Static<typeof WaitlistQuery>;
/** The front of a campaign's waitlist, as its owner sees it. */
export const WaitlistView = Type.Object({
  waiting: Type.Integer({ description: 'Participants waiting' }),
  granted: Type.Integer({ description: 'Participants let in' }),
  queue: Type.Array(Type.Object({ position: Type.Integer({ minimum: 1 }), participantId: Type.Integer(), email: Type.String() }), {
    description: 'The first `limit` (default 50) waiting, in queue order',
  }),
});
export type WaitlistView = Static<typeof WaitlistView>;
export const SigningSecret = Type.Object({
  secret: Type.String({ description: 'HMAC-SHA256 key for email signatures; keep it on your backend' }),
});
export const RevokedTokens = Type.Object({ revoked: Type.Integer({ description: 'How many participant tokens were revoked' }) });

/** One entry of a public leaderboard: a display name only, never an email or an id. */
export const LeaderboardEntry = Type.Object({
  rank: Type.Integer({ minimum: 1 }),
  name: Type.String({ description: 'First name and last initial (Ann L.), else the email masked (a***@example.com)' }),
  referrals: Type.Integer({ description: 'Qualified referrals on this board' }),
});
export type LeaderboardEntry = Static<typeof LeaderboardEntry>;
export const Leaderboard = Type.Array(LeaderboardEntry);

export const Ok = Type.Object({ ok: Type.Literal(true) });
export type Ok = Static<typeof Ok>;

// ---- webhooks ------------------------------------------------------------------------------------

export const WEBHOOK_EVENT_TYPES = ['referrer_added', 'referee_added', 'reward_unlocked', 'milestone_reached', 'reward_reversed', 'reward_codes_low', 'access_granted', 'participant_erased', 'dispute_opened', 'dispute_closed', 'payout_sent', 'payout_paid', 'payout_failed'] as const;
export const WebhookEventType = Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)));
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `data` of every event type: the fields the interface lists for referrer_added. Money is in units. */
export const WebhookEventData = Type.Object({
  participantId: Type.Integer(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
  code: Type.String(),
  campaignId: Type.String(),
  referredByCode: Type.Union([Type.String(), Type.Null()]),
  referralReward: Type.Number(),
  referralRewardBalance: Type.Number(),
  referralRewardRedeemed: Type.Number(),
  refereeReward: Type.Number(),
  refereeRewardBalance: Type.Number(),
  refereeRewardRedeemed: Type.Number(),
  refereeActionCompleted: Type.Boolean(),
  refereeActionCompletedLabel: Type.Union([Type.String(), Type.Null()]),
  rewardType: Type.Union([Type.String(), Type.Null()]),
  rewardCurrency: Type.String(),
  createdOn: DateTime,
  updatedOn: DateTime,
  approval: Type.Boolean(),
  totalReferred: Type.Integer(),
  totalCompletedReferred: Type.Integer(),
  amountPaid: Type.Number(),
  paymentCount: Type.Integer(),
  revenueGenerated: Type.Number(),
  rewardDue: Type.Number(),
  rewardPaid: Type.Number(),
  score: Type.String(),
  impressionCount: Type.Integer(),
  rewardCode: Type.Optional(
    Type.String({ description: "reward_unlocked: the reward code the credit got from the campaign's pool (the first, when one unlock got several)" }),
  ),
  rewardCodes: Type.Optional(
    Type.Array(Type.Object({ code: Type.String(), kind: RewardCodeKind, label: Type.String() }), {
      description: 'reward_unlocked: every reward code this unlock gave, when it gave any',
    }),
  ),
  dispute: Type.Optional(
    Type.Object(
      {
        id: Type.String(),
        paymentId: Type.Integer(),
        amount: Type.Number({ description: 'In the payment currency' }),
        status: Type.Union([Type.Literal('open'), Type.Literal('won'), Type.Literal('lost')]),
      },
      { description: 'dispute_opened and dispute_closed (about the payer): the dispute' },
    ),
  ),
  payout: Type.Optional(
    Type.Object(
      {
        payoutId: Type.Integer(),
        email: Type.String(),
        amount: Type.Integer({ description: 'In whole units of currency' }),
        currency: Type.String(),
        method: Type.Union([Type.Literal('paypal'), Type.Literal('stripe_connect')]),
        status: Type.String({ description: 'sent, paid, failed, returned or unclaimed' }),
        reason: Type.Optional(Type.String({ description: 'payout_failed: why' })),
      },
      { description: 'payout_sent, payout_paid and payout_failed (failed, returned or unclaimed): the cash payout' },
    ),
  ),
});
export type WebhookEventData = Static<typeof WebhookEventData>;

/** `data` of reward_codes_low: about a campaign's pool, not a participant. */
export const RewardCodesLowData = Type.Composite([
  Type.Object({
    campaignId: Type.String(),
    threshold: Type.Integer({ description: "The campaign's rewardCodesLowThreshold" }),
  }),
  RewardCodePool,
]);
export type RewardCodesLowData = Static<typeof RewardCodesLowData>;

/** The test marker of an event body: present, and false, on test campaigns' events only (live bodies are as before). */
const LiveMode = Type.Literal(false, { description: "Present (false) only on a test campaign's events: test mode (docs/testing-mode.md)" });

export const WebhookEvent = Type.Object({
  eventType: WebhookEventType,
  data: WebhookEventData,
  createdAt: Type.Integer({ description: 'epoch milliseconds' }),
  updatedAt: Type.Integer({ description: 'epoch milliseconds' }),
  livemode: Type.Optional(LiveMode),
});
export type WebhookEvent = Static<typeof WebhookEvent>;

/** The body of reward_codes_low, whose data is a campaign's pool rather than a participant. */
export const RewardCodesLowEvent = Type.Object({
  eventType: Type.Literal('reward_codes_low'),
  data: RewardCodesLowData,
  createdAt: Type.Integer({ description: 'epoch milliseconds' }),
  updatedAt: Type.Integer({ description: 'epoch milliseconds' }),
  livemode: Type.Optional(LiveMode),
});
export type RewardCodesLowEvent = Static<typeof RewardCodesLowEvent>;

/** The body of participant_erased: who was erased, and when; never their address or names (docs/privacy.md). */
export const ParticipantErasedEvent = Type.Object({
  eventType: Type.Literal('participant_erased'),
  data: Type.Object({
    participantId: Type.Integer(),
    campaignId: Type.String(),
    erasedAt: DateTime,
  }),
  createdAt: Type.Integer({ description: 'epoch milliseconds' }),
  updatedAt: Type.Integer({ description: 'epoch milliseconds' }),
  livemode: Type.Optional(LiveMode),
});
export type ParticipantErasedEvent = Static<typeof ParticipantErasedEvent>;

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Url,
    eventTypes: Type.Array(WebhookEventType, { minItems: 1, uniqueItems: true }),
    test: Type.Optional(Type.Boolean({ description: "Gets test campaigns' events only (true) or live campaigns' only (false). Default: the key's mode (false for a user or the CLI)" })),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  eventTypes: Type.Array(WebhookEventType),
  test: Type.Boolean({ description: "Gets test campaigns' events only (a live endpoint, live campaigns' only)" }),
  createdOn: DateTime,
  secret: Type.Optional(Type.String({ description: 'Signing secret (whsec_...); present only in the answer that created it' })),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

export const WebhookAttempt = Type.Object({
  attemptedOn: DateTime,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'The webhook-id header: the same on every attempt' }),
  endpointId: Type.String(),
  eventType: WebhookEventType,
  campaignId: Type.String(),
  participantEmail: Type.Optional(Type.String({ description: 'The participant the event is about (none for reward_codes_low)' })),
  status: DeliveryStatus,
  attemptCount: Type.Integer(),
  nextAttemptOn: Type.Union([DateTime, Type.Null()]),
  createdOn: DateTime,
  attempts: Type.Array(WebhookAttempt),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const ListWebhookDeliveriesQuery = Type.Object({
  mode: Type.Optional(
    Type.Union([Type.Literal('live'), Type.Literal('test')], {
      description: 'Only deliveries to live (or test) endpoints; a key sees those of its own mode only, and asking for the other is 400',
    }),
  ),
  status: Type.Optional(DeliveryStatus),
  endpointId: Type.Optional(Id),
  eventType: Type.Optional(WebhookEventType),
  limit: Type.Optional(Int(1, MAX_PAGE_SIZE)),
});
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuery>;
export const IdBody = Type.Object({ id: Id });

// ---- the owner's dashboard: sign-in, and the admin reads it needs ----------------------------------

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Line({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Line({ minLength: 1, maxLength: 200 }),
    newPassword: Line({ minLength: 1, maxLength: 200, description: 'At least 10 characters' }),
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

/** The answer of a change that ended sessions: how many besides the caller's (or, signing out everywhere, with it). */
export const SessionsEnded = Type.Object({ ok: Type.Literal(true), sessionsEnded: Type.Integer({ minimum: 0 }) });
export type SessionsEnded = Static<typeof SessionsEnded>;

export const ROLE_NAMES = ['owner', 'admin', 'viewer'] as const;
export const RoleName = Type.Union(
  ROLE_NAMES.map((r) => Type.Literal(r)),
  { description: 'owner: everything; admin: every change but members and secret keys; viewer: reads only' },
);
export type RoleName = Static<typeof RoleName>;

export const OwnerSession = Type.Object({
  email: Type.String(),
  role: RoleName,
  csrfToken: Type.String({ description: 'Send it as the x-csrf-token header on every change made with the session cookie' }),
  expiresOn: DateTime,
});
export type OwnerSession = Static<typeof OwnerSession>;

/** A campaign as its owner edits it: the wire Campaign plus the settings getCampaign does not show. */
export const CampaignSettings = Type.Composite([
  Campaign,
  Type.Object({
    rewardCurrency: Type.String(),
    allowedOrigins: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Origins allowed besides the origin of hostURL, which always is; null: none set' }),
    requireEmailConfirmation: Type.Boolean(),
    shareMessages: ShareMessages,
    widgetStyle: WidgetStyle,
    reviewQueue: Type.Integer({ description: 'Participants held for review and not rejected: the review queue' }),
    rewardCodesLowThreshold: Type.Integer({ description: 'reward_codes_low fires when a reward code pool has fewer codes left than this' }),
    leaderboard: Type.Union([LeaderboardSettings, Type.Null()]),
    timeZone: Type.String(),
    waitlist: Type.Union([WaitlistSettings, Type.Null()]),
    test: Type.Boolean({ description: 'A test campaign (test mode): set at creation, never changed' }),
  }),
  RewardRules,
  Type.Object({
    stripeWebhookConfigured: Type.Boolean({ description: 'A Stripe webhook signing secret is set (it is never shown)' }),
    stripeRewardKeyConfigured: Type.Boolean({ description: 'A restricted Stripe key for paying rewards is set (it is never shown)' }),
    stripeRewardMode: StripeRewardMode,
    cashPayouts: Type.Union([CashPayoutSettings, Type.Null()]),
    refereeDiscount: Type.Union([RefereeDiscount, Type.Null()]),
    promotionCodePrefix: Type.Union([Type.String(), Type.Null()]),
    paymentSourcesConfigured: Type.Array(Type.String(), { description: 'The payment providers (paddle, lemonsqueezy, shopify, chargebee, segment) whose secret is set (never shown)' }),
  }),
  FraudControlSettings,
]);
export type CampaignSettings = Static<typeof CampaignSettings>;

export const PARTICIPANT_SORTS = ['createdOn', 'email', 'totalReferrals'] as const;
export type ParticipantSort = (typeof PARTICIPANT_SORTS)[number];
export const PARTICIPANT_FILTERS = ['all', 'held', 'rejected'] as const;
export type ParticipantFilterName = (typeof PARTICIPANT_FILTERS)[number];

export const SearchParticipantsQuery = Type.Object({
  id: Id,
  q: Type.Optional(
    Line({ maxLength: 320, description: 'The start of an email address (results in email order, sort ignored), or a whole referral code' }),
  ),
  sort: Type.Optional(Type.Union(PARTICIPANT_SORTS.map((s) => Type.Literal(s)), { default: 'createdOn' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
  filter: Type.Optional(
    Type.Union(PARTICIPANT_FILTERS.map((s) => Type.Literal(s)), { description: 'held: waiting for review (fraud score high, not approved)' }),
  ),
  pageSize: Type.Optional(Int(1, MAX_PAGE_SIZE)),
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 400 })),
});
export type SearchParticipantsQuery = Static<typeof SearchParticipantsQuery>;

/** A participant as the owner sees it in lists: the wire Participant plus review state and money. */
export const ParticipantSummary = Type.Composite([
  Participant,
  Type.Object({
    approval: Type.Boolean({ description: 'false while rewards are held back for review' }),
    rejected: Type.Boolean({ description: 'an owner rejected this held participant' }),
    amountPaid: Type.String({ description: 'Total the participant paid, in units, two decimals' }),
    paymentCount: Type.Integer(),
    revenueGenerated: Type.String({ description: 'Total paid by the participant’s referrals, in units' }),
    impressionCount: Type.Integer(),
  }),
]);
export type ParticipantSummary = Static<typeof ParticipantSummary>;

export const ParticipantSearchPage = Type.Object({
  participants: Type.Array(ParticipantSummary),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next page; absent on the last page' })),
});
export type ParticipantSearchPage = Static<typeof ParticipantSearchPage>;

/** Per reward kind (the participant's balance as a referrer, and as a referee). */
export const PerRewardKind = Type.Object({ referral: Type.Integer(), referee: Type.Integer() });
export type PerRewardKind = Static<typeof PerRewardKind>;

export const ParticipantDetail = Type.Object({
  participant: ParticipantSummary,
  rewards: Type.Object({
    pending: PerRewardKind,
    owed: PerRewardKind,
  }, { description: 'Beyond the balances: credits waiting out their hold, and reversals still to be netted from later credits' }),
  referrer: Type.Union([ParticipantSummary, Type.Null()]),
  signupSource: Type.Union([Type.Literal('api'), Type.Literal('browser'), Type.Literal('import')]),
  signals: Type.Array(Type.String(), { description: 'Why fraud scoring rated this sign-up as it did, in words' }),
  promotionCode: Type.Optional(Type.Composite([PromotionCodeRef], { description: "Their own Stripe promotion code, to share (the campaign's refereeDiscount; absent until made)" })),
});
export type ParticipantDetail = Static<typeof ParticipantDetail>;

/** Sign-ups that came by one channel, and how many of them qualified. */
export const ChannelCount = Type.Object({ value: Type.String(), signups: Type.Integer(), qualified: Type.Integer() });

export const CampaignAnalytics = Type.Object({
  funnel: Type.Object({
    impressions: Type.Integer(),
    signups: Type.Integer(),
    referredSignups: Type.Integer(),
    qualified: Type.Integer(),
  }),
  daily: Type.Array(Type.Object({ day: Type.String({ format: 'date' }), signups: Type.Integer(), referredSignups: Type.Integer() })),
  topReferrers: Type.Array(ParticipantSummary),
  referredRevenue: Type.String({ description: 'Total paid by referred participants, in units, two decimals' }),
  viralCoefficient: Type.Number({ description: 'Referred sign-ups per sign-up: how many others each participant brought in' }),
  channels: Type.Array(ChannelCount, { description: 'By utm_medium of the sign-up page (share links tag theirs: whatsapp, email, x, facebook, linkedin, copy, qr, and share for the device share sheet), most sign-ups first; sign-ups without one are not listed' }),
  sources: Type.Array(ChannelCount, { description: 'By utm_source of the sign-up page (refkit: a share link), most sign-ups first' }),
});
export type CampaignAnalytics = Static<typeof CampaignAnalytics>;

/**
 * A row of an import file: addParticipant's fields (less the campaign, which the query names), checked by
 * the same rules, and the referral code and sign-up date an export carries. Other columns (an export's
 * counters) are ignored.
 */
export const ImportRow = Type.Composite([
  Type.Omit(AddParticipantBody, ['id', 'utm']),
  Type.Object({
    referralCode: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{4,64}$', description: '4 to 64 letters and digits' })),
    createdOn: Type.Optional(DateTime),
  }),
]);
export type ImportRow = Static<typeof ImportRow>;

/** The body of an import (Content-Type: text/csv), as documented: the route reads it as a stream. */
export const CSV_FILE = Type.String({ description: 'The CSV file, UTF-8' });

/** Imports are all or nothing: a file with a refused row imports none. */
export const ImportResult = Type.Object({
  created: Type.Integer(),
  skipped: Type.Integer({ description: 'Rows whose email was already a participant' }),
});
export type ImportResult = Static<typeof ImportResult>;

/** A refused row of an import file: its line, the column at fault and why. */
export const RowProblem = Type.Object({ line: Type.Integer(), field: Type.Optional(Type.String()), message: Type.String() });
export type RowProblem = Static<typeof RowProblem>;

/** The 400 of an import with refused rows: the error envelope, with the first 100 of them. */
export const ImportRefusal = Type.Object({
  error: Type.Composite([
    ApiErrorBody.properties.error,
    Type.Object({ rows: Type.Optional(Type.Array(RowProblem, { description: 'The first 100 rows refused, in file order' })) }),
  ]),
});
export type ImportRefusal = Static<typeof ImportRefusal>;

export const AdvanceClockBody = Type.Object(
  {
    id: Id,
    to: Type.String({ format: 'date-time', description: "The campaign's new time: after its time now, at most 5 years ahead of the real time" }),
  },
  { additionalProperties: false },
);
export type AdvanceClockBody = Static<typeof AdvanceClockBody>;
export const CampaignClockQuery = Type.Object({ id: Id }, { additionalProperties: false });
export const CampaignClock = Type.Object({
  id: Type.String(),
  now: DateTime,
  offsetMs: Type.Integer({ description: "How far the campaign's time is ahead of the real time, in milliseconds" }),
});
export type CampaignClock = Static<typeof CampaignClock>;
