/**
 * What the friend receives on each channel, and the share targets built from it with URL APIs (never
 * string-joined into HTML). Messages are the campaign's per-channel texts (getWidgetSettings) or the
 * widget's own friend-facing wording; `{link}` marks where the link goes, else it is appended.
 *
 * Each channel's link says which channel it went by: `utm_source=refkit&utm_medium=<channel>` added to
 * the link's own query (./code-capture.ts keeps them on the friend's side, and the sign-up sends them).
 */
import { msg, str } from '@lit/localize';
import type { ShareMessages } from '../api/schemas.js';

export type ShareChannel = 'email' | 'x' | 'facebook' | 'linkedin' | 'whatsapp';
/** Every way a link leaves the widget: the share buttons, the copy button, the QR code and the device's share sheet. */
export type LinkChannel = ShareChannel | 'copy' | 'qr' | 'share';

/** The link with `utm_source=refkit&utm_medium=<channel>`, its other parameters and fragment kept. */
export function tagLink(link: string, channel: LinkChannel): string {
  try {
    const url = new URL(link);
    url.searchParams.set('utm_source', 'refkit');
    url.searchParams.set('utm_medium', channel);
    return url.href;
  } catch {
    // Not an absolute URL (no link yet): as it is.
    return link;
  }
}

export interface ShareTarget {
  id: ShareChannel;
  label: string;
  href: string;
}

/** The messages of every channel that carries text, with the link in them. */
export interface ShareTexts {
  emailSubject: string;
  email: string;
  x: string;
  whatsapp: string;
  native: string;
}

const LINK = '{link}';

export function withLink(message: string, link: string): string {
  const text = message.trim();
  if (!text) return link;
  return text.includes(LINK) ? text.replaceAll(LINK, link) : `${text} ${link}`;
}

/**
 * The campaign's messages where it set them; the widget's otherwise, addressed to the friend and
 * naming what they get (`refereeReward`, formatted; '' when they get nothing).
 */
export function shareTexts(link: string, messages: ShareMessages, refereeReward: string): ShareTexts {
  const fallback = refereeReward
    ? msg(str`I think you would like this. Sign up with my link and you get ${refereeReward}:`)
    : msg('I think you would like this. Sign up with my link:');
  const text = (own: string | undefined, channel: LinkChannel) => withLink(own || fallback, tagLink(link, channel));
  return {
    emailSubject: messages.emailSubject || (refereeReward ? msg(str`A gift for you: ${refereeReward}`) : msg('An invitation for you')),
    email: text(messages.email, 'email'),
    x: text(messages.x, 'x'),
    whatsapp: text(messages.whatsapp, 'whatsapp'),
    native: text(messages.native, 'share'),
  };
}

function url(base: string, params: Record<string, string>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  return u.href;
}

export function shareTargets(link: string, texts: ShareTexts): ShareTarget[] {
  // Mail clients read `+` literally, so spaces go as %20 (URLSearchParams writes them as `+`, and a
  // literal `+` as %2B, so replacing `+` touches spaces only).
  const mail = new URLSearchParams({ subject: texts.emailSubject, body: texts.email }).toString().replaceAll('+', '%20');
  return [
    { id: 'email', label: msg('Email'), href: `mailto:?${mail}` },
    { id: 'whatsapp', label: 'WhatsApp', href: url('https://wa.me/', { text: texts.whatsapp }) },
    { id: 'x', label: 'X', href: url('https://x.com/intent/post', { text: texts.x }) },
    // Facebook and LinkedIn take only the link: they show the landing page's Open Graph preview.
    { id: 'facebook', label: 'Facebook', href: url('https://www.facebook.com/sharer/sharer.php', { u: tagLink(link, 'facebook') }) },
    { id: 'linkedin', label: 'LinkedIn', href: url('https://www.linkedin.com/sharing/share-offsite/', { url: tagLink(link, 'linkedin') }) },
  ];
}
