/**
 * The shapes of cash payouts (src/server/payouts/): the campaign's `cashPayouts`, payout methods, runs and
 * payouts as the owner's routes answer them, and the account's payout providers and tax settings.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Email, PagingQuery } from './schemas.js';
import { PayoutMethod } from './cash-payout-settings.js';

export { CashPayoutSettings, PAYOUT_METHODS, PayoutMethod } from './cash-payout-settings.js';

const CampaignId = Type.String({ format: 'line', minLength: 1, maxLength: 64, description: 'The campaign' });

export const CASH_PAYOUT_STATUSES = ['pending_approval', 'sending', 'sent', 'paid', 'failed', 'returned', 'unclaimed', 'cancelled'] as const;
export const CashPayoutStatus = Type.Union(
  CASH_PAYOUT_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'pending_approval (waits for approvePayouts), sending (approved; being sent, or waiting with the reason), sent (the provider took it), ' +
      'paid, failed / returned / unclaimed (the amount is back on the balance, with the reason), cancelled',
  },
);
export type CashPayoutStatus = Static<typeof CashPayoutStatus>;

export const CashPayout = Type.Object({
  id: Type.Integer(),
  email: Type.String({ description: 'The participant' }),
  runId: Type.String({ description: 'The run (createPayouts call or monthly run) that made it' }),
  amount: Type.Integer({ description: 'What it pays, in whole units of currency: referralAmount + refereeAmount' }),
  referralAmount: Type.Integer({ description: 'Taken from the referral (referrer) balance' }),
  refereeAmount: Type.Integer({ description: 'Taken from the referee balance' }),
  currency: Type.String(),
  method: PayoutMethod,
  destination: Type.String({ description: 'The PayPal address, or the Stripe Connect account (acct_...), it is paid to' }),
  status: CashPayoutStatus,
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it waits, failed, was returned or cancelled' }),
  providerId: Type.Union([Type.String(), Type.Null()], { description: "PayPal's payout item id or Stripe's transfer id, once sent" }),
  createdAt: Type.String({ format: 'date-time' }),
  sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  settledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was paid, failed, returned, unclaimed or cancelled' }),
});
export type CashPayout = Static<typeof CashPayout>;

export const CreatePayoutsBody = Type.Object({ id: CampaignId }, { additionalProperties: false });
export const CreatePayoutsAnswer = Type.Object({
  runId: Type.Union([Type.String(), Type.Null()], { description: 'null when the run made no payout' }),
  payouts: Type.Array(CashPayout),
  skipped: Type.Array(
    Type.Object({
      email: Type.String(),
      reason: Type.String({ description: 'under the minimum, no payout method, tax details missing, ...' }),
    }),
  ),
});
export type CreatePayoutsAnswer = Static<typeof CreatePayoutsAnswer>;

const PayoutIds = Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-finite': true }), { minItems: 1, maxItems: 1000, uniqueItems: true });
export const ApprovePayoutsBody = Type.Object({ id: CampaignId, payoutIds: PayoutIds }, { additionalProperties: false });
export type ApprovePayoutsBody = Static<typeof ApprovePayoutsBody>;
export const CancelPayoutsBody = ApprovePayoutsBody;
export const PayoutsAnswer = Type.Object({ payouts: Type.Array(CashPayout) });
export type PayoutsAnswer = Static<typeof PayoutsAnswer>;

export const ListPayoutsQuery = Type.Composite([
  Type.Object({
    id: CampaignId,
    status: Type.Optional(CashPayoutStatus),
    runId: Type.Optional(Type.String({ format: 'line', minLength: 1, maxLength: 64 })),
  }),
  PagingQuery,
]);
export type ListPayoutsQuery = Static<typeof ListPayoutsQuery>;
export const ExportPayoutRunQuery = Type.Object({ id: CampaignId, runId: Type.String({ format: 'line', minLength: 1, maxLength: 64 }) });

const PayPalEmail = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'The PayPal account\'s email address (needed for method paypal)' });
/** What a participant (or the owner for them) sets. */
export const PayoutMethodFields = {
  method: PayoutMethod,
  paypalEmail: Type.Optional(PayPalEmail),
};
export const AdminSetPayoutMethodBody = Type.Object({ id: CampaignId, email: Email, ...PayoutMethodFields }, { additionalProperties: false });
export type AdminSetPayoutMethodBody = Static<typeof AdminSetPayoutMethodBody>;

