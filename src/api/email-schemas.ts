/** The shapes of the lifecycle emails' admin routes (src/server/emails/routes/email-admin.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { LOCALES } from './locales.js';

/** The lifecycle emails, in the order a participant meets them. */
export const EMAIL_KINDS = ['welcome', 'friend_joined', 'reward_earned', 'reward_available', 'reward_reversed', 'milestone', 'reminder', 'access_granted', 'leaderboard_top', 'payout_paid', 'payout_failed'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

const Kind = Type.Union(EMAIL_KINDS.map((k) => Type.Literal(k)));
const LocaleName = Type.Union(LOCALES.map((l) => Type.Literal(l)));
const CampaignId = Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' });

/** Which emails a campaign sends, and the owner's postal address every footer carries. */
export const EmailSettings = Type.Object(
  {
    welcome: Type.Boolean({ description: 'To a new participant, with their share link and QR code (default on)' }),
    friend_joined: Type.Boolean({ description: 'To a referrer, when a friend signs up through their link (default on)' }),
    reward_earned: Type.Boolean({ description: 'To a participant credited a reward, with the amount and its code when there is one (default on)' }),
    reward_available: Type.Boolean({ description: "To a participant whose held reward became available after the campaign's hold (default on)" }),
    reward_reversed: Type.Boolean({ description: 'To a participant a credited reward was taken back from: a refund, a dispute, a referral undone (default on)' }),
    milestone: Type.Boolean({ description: 'To a referrer who reached a milestone (default on)' }),
    reminder: Type.Boolean({ description: 'Once, to a participant who has referred no one reminderDays after joining (default off)' }),
    access_granted: Type.Boolean({ description: 'To a participant of a waitlist let in by grantAccess (default on)' }),
    leaderboard_top: Type.Boolean({
      description: "To a referrer whose credited referral puts them among the leaderboard's shown places, once per board (all time, or each month) (default on)",
    }),
    payout_paid: Type.Boolean({ description: 'To a participant whose cash payout (PayPal, Stripe) was paid, with the amount (default on)' }),
    payout_failed: Type.Boolean({
      description: 'To a participant whose cash payout did not reach them (failed, returned, unclaimed): the amount is back on their balance, with why, and a link to their payout details in the portal (default on)',
    }),
    reminderDays: Type.Integer({ minimum: 1, maximum: 365, 'x-finite': true, description: 'Days after joining before the reminder (default 7)' }),
    postalAddress: Type.String({ format: 'text', maxLength: 300, description: "The owner's physical address, shown in every email's footer" }),
  },
  { additionalProperties: false },
);
export type EmailSettings = Static<typeof EmailSettings>;

export const UpdateEmailSettingsBody = Type.Composite([Type.Object({ id: CampaignId }), Type.Partial(EmailSettings)], { additionalProperties: false });
export type UpdateEmailSettingsBody = Static<typeof UpdateEmailSettingsBody>;

/** A subject and body of one email in one language; `custom` when the owner wrote it, else the default. */
export const EmailText = Type.Object({
  kind: Kind,
  locale: LocaleName,
  subject: Type.String(),
  body: Type.String(),
  custom: Type.Boolean(),
});
export type EmailText = Static<typeof EmailText>;

export const EmailTextsView = Type.Object({
  settings: EmailSettings,
  texts: Type.Array(EmailText),
  variables: Type.Array(Type.String(), { description: 'The {variables} a subject or body may use' }),
  smtpConfigured: Type.Boolean({ description: 'false: SMTP_URL is not set, and no email is written or sent' }),
});
export type EmailTextsView = Static<typeof EmailTextsView>;

export const PutEmailTextBody = Type.Object(
  {
    id: CampaignId,
    kind: Kind,
    locale: LocaleName,
    subject: Type.String({ format: 'line', minLength: 1, maxLength: 200 }),
    body: Type.String({ format: 'text', minLength: 1, maxLength: 5000, description: 'Plain text; a blank line starts a paragraph' }),
  },
  { additionalProperties: false },
);
export type PutEmailTextBody = Static<typeof PutEmailTextBody>;

export const EmailTextKey = Type.Object({ id: CampaignId, kind: Kind, locale: LocaleName }, { additionalProperties: false });
export type EmailTextKey = Static<typeof EmailTextKey>;

/** Renders an email as a participant would get it: the saved text, or the subject and body given (unsaved). */
export const PreviewEmailBody = Type.Object(
  {
    id: CampaignId,
    kind: Kind,
    locale: LocaleName,
    subject: Type.Optional(Type.String({ format: 'line', minLength: 1, maxLength: 200 })),
    body: Type.Optional(Type.String({ format: 'text', minLength: 1, maxLength: 5000 })),
  },
  { additionalProperties: false },
);
export type PreviewEmailBody = Static<typeof PreviewEmailBody>;

export const EmailPreview = Type.Object({ subject: Type.String(), html: Type.String(), text: Type.String() });
export type EmailPreview = Static<typeof EmailPreview>;

export const TestEmailBody = Type.Composite([PreviewEmailBody, Type.Object({ to: Type.String({ format: 'line', minLength: 3, maxLength: 254 }) })], {
  additionalProperties: false,
});
export type TestEmailBody = Static<typeof TestEmailBody>;

export const EMAIL_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;

export const EmailLogEntry = Type.Object({
  id: Type.String(),
  kind: Kind,
  to: Type.String(),
  status: Type.Union(EMAIL_STATUSES.map((s) => Type.Literal(s)), {
    description: '`pending`: waiting or retrying; `sent`; `failed`: the SMTP server kept refusing it; `skipped`: unsubscribed, or the email was turned off',
  }),
  attempts: Type.Integer(),
  lastError: Type.Optional(Type.String()),
  createdOn: Type.String({ format: 'date-time' }),
  sentOn: Type.Optional(Type.String({ format: 'date-time' })),
});
export type EmailLogEntry = Static<typeof EmailLogEntry>;

export const EmailLogQuery = Type.Object({
  id: CampaignId,
  status: Type.Optional(Type.Union(EMAIL_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, 'x-finite': true, default: 50 })),
  cursor: Type.Optional(Type.String({ format: 'line', maxLength: 200, description: 'nextCursor of the page before' })),
});
export type EmailLogQuery = Static<typeof EmailLogQuery>;

export const EmailLogPage = Type.Object({ items: Type.Array(EmailLogEntry), nextCursor: Type.Optional(Type.String()) });
export type EmailLogPage = Static<typeof EmailLogPage>;
