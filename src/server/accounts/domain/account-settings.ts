/**
 * An account's settings: how long its data is kept (docs/privacy.md#retention), its payout providers and
 * tax settings (../../payouts/domain/payout-providers.ts, tax-details.ts). An account that set
 * nothing has the defaults, and a change sets only the periods it names, so that two owners changing
 * different periods at once both keep theirs.
 */
import { type AccountSettings, type RetentionSettings, UpdateAccountSettingsBody } from '../../../api/settings-schemas.js';
import { AppError } from '../../kernel/errors.js';
import type { RetentionColumns, SettingsPatch } from '../store/account-settings-store.js';
import { blocklistOf, writeBlocklist } from '../../fraud/domain/fraud-settings.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { payoutProviderSettings, updatePayoutProviders } from '../../payouts/domain/payout-providers.js';
import { taxSettings, updateTaxSettings } from '../../payouts/domain/tax-details.js';

/**
 * The defaults. IPs 90 days: long enough for an owner to review a month's held sign-ups and the fraud
 * signals they were held for (a referrer's network, a burst from one network), short enough that an
 * address is not kept for good. Delivered webhooks 30 days: the receiver has them, and a month is
 * enough to look into one it mishandled and redeliver it. Emails 90 days: a quarter of the log, to
 * answer "did they get it?" when a participant asks.
 */
export const DEFAULT_RETENTION: RetentionSettings = { ipDays: 90, webhookDays: 30, emailDays: 90 };

const COLUMNS = { ipDays: 'ip_days', webhookDays: 'webhook_days', emailDays: 'email_days' } as const;

/** The periods a row (or no row: the defaults) sets; a null column reads as its default. */
export function retentionOf(row: { [K in keyof RetentionColumns]?: number | null } | undefined): RetentionSettings {
  return {
    ipDays: row?.ip_days ?? DEFAULT_RETENTION.ipDays,
    webhookDays: row?.webhook_days ?? DEFAULT_RETENTION.webhookDays,
    emailDays: row?.email_days ?? DEFAULT_RETENTION.emailDays,
  };
}

export async function getAccountSettings(ctx: Ctx, actor: Actor): Promise<AccountSettings> {
  const stored = await ctx.store.accountSettings.stored(actor.accountId);
  return {
    id: actor.accountId,
    retention: retentionOf(stored),
    defaults: { ...DEFAULT_RETENTION },
    ...(await payoutProviderSettings(ctx, actor.accountId)),
    tax: await taxSettings(ctx, actor.accountId),
    blocklist: blocklistOf(stored),
  };
}

/** Sets the periods given; the others stay as they are (the defaults if never set). */
export async function updateAccountSettings(ctx: Ctx, actor: Actor, body: UpdateAccountSettingsBody): Promise<AccountSettings> {
  // An empty body is a mistake (a misspelt section is refused as unknown before this): say what it may hold.
  if (Object.keys(body).length === 0) {
    throw new AppError(400, 'invalid_request', `Give at least one of ${Object.keys(UpdateAccountSettingsBody.properties).join(', ')}`);
  }
  const retention = body.retention ?? {};
  const patch = Object.fromEntries(
    (Object.keys(COLUMNS) as (keyof RetentionSettings)[]).flatMap((k) => (retention[k] === undefined ? [] : [[COLUMNS[k], retention[k]]])),
  ) as SettingsPatch;
  // Checked (and refused) before anything is written, like the payout providers below.
  if (body.blocklist !== undefined) patch.blocklist = writeBlocklist(body.blocklist, 'blocklist');
  // The payout providers are checked (a live key for live campaigns) before anything is written.
  await updatePayoutProviders(ctx, actor.accountId, body);
  if (body.tax) await updateTaxSettings(ctx, actor.accountId, body.tax);
  const defaults = { ip_days: DEFAULT_RETENTION.ipDays, webhook_days: DEFAULT_RETENTION.webhookDays, email_days: DEFAULT_RETENTION.emailDays };
  if (Object.keys(patch).length > 0) await ctx.store.accountSettings.put(actor.accountId, defaults, patch, ctx.now());
  return getAccountSettings(ctx, actor);
}

/**
 * The IP address of a sign-up as it may be stored for this account: null when the account keeps none
 * (ipDays 0). Everything the sign-up does with its IP (fraud scoring's network signals) then has none.
 */
export async function storableIp(ctx: Ctx, accountId: number, ip: string | null): Promise<string | null> {
  if (ip === null) return null;
  return retentionOf(await ctx.store.accountSettings.find(accountId)).ipDays === 0 ? null : ip;
}
