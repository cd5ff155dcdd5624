/**
 * What one lifecycle email says: the campaign's text for its kind and the recipient's language (the
 * owner's, else the default), the recipient's share link and portal link, the campaign's reward format
 * and address, and the signed unsubscribe link, rendered (./render.ts). The sender, the dashboard's
 * preview and its test send all compose emails here.
 */
import { TEST_HEADER, TEST_SUBJECT_PREFIX } from '../../kernel/test-mode.js';
import type { EmailKind } from '../../../api/email-schemas.js';
import { supportedLocale, type Locale } from '../../../api/locales.js';
import { isMoney } from '../../../api/reward-kind.js';
import type { MailMessage } from '../../kernel/context.js';
import { readEmailSettings } from './email-settings.js';
import type { EmailData } from './email-outbox.js';
import { shareLink } from '../../referrals/domain/present.js';
import { unsubscribeUrl } from './unsubscribe.js';
import type { CampaignRow, Store } from '../../store/store.js';
import { DEFAULT_TEXTS, type EmailText } from './email-texts.js';
import { renderEmail, type RenderedEmail } from './render.js';

export const UNSUBSCRIBE_POST = 'List-Unsubscribe=One-Click';

/** A campaign's participant portal (the portal's own address, ../../portal/), where payout details are set. */
export const portalLink = (baseUrl: string, campaignId: string) => `${baseUrl.replace(/\/+$/, '')}/portal/${encodeURIComponent(campaignId)}`;

export interface Recipient {
  id: number;
  email: string;
  first_name: string | null;
  code: string;
  locale: string;
}

/** The campaign's text of an email in a language: the owner's if they wrote one, else the default. */
export async function textOf(store: Store, campaign: CampaignRow, kind: EmailKind, locale: Locale): Promise<EmailText & { custom: boolean }> {
  const own = await store.emails.text(campaign.id, kind, locale);
  return own ? { subject: own.subject, body: own.body, custom: true } : { ...DEFAULT_TEXTS[locale][kind], custom: false };
}

/**
 * Renders an email to a recipient; `text` replaces the campaign's (an unsaved draft, for a preview).
 * `baseUrl` is the service's public address, which the unsubscribe link points at.
 */
export async function composeEmail(
  store: Store,
  baseUrl: string,
  campaign: CampaignRow,
  kind: EmailKind,
  to: Recipient,
  data: EmailData,
  text?: EmailText,
): Promise<RenderedEmail & { unsubscribeUrl: string }> {
  const locale = supportedLocale(to.locale);
  const unsubscribe = await unsubscribeUrl(store, baseUrl, campaign, to.id);
  const rendered = await renderEmail({
    kind,
    locale,
    text: text ?? (await textOf(store, campaign, kind, locale)),
    campaignName: campaign.name,
    rewardFormat: isMoney(campaign.reward_type) ? { currency: campaign.reward_currency } : { unit: campaign.reward_type },
    postalAddress: readEmailSettings(campaign).postalAddress,
    recipient: { email: to.email, firstName: to.first_name, code: to.code, shareLink: shareLink(campaign, to.code) },
    portalLink: portalLink(baseUrl, campaign.id),
    data,
    unsubscribeUrl: unsubscribe,
  });
  return { ...rendered, unsubscribeUrl: unsubscribe };
}

/**
 * The message to send: the rendered email with RFC 8058's one-click unsubscribe headers; a test
 * campaign's (`test`) marked as such, in its subject and a header (../../kernel/test-mode.ts).
 */
export function lifecycleMessage(to: string, email: RenderedEmail & { unsubscribeUrl: string }, test = false): MailMessage {
  return {
    to,
    subject: test ? `${TEST_SUBJECT_PREFIX}${email.subject}` : email.subject,
    html: email.html,
    text: email.text,
    ...(email.attachments && email.attachments.length > 0 && { attachments: email.attachments }),
    headers: { 'List-Unsubscribe': `<${email.unsubscribeUrl}>`, 'List-Unsubscribe-Post': UNSUBSCRIBE_POST, ...(test && { [TEST_HEADER]: '1' }) },
  };
}
