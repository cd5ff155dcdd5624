/**
 * One-time links emailed to an address. Following one proves the mailbox: a `confirm` link turns a
 * pending sign-up into a participant (double opt-in), a `login` link lets a known participant see their
 * private fields on a new browser (a magic link). Either way the browser that follows it gets a
 * participant token.
 *
 * The link points at the campaign's landing page (`hostURL?id=<campaign>&refkit_verify=<code>`), where
 * the widget exchanges the code with `verifyEmail`. Mail scanners that fetch links do not run scripts, so
 * they do not use the code up. Codes are stored hashed, expire, and work once.
 */
import type { CampaignRow, EmailLinkRow } from '../../store/store.js';
import type { Ctx, MailMessage } from '../../kernel/context.js';
import { deleteEmailLink, insertLinkIf } from '../store/email-link-writes.js';
import { AppError } from '../../kernel/errors.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';
import { DAY_MS } from '../../kernel/time.js';

export type LinkPurpose = EmailLinkRow['purpose'];

/** The URL parameter the widget looks for. */
export const LINK_PARAM = 'refkit_verify';
export const LINK_TTL_MS = DAY_MS;
/**
 * A form must not become a way to flood a mailbox: one link per address, campaign and referrer a
 * minute, and a few an hour in all. The referrer counts because a squatter's sign-up of an address must
 * not hold back the confirmation its owner asks for through a friend's link moments later.
 */
export const RESEND_INTERVAL_MS = 60_000;
export const LINKS_PER_HOUR = 5;

export const mailUnavailable = () =>
  new AppError(503, 'unavailable', 'This service cannot send email (SMTP_URL is not set), which this step needs');

/** What happened to the email: sent now, or not sent because one went out moments ago. */
export type LinkDelivery = 'sent' | 'throttled';

export async function sendEmailLink(
  ctx: Ctx,
  campaign: CampaignRow,
  email: string,
  purpose: LinkPurpose,
  referredById: number | null,
): Promise<LinkDelivery> {
  if (!ctx.mailer) throw mailUnavailable();
  const now = ctx.now();
  const code = newSecret('ev');
  const row = {
    hash: hashSecret(code),
    campaign_id: campaign.id,
    email,
    purpose,
    referred_by_id: referredById,
    created_on: now,
    expires_on: now + LINK_TTL_MS,
    used_on: null,
  };
  const inserted = await insertLinkIf(ctx.store, row, now - 60 * 60_000, LINKS_PER_HOUR, (recent) => {
    const again = recent.some((l) => l.referred_by_id === referredById && now - l.created_on < RESEND_INTERVAL_MS);
    return !again && recent.length < LINKS_PER_HOUR;
  });
  if (!inserted) return 'throttled';
  try {
    await ctx.mailer.send(message(campaign, email, purpose, linkUrl(campaign, code)));
  } catch (err) {
    // Not sent: forgotten, so the person may ask again at once rather than wait out the throttle for
    // nothing. The mail server's error (its host and port) is the operator's business, not the caller's:
    // it is logged, never answered.
    await deleteEmailLink(ctx.store, row.hash);
    throw new AppError(503, 'unavailable', 'The email could not be sent just now; try again in a few minutes', undefined, undefined, err);
  }
  return 'sent';
}

/**
 * Uses a link once: its row, or 404 when the code is unknown, used or expired (all look alike to a
 * guesser). `check` may refuse the link before it is used up, so that a refusal can be retried later.
 */
export async function consumeEmailLink(ctx: Ctx, campaignId: string, code: string, check: (link: EmailLinkRow) => void): Promise<EmailLinkRow> {
  const hash = hashSecret(code);
  const now = ctx.now();
  const row = await ctx.store.findEmailLink(hash);
  if (!row || row.campaign_id !== campaignId || row.used_on !== null || row.expires_on <= now) throw linkNotFound();
  check(row);
  if (!(await ctx.store.consumeEmailLink(hash, now))) throw linkNotFound();
  return row;
}

export const linkNotFound = () => new AppError(404, 'link_not_found', 'This link is unknown, already used or expired; ask for a new one', 'token');

function linkUrl(campaign: CampaignRow, code: string): string {
  const url = new URL(campaign.host_url);
  url.searchParams.set('id', campaign.id);
  url.searchParams.set(LINK_PARAM, code);
  return url.href;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A short email around one link: a sentence, the link as a button, and what to do if it was not you. */
export function buttonEmail(to: string, subject: string, intro: string, action: string, url: string, ignore: string): MailMessage {
  return {
    to,
    subject,
    text: `${intro}\n\n${action}: ${url}\n\n${ignore}\n`,
    html:
      `<p>${escapeHtml(intro)}</p>` +
      `<p><a href="${escapeHtml(url)}" style="display:inline-block;padding:10px 16px;background:#4f46e5;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action)}</a></p>` +
      `<p style="color:#555">${escapeHtml(ignore)}</p>`,
  };
}

function message(campaign: CampaignRow, to: string, purpose: LinkPurpose, url: string): MailMessage {
  const name = campaign.name;
  const [subject, intro, action] =
    purpose === 'confirm'
      ? [`Confirm your email for ${name}`, `Please confirm that you signed up for ${name} with this address.`, 'Confirm my email']
      : [`Your link to ${name}`, `Someone (hopefully you) asked to see your referral rewards for ${name}.`, 'Show my rewards'];
  const ignore = 'If this was not you, ignore this email: nothing happens without the link. It works once, within 24 hours.';
  return buttonEmail(to, subject, intro, action, url, ignore);
}
