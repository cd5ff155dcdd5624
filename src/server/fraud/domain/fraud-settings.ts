/**
 * The campaign fields of the fraud controls (`blocklist`, `captcha`, `autoApprove`): how they are checked,
 * stored and read back. The account's own blocklist (updateAccountSettings) is stored the same way
 * (../../accounts/domain/account-settings.ts). The CAPTCHA's secret is kept apart from what is shown
 * (captcha_secret), and is never read back.
 */
import type { AutoApprove, Blocklist, CaptchaSettingsBody, CaptchaView } from '../../../api/fraud-schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { checkBlocklist } from './blocklists.js';
import { invalid } from '../../kernel/errors.js';

type Columns = Pick<CampaignRow, 'blocklist' | 'captcha' | 'captcha_secret' | 'auto_approve'>;

/** A stored blocklist (campaign's or account's), or null. */
export function blocklistOf(row: { blocklist: string | null } | undefined): Blocklist | null {
  return row?.blocklist ? (JSON.parse(row.blocklist) as Blocklist) : null;
}

/** A blocklist as stored: checked and normalised (see ./blocklists.ts); null when it lists nothing. */
export function writeBlocklist(list: Blocklist | null, field = 'blocklist'): string | null {
  if (list === null) return null;
  const checked = checkBlocklist(list, field);
  return Object.keys(checked).length === 0 ? null : JSON.stringify(checked);
}

export function captchaOf(c: Pick<CampaignRow, 'captcha'>): CaptchaView | null {
  return c.captcha === null ? null : (JSON.parse(c.captcha) as CaptchaView);
}

export function autoApproveOf(c: Pick<CampaignRow, 'auto_approve'>): AutoApprove | null {
  return c.auto_approve === null ? null : (JSON.parse(c.auto_approve) as AutoApprove);
}

/** The columns the fraud-control fields given set (only those given). */
export function fraudControlColumns(
  input: { blocklist?: Blocklist | null; captcha?: CaptchaSettingsBody | null; autoApprove?: AutoApprove | null },
  current?: Pick<CampaignRow, 'captcha_secret'>,
): Partial<Columns> {
  const row: Partial<Columns> = {};
  if (input.blocklist !== undefined) row.blocklist = writeBlocklist(input.blocklist);
  const { captcha } = input;
  if (captcha === null) Object.assign(row, { captcha: null, captcha_secret: null });
  else if (captcha !== undefined) {
    // A change of keys may leave the secret out: the stored one stays (the dashboard never shows it to send back).
    const secret = captcha.secretKey?.trim() ?? current?.captcha_secret ?? null;
    if (secret === null) throw invalid('captcha.secretKey', "captcha.secretKey is needed: the provider's secret key, which the service checks tokens with (none is stored yet)");
    row.captcha = JSON.stringify({ provider: captcha.provider, siteKey: captcha.siteKey.trim() });
    row.captcha_secret = secret;
  }
  if (input.autoApprove !== undefined) {
    const limits = input.autoApprove ?? {};
    row.auto_approve = Object.keys(limits).length === 0 ? null : JSON.stringify(limits);
  }
  return row;
}

/** The controls as the owner reads them (getCampaignSettings): the CAPTCHA without its secret. */
export function presentFraudControls(c: Columns): { blocklist: Blocklist | null; captcha: CaptchaView | null; autoApprove: AutoApprove | null } {
  return { blocklist: blocklistOf(c), captcha: captchaOf(c), autoApprove: autoApproveOf(c) };
}
