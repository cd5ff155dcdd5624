/**
 * The shapes of the fraud controls an owner sets (src/server/fraud/): blocklists, a CAPTCHA on keyless
 * sign-ups, the auto-approval limits, and the fraud cases the owner approves or rejects as a whole.
 */
import { Type, type Static } from '@sinclair/typebox';

const Line = (options: { minLength?: number; maxLength: number; description?: string; pattern?: string }) => Type.String({ format: 'line', ...options });
const Id = Line({ minLength: 1, maxLength: 64 });
const DateTime = Type.String({ format: 'date-time' });

/** The most entries one list of a blocklist holds: enough for a team's own lists, small enough to check per sign-up. */
export const MAX_BLOCKLIST_ENTRIES = 1000;

const entries = (item: ReturnType<typeof Line>, description: string) => Type.Optional(Type.Array(item, { maxItems: MAX_BLOCKLIST_ENTRIES, description }));

export const Blocklist = Type.Object(
  {
    emails: entries(Line({ minLength: 3, maxLength: 320 }), 'Whole email addresses (any case; a Gmail-style +tag or dot matches the same mailbox)'),
    domains: entries(Line({ minLength: 1, maxLength: 253 }), 'Email domains; a domain blocks its subdomains too (example.com blocks mail.example.com)'),
    ips: entries(Line({ minLength: 2, maxLength: 49 }), 'IP addresses or CIDR ranges, IPv4 or IPv6 (203.0.113.0/24, 2001:db8::/32)'),
    countries: entries(
      Line({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$' }),
      "ISO 3166-1 alpha-2 country codes (any case), of the sign-up's IP address: read from the header TRUSTED_COUNTRY_HEADER names, or from the offline database GEOIP=geoip-lite",
    ),
  },
  {
    additionalProperties: false,
    description:
      'Who may not join: a blocked keyless sign-up is refused (403 blocked, without saying which rule), a blocked keyed one is held for review; a blocked referee earns their referrer nothing',
  },
);
export type Blocklist = Static<typeof Blocklist>;

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha', 'recaptcha'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];
const CaptchaProvider = Type.Union(
  CAPTCHA_PROVIDERS.map((p) => Type.Literal(p)),
  { description: "turnstile (Cloudflare), hcaptcha, or recaptcha (Google's v2 checkbox)" },
);
const SiteKey = Line({ minLength: 1, maxLength: 200, description: "The provider's public site key, which the widget shows the challenge with" });

export const CaptchaSettingsBody = Type.Object(
  {
    provider: CaptchaProvider,
    siteKey: SiteKey,
    secretKey: Type.Optional(
      Line({ minLength: 1, maxLength: 200, description: "The provider's secret key, which the service verifies tokens with; write-only. Left out: the stored one stays (a first CAPTCHA needs it)" }),
    ),
  },
  { additionalProperties: false, description: 'A CAPTCHA every keyless sign-up solves in the widget (keyed sign-ups need none); null removes it' },
);
export type CaptchaSettingsBody = Static<typeof CaptchaSettingsBody>;

/** The CAPTCHA as the widget and the owner read it: never its secret. */
export const CaptchaView = Type.Object({ provider: CaptchaProvider, siteKey: Type.String() });
export type CaptchaView = Static<typeof CaptchaView>;

const Limit = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, 'x-finite': true, description }));

export const AutoApprove = Type.Object(
  {
    maxRewardsPerDay: Limit("Referrals one referrer may have credited in a day (the campaign's time zone) before the next waits for your approval"),
    maxRewardsPerReferrer: Limit('Referrals one referrer may have credited in all before the next waits for your approval'),
  },
  { additionalProperties: false, description: 'Limits past which a credit is held for review, with the reason; null or {} removes them' },
);
export type AutoApprove = Static<typeof AutoApprove>;

/** The fields of createCampaign and updateCampaign that set the fraud controls. */
export const FraudControlFields = {
  blocklist: Type.Optional(Type.Union([Blocklist, Type.Null()], { description: Blocklist.description })),
  captcha: Type.Optional(Type.Union([CaptchaSettingsBody, Type.Null()], { description: CaptchaSettingsBody.description })),
  autoApprove: Type.Optional(Type.Union([AutoApprove, Type.Null()], { description: AutoApprove.description })),
};

/** The same controls as getCampaignSettings shows them. */
export const FraudControlSettings = Type.Object({
  blocklist: Type.Union([Blocklist, Type.Null()]),
  captcha: Type.Union([CaptchaView, Type.Null()], { description: 'The CAPTCHA on keyless sign-ups (its secret is never shown); null: none' }),
  autoApprove: Type.Union([AutoApprove, Type.Null()]),
});

export const FRAUD_SIGNAL_KINDS = ['blocklist', 'self_referral_payment', 'duplicate_payout_method', 'limit_per_day', 'limit_per_referrer'] as const;
export type FraudSignalKind = (typeof FRAUD_SIGNAL_KINDS)[number];
export const FRAUD_CASE_STATUSES = ['open', 'approved', 'rejected'] as const;
export type FraudCaseStatus = (typeof FRAUD_CASE_STATUSES)[number];

const Person = Type.Object({ email: Type.String(), referralCode: Type.String() });

export const FraudSignalView = Type.Object({
  kind: Type.Union(FRAUD_SIGNAL_KINDS.map((k) => Type.Literal(k)), {
    description:
      'blocklist; self_referral_payment (paid with the referrer\'s card or customer); duplicate_payout_method (another participant has the same PayPal address or Connect account); limit_per_day, limit_per_referrer (autoApprove)',
  }),
  detail: Type.String({ description: 'What matched, in words' }),
  participant: Person,
  createdOn: DateTime,
});
export type FraudSignalView = Static<typeof FraudSignalView>;

export const FraudCaseView = Type.Object({
  caseId: Type.Integer(),
  status: Type.Union(FRAUD_CASE_STATUSES.map((s) => Type.Literal(s))),
  referrer: Type.Composite([Person], { description: 'Whom the case is about: the referrer of the participants held, or the participant themself when nobody referred them' }),
  signals: Type.Array(FraudSignalView, { description: 'Oldest first' }),
  openedOn: DateTime,
  resolvedOn: Type.Optional(DateTime),
  resolvedBy: Type.Optional(Type.String({ description: 'Who decided, as the audit log names them' })),
});
export type FraudCaseView = Static<typeof FraudCaseView>;

export const ListFraudCasesQuery = Type.Object({
  id: Id,
  status: Type.Optional(Type.Union(FRAUD_CASE_STATUSES.map((s) => Type.Literal(s)), { default: 'open', description: 'Which cases (default open)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-finite': true, default: 50, description: 'At most this many, newest first' })),
});
export type ListFraudCasesQuery = Static<typeof ListFraudCasesQuery>;
export const FraudCaseList = Type.Object({ cases: Type.Array(FraudCaseView) });
export type FraudCaseList = Static<typeof FraudCaseList>;

export const ResolveFraudCaseBody = Type.Object(
  {
    id: Id,
    caseId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true }),
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')], {
      description: "approve: every participant the case holds is approved and their rewards are credited; reject: they are rejected and earn nothing",
    }),
  },
  { additionalProperties: false },
);
export type ResolveFraudCaseBody = Static<typeof ResolveFraudCaseBody>;
