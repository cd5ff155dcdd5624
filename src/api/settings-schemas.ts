/** The shapes of an account's settings routes (src/server/accounts/routes/account-settings-admin.ts): data retention, payout providers, tax. */
import { Type, type Static } from '@sinclair/typebox';
import { Blocklist } from './fraud-schemas.js';
import { PayPalSettingsBody, PayPalSettingsView, StripeConnectSettingsBody, StripeConnectSettingsView, TaxSettings } from './payout-schemas.js';

/** The longest any period may be: ten years. */
export const MAX_RETENTION_DAYS = 3650;

const days = (minimum: number, description: string) => Type.Integer({ minimum, maximum: MAX_RETENTION_DAYS, 'x-finite': true, description });

/** How long the account's personal and operational data is kept, in days (docs/privacy.md#retention). */
export const RetentionSettings = Type.Object(
  {
    ipDays: days(0, "Days a participant's sign-up IP address and network are kept (default 90); 0: they are not stored at all"),
    webhookDays: days(1, 'Days delivered webhook events, their deliveries and attempts are kept (default 30); undelivered ones are kept until delivered'),
    emailDays: days(1, 'Days sent, failed and skipped lifecycle emails stay in the email log (default 90); pending ones are kept until sent'),
  },
  { additionalProperties: false },
);
export type RetentionSettings = Static<typeof RetentionSettings>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description: string) => Type.Union([t, Type.Null()], { description });

export const AccountSettings = Type.Object({
  id: Type.Integer({ description: "The account's id: the {accountId} of its payout providers' webhook receivers" }),
  retention: RetentionSettings,
  /** What the account has when it set nothing. */
  defaults: RetentionSettings,
  paypal: Nullable(PayPalSettingsView, 'PayPal credentials live campaigns are paid with; null: none'),
  paypalSandbox: Nullable(PayPalSettingsView, "PayPal sandbox credentials test campaigns are paid with; null: none"),
  stripe: Nullable(StripeConnectSettingsView, 'Stripe Connect keys live campaigns are paid with; null: none'),
  stripeTest: Nullable(StripeConnectSettingsView, 'Stripe Connect test keys test campaigns are paid with; null: none'),
  tax: TaxSettings,
  blocklist: Nullable(Blocklist, "The account's blocklist, applied to every campaign of the account beside the campaign's own; null: none"),
});
export type AccountSettings = Static<typeof AccountSettings>;

export const UpdateAccountSettingsBody = Type.Object(
  {
    retention: Type.Optional(Type.Partial(RetentionSettings, { additionalProperties: false, description: 'The periods to change; the others stay' })),
    paypal: Type.Optional(PayPalSettingsBody),
    paypalSandbox: Type.Optional(PayPalSettingsBody),
    stripe: Type.Optional(StripeConnectSettingsBody),
    stripeTest: Type.Optional(StripeConnectSettingsBody),
    tax: Type.Optional(Type.Partial(TaxSettings, { additionalProperties: false })),
    blocklist: Type.Optional(Nullable(Blocklist, "The account's blocklist, applied to every campaign beside the campaign's own (docs/fraud.md); null or {} removes it")),
  },
  { additionalProperties: false },
);
export type UpdateAccountSettingsBody = Static<typeof UpdateAccountSettingsBody>;
