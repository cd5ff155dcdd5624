/**
 * A lifecycle email, rendered: HTML from an MJML frame (compiled once per text direction, then filled
 * in), a plain-text part, and the subject. Every value put into the HTML is escaped, the owner's texts
 * included: a campaign text is text, never markup. Arabic is laid out right to left.
 *
 * MJML is loaded on first use: it is large, and only a process that sends lifecycle emails needs it.
 */
import escapeHtml from 'escape-html';
import QRCode from 'qrcode';
import type { EmailKind } from '../../../api/email-schemas.js';
import { directionOf, type Locale } from '../../../api/locales.js';
import { formatReward, type RewardFormat } from '../../../api/reward-format.js';
import type { MailMessage } from '../../kernel/context.js';
import type { EmailData } from './email-outbox.js';
import { FRAME_WORDS, type EmailText, type EmailVariable } from './email-texts.js';

export interface EmailToRender {
  kind: EmailKind;
  locale: Locale;
  /** The subject and body to use (the owner's, or the default), with their {variables}. */
  text: EmailText;
  campaignName: string;
  rewardFormat: RewardFormat;
  postalAddress: string;
  recipient: { email: string; firstName: string | null; code: string; shareLink: string };
  /** The participant's portal (`<PUBLIC_URL>/portal/<campaign>`), where they check their payout details. */
  portalLink: string;
  data: EmailData;
  unsubscribeUrl: string;
}

export type RenderedEmail = Pick<MailMessage, 'subject' | 'html' | 'text' | 'attachments'>;

const SLOTS = ['DIR', 'LANG', 'TITLE', 'CONTENT', 'QR', 'ACTION', 'LINK', 'FOOTER'] as const;
type Slot = (typeof SLOTS)[number];
const slot = (name: Slot) => `@@${name}@@`;

const frame = (dir: 'ltr' | 'rtl') => `<mjml lang="${slot('LANG')}" dir="${dir}">
  <mj-head>
    <mj-title>${slot('TITLE')}</mj-title>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="16px" line-height="24px" color="#1f2937" align="${dir === 'rtl' ? 'right' : 'left'}" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6">
    <mj-section background-color="#ffffff" padding="24px 16px">
      <mj-column>
        <mj-text font-size="20px" font-weight="bold">${slot('TITLE')}</mj-text>
        <mj-text>${slot('CONTENT')}</mj-text>
        <mj-text align="center">${slot('QR')}</mj-text>
        <mj-button href="${slot('LINK')}" background-color="#4f46e5" color="#ffffff" font-size="16px" border-radius="6px">${slot('ACTION')}</mj-button>
      </mj-column>
    </mj-section>
    <mj-section padding="16px">
      <mj-column>
        <mj-text font-size="12px" line-height="18px" color="#6b7280">${slot('FOOTER')}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

/** The frame's HTML per direction, compiled by MJML once per process. */
const compiled = new Map<'ltr' | 'rtl', Promise<string>>();

function frameHtml(dir: 'ltr' | 'rtl'): Promise<string> {
  let html = compiled.get(dir);
  if (!html) {
    html = import('mjml').then(async ({ default: mjml2html }) => {
      const out = await mjml2html(frame(dir), { validationLevel: 'strict' });
      return out.html;
    });
    compiled.set(dir, html);
    // A failure (it should not) is not kept: the next email tries again.
    html.catch(() => compiled.delete(dir));
  }
  return html;
}

/**
 * Fills in `{variables}`; unknown names stay as written. An empty value takes the space before it along,
 * so that "Hi {firstName}," reads "Hi," for someone who gave no name.
 */
export function fill(template: string, vars: Partial<Record<EmailVariable, string>>): string {
  return template.replace(/( ?)\{(\w+)\}/g, (whole, space: string, name: string) => {
    if (!Object.hasOwn(vars, name)) return whole;
    const value = vars[name as EmailVariable] ?? '';
    return value === '' ? '' : space + value;
  });
}

/**
 * `{friends}`: a count of friends worded as the language counts (Intl.PluralRules): "1 friend", "5
 * friends"; Arabic's forms as the object of a verb. `#` is the number.
 */
const FRIENDS: Record<Locale, Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }> = {
  en: { one: '# friend', other: '# friends' },
  de: { one: '# Freund', other: '# Freunde' },
  es: { one: '# amigo', other: '# amigos' },
  fr: { one: '# ami', other: '# amis' },
  ar: { one: 'صديقًا واحدًا', two: 'صديقين', few: '# أصدقاء', many: '# صديقًا', other: '# صديق' },
};

function friends(n: number, locale: Locale): string {
  const forms = FRIENDS[locale];
  return (forms[new Intl.PluralRules(locale).select(n)] ?? forms.other).replace('#', new Intl.NumberFormat(locale).format(n));
}

