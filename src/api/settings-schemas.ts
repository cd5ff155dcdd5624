/** The shapes of an account's settings routes (src/server/accounts/routes/account-settings-admin.ts): data retention. */
import { Type, type Static } from '@sinclair/typebox';

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

export const AccountSettings = Type.Object({
  retention: RetentionSettings,
  /** What the account has when it set nothing. */
  defaults: RetentionSettings,
});
export type AccountSettings = Static<typeof AccountSettings>;

export const UpdateAccountSettingsBody = Type.Object(
  { retention: Type.Partial(RetentionSettings, { additionalProperties: false, description: 'The periods to change; the others stay' }) },
  { additionalProperties: false },
);
export type UpdateAccountSettingsBody = Static<typeof UpdateAccountSettingsBody>;
