/**
 * Tax details a US payer collects before it pays one person more than the year's threshold (a W-9 from a
 * US person, a W-8BEN from a foreign one), and the threshold rule itself. Not tax advice: the thresholds
 * are the account's setting (`updateAccountSettings {tax}`), defaulting to 2,000 USD a year for payments
 * from 2026 (600 before). The TIN is sealed with REFKIT_ENCRYPTION_KEY (../../kernel/sealed.ts) and only
 * its last four characters are ever shown.
 */
import type { TaxSettings } from '../../../api/payout-schemas.js';
import type { Ctx } from '../../kernel/context.js';
import type { Store } from '../../store/store.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';

export const DEFAULT_TAX: TaxSettings = { thresholds: { '2026': 2000 }, retentionYears: 7 };
/** The yearly threshold before the first year the settings name (the law before 2026). */
const EARLIER_THRESHOLD = 600;

export interface TaxDetailsInput {
  form: 'w9' | 'w8ben';
  legalName: string;
  tin: string;
  address: string;
  country: string;
}

export function taxSettings(ctx: Ctx, accountId: number): Promise<TaxSettings> {
  return taxSettingsIn(ctx.store, accountId);
}

/** The account's tax settings, read through `store` (a transaction's, in an erasure). */
export async function taxSettingsIn(store: Store, accountId: number): Promise<TaxSettings> {
  const row = await store.payoutProfiles.taxSettings(accountId);
  return row ? { thresholds: JSON.parse(row.thresholds) as Record<string, number>, retentionYears: row.retention_years } : structuredClone(DEFAULT_TAX);
}

export async function updateTaxSettings(ctx: Ctx, accountId: number, patch: Partial<TaxSettings>): Promise<void> {
  const current = await taxSettings(ctx, accountId);
  const next = { thresholds: patch.thresholds ?? current.thresholds, retentionYears: patch.retentionYears ?? current.retentionYears };
  await ctx.store.payoutProfiles.putTaxSettings({ account_id: accountId, thresholds: JSON.stringify(next.thresholds), retention_years: next.retentionYears, updated_on: ctx.now() });
}

/** The threshold of a year: the setting of that year, or of the latest year before it that has one. */
export function thresholdOf(settings: TaxSettings, year: number): number {
  const years = Object.keys(settings.thresholds).map(Number).filter((y) => y <= year).sort((a, b) => b - a);
  return years.length > 0 ? settings.thresholds[String(years[0])]! : EARLIER_THRESHOLD;
}

/**
 * Whether paying `amount` more now would take the participant's year past the threshold without tax
 * details on file. Counted in USD payouts only: the thresholds are dollars, and a payout in another
 * currency is not converted (docs/payouts.md#tax-details).
 */
export async function needsTaxDetails(ctx: Ctx, accountId: number, participantId: number, amount: number, currency: string, now: number): Promise<boolean> {
  if (currency !== 'USD') return false;
  if (await ctx.store.payoutProfiles.taxDetails(participantId)) return false;
  const year = new Date(now).getUTCFullYear();
  const from = Date.UTC(year, 0, 1);
  const paid = await ctx.store.cashPayouts.totalSince(participantId, currency, from, Date.UTC(year + 1, 0, 1));
  return paid + amount > thresholdOf(await taxSettings(ctx, accountId), year);
}

const US_TIN = /^(\d{3}-?\d{2}-?\d{4}|\d{2}-?\d{7})$/;

export async function setTaxDetails(ctx: Ctx, participantId: number, input: TaxDetailsInput): Promise<void> {
  if (!ctx.sealer) throw new AppError(409, 'encryption_key_missing', 'Tax details are kept encrypted: the service needs REFKIT_ENCRYPTION_KEY set (docs/payouts.md#tax-details)');
  if (input.form === 'w9' && input.country !== 'US') throw invalid('country', 'A W-9 is for US persons: country must be US (a foreign person gives a W-8BEN)');
  if (input.form === 'w8ben' && input.country === 'US') throw invalid('country', 'A W-8BEN is for foreign persons: a US person gives a W-9');
  if (input.form === 'w9' && !US_TIN.test(input.tin)) throw invalid('tin', 'A W-9 TIN is an SSN (123-45-6789) or an EIN (12-3456789)');
  const tin = input.tin.replace(/-/g, '');
  const now = ctx.now();
  await ctx.store.payoutProfiles.setTaxDetails({
    participant_id: participantId,
    form: input.form,
    legal_name: input.legalName.trim(),
    tin_sealed: ctx.sealer.seal(tin),
    tin_last4: tin.slice(-4),
    address: input.address.trim(),
    country: input.country,
    created_on: now,
    updated_on: now,
    keep_until: null,
  });
}

/** The masked TIN: every character but the last four hidden. */
export const maskTin = (last4: string) => `•••••${last4}`;

export async function taxDetailsView(ctx: Ctx, participantId: number) {
  const row = await ctx.store.payoutProfiles.taxDetails(participantId);
  return row ? { form: row.form, legalName: row.legal_name, tin: maskTin(row.tin_last4), country: row.country, updatedAt: iso(Number(row.updated_on)) } : null;
}