/** The values of the variables for one email. */
export function variables(e: EmailToRender): Partial<Record<EmailVariable, string>> {
  const { data, locale } = e;
  return {
    firstName: e.recipient.firstName?.trim() ?? '',
    campaign: e.campaignName,
    shareLink: e.recipient.shareLink,
    referralCode: e.recipient.code,
    // A cash payout's amount is in its own currency (the campaign's when it was made).
    reward: data.amount === undefined ? '' : formatReward(data.amount, data.currency ? { currency: data.currency } : e.rewardFormat, locale),
    rewardCode: data.rewardCode ?? '',
    availableOn: data.availableOn === undefined ? '' : new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(data.availableOn),
    friend: data.friend ?? '',
    milestone: data.milestone ?? '',
    referrals: data.referrals === undefined ? '' : new Intl.NumberFormat(locale).format(data.referrals),
    friends: data.referrals === undefined ? '' : friends(data.referrals, locale),
    rank: data.rank === undefined ? '' : new Intl.NumberFormat(locale).format(data.rank),
    places: data.places === undefined ? '' : new Intl.NumberFormat(locale).format(data.places),
    reason: data.payoutProblem === undefined ? '' : FRAME_WORDS[locale].payoutProblem[data.payoutProblem],
    portalLink: e.portalLink,
  };
}

/** The emails whose button opens the participant's portal rather than their share link: there is something to fix there. */
const PORTAL_ACTIONS: ReadonlySet<EmailKind> = new Set(['payout_failed']);

const paragraphs = (text: string) =>
  text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');

/** One line: a subject never holds a line break (a header injection), and is kept to a sane length. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 250);

export async function renderEmail(e: EmailToRender): Promise<RenderedEmail> {
  const words = FRAME_WORDS[e.locale];
  const vars = variables(e);
  const subject = oneLine(fill(e.text.subject, vars));
  const body = paragraphs(fill(e.text.body, vars));
  const extras = [
    ...(e.data.rewardCode ? [{ label: words.rewardCode, value: e.data.rewardCode }] : []),
    ...(e.data.availableOn !== undefined ? [{ label: fill(words.heldUntil, vars), value: '' }] : []),
  ];
  const reason = fill(words.reason, vars);
  const action = words.action[e.kind];
  const link = PORTAL_ACTIONS.has(e.kind) ? e.portalLink : e.recipient.shareLink;
  const welcome = e.kind === 'welcome';

  const content =
    body.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('') +
    extras
      .map((x) =>
        x.value
          ? `<p style="margin:0 0 16px">${escapeHtml(x.label)}: <strong style="font-family:monospace;font-size:18px;padding:4px 8px;background:#eef2ff;border-radius:4px">${escapeHtml(x.value)}</strong></p>`
          : `<p style="margin:0 0 16px;color:#6b7280">${escapeHtml(x.label)}</p>`,
      )
      .join('');
  const footer = [
    escapeHtml(reason),
    ...(e.postalAddress.trim() ? [escapeHtml(e.postalAddress.trim()).replace(/\n/g, '<br>')] : []),
    `<a href="${escapeHtml(e.unsubscribeUrl)}" style="color:#6b7280">${escapeHtml(words.unsubscribe)}</a>`,
  ].join('<br><br>');
  const values: Record<Slot, string> = {
    DIR: directionOf(e.locale),
    LANG: e.locale,
    TITLE: escapeHtml(subject),
    CONTENT: content,
    QR: welcome ? `<img src="cid:qr" width="160" height="160" alt="${escapeHtml(words.qrAlt)}" style="display:inline-block">` : '',
    ACTION: escapeHtml(action),
    LINK: escapeHtml(link),
    FOOTER: footer,
  };
  const template = await frameHtml(directionOf(e.locale));
  // One pass over the slots: a value is never searched for slots itself (an owner's "@@LINK@@" stays text).
  const html = template.replace(/@@([A-Z]+)@@/g, (whole, name: string) => (SLOTS.includes(name as Slot) ? values[name as Slot] : whole));

  const text = [
    ...body,
    ...extras.map((x) => (x.value ? `${x.label}: ${x.value}` : x.label)),
    `${action}: ${link}`,
    '--',
    reason,
    ...(e.postalAddress.trim() ? [e.postalAddress.trim()] : []),
    `${words.unsubscribe}: ${e.unsubscribeUrl}`,
  ].join('\n\n');

  const attachments = welcome
    ? [{ filename: 'share-link-qr.png', content: await QRCode.toBuffer(e.recipient.shareLink, { width: 320, margin: 1 }), cid: 'qr', contentType: 'image/png' }]
    : [];
  return { subject, html, text: `${text}\n`, attachments };
}