/** A participant's payout method as shown (to them in the portal, to the owner). */
export const PayoutMethodView = Type.Object({
  method: Type.Union([PayoutMethod, Type.Null()], { description: 'null: none chosen' }),
  paypalEmail: Type.Union([Type.String(), Type.Null()]),
  stripeAccount: Type.Union([Type.String(), Type.Null()], { description: 'The Stripe Connect account, once made' }),
  stripePayoutsEnabled: Type.Boolean({ description: 'Stripe says the account can be paid (onboarding finished)' }),
});
export type PayoutMethodView = Static<typeof PayoutMethodView>;

export const TAX_FORMS = ['w9', 'w8ben'] as const;
export const TaxDetailsFields = {
  form: Type.Union(TAX_FORMS.map((f) => Type.Literal(f)), { description: 'w9 (a US person) or w8ben (a foreign individual)' }),
  legalName: Type.String({ format: 'line', minLength: 1, maxLength: 200 }),
  tin: Type.String({ pattern: '^[0-9A-Za-z-]{4,20}$', description: 'Taxpayer identification number (SSN or EIN for a W-9; a foreign TIN for a W-8BEN); stored encrypted, shown masked' }),
  address: Type.String({ format: 'text', minLength: 1, maxLength: 500, description: 'The postal address, lines separated by newlines' }),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
};
export const TaxDetailsView = Type.Object({
  form: TaxDetailsFields.form,
  legalName: Type.String(),
  tin: Type.String({ description: 'Masked: only the last four characters show' }),
  country: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type TaxDetailsView = Static<typeof TaxDetailsView>;

/** The account's payout providers and tax settings, as getAccountSettings shows them (secrets never). */
export const PayPalSettingsView = Type.Object({
  clientId: Type.String(),
  webhookId: Type.Union([Type.String(), Type.Null()]),
  clientSecretConfigured: Type.Boolean(),
});
export const StripeConnectSettingsView = Type.Object({
  secretKeyConfigured: Type.Boolean(),
  connectWebhookSecretConfigured: Type.Boolean(),
});
export const PayPalSettingsBody = Type.Union(
  [
    Type.Object(
      {
        clientId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$' }),
        clientSecret: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$', description: 'Write-only; left out, the stored one stays (needed the first time and with a new clientId)' })),
        webhookId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The webhook id PayPal gave the receiver /api/v1/integrations/paypal/{accountId}' })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'PayPal REST app credentials; null removes them' },
);
export const StripeConnectSettingsBody = Type.Union(
  [
    Type.Object(
      {
        secretKey: Type.Optional(
          Type.String({ pattern: '^(rk|sk)_(live|test)_[A-Za-z0-9]{8,247}$', description: 'Write-only: a restricted key with Connect write access (rk_...) or a secret key; left out, the stored one stays (needed the first time)' }),
        ),
        connectWebhookSecret: Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9]{8,200}$', description: 'Write-only: the signing secret of the Connect endpoint /api/v1/integrations/stripe-connect/{accountId}' })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Stripe Connect keys; null removes them' },
);
export const TaxSettings = Type.Object(
  {
    thresholds: Type.Record(Type.String({ pattern: '^20[0-9]{2}$' }), Type.Integer({ minimum: 0, maximum: 1_000_000_000, 'x-finite': true }), {
      description: 'Per calendar year, the USD amount paid to one person past which tax details are needed (default 2000 from 2026)',
    }),
    retentionYears: Type.Integer({ minimum: 1, maximum: 10, 'x-finite': true, description: 'Years tax details and payout records are kept after an erasure (default 7)' }),
  },
  { additionalProperties: false },
);
export type TaxSettings = Static<typeof TaxSettings>;
export const TaxReportQuery = Type.Object({ year: Type.Integer({ minimum: 2000, maximum: 2100, 'x-finite': true }) });
