/** A campaign's lifecycle email settings (EmailSettings), kept as one JSON column: which emails it sends. */
import { EMAIL_KINDS, type EmailKind, type EmailSettings } from '../../../api/email-schemas.js';
import type { CampaignRow } from '../../store/store.js';

/** Every email on but the reminder, and no address: what a campaign that never changed its settings sends. */
export const DEFAULT_EMAIL_SETTINGS: EmailSettings = {
  ...(Object.fromEntries(EMAIL_KINDS.map((k) => [k, k !== 'reminder'])) as Record<EmailKind, boolean>),
  reminderDays: 7,
  postalAddress: '',
};

/** Per campaign row (rows are cached, so this lives as long as the campaign is unchanged). */
const parsed = new WeakMap<CampaignRow, EmailSettings>();

export function readEmailSettings(c: CampaignRow): EmailSettings {
  let settings = parsed.get(c);
  if (!settings) {
    settings = c.email_settings ? { ...DEFAULT_EMAIL_SETTINGS, ...(JSON.parse(c.email_settings) as Partial<EmailSettings>) } : DEFAULT_EMAIL_SETTINGS;
    parsed.set(c, settings);
  }
  return settings;
}

export const sends = (c: CampaignRow, kind: EmailKind): boolean => readEmailSettings(c)[kind];
