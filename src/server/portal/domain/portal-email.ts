/**
 * The portal's sign-in email, in the participant's language (their `locale`, the one their lifecycle
 * emails use; English for any other). A sentence, the link as a button, and what to do if it was not
 * them: the same frame as the widget's magic links (../../referrals/domain/email-links.ts buttonEmail).
 */
import { supportedLocale, type Locale } from '../../../api/locales.js';
import type { MailMessage } from '../../kernel/context.js';
import { buttonEmail } from '../../referrals/domain/email-links.js';

interface Words {
  subject: (campaign: string) => string;
  intro: (campaign: string) => string;
  action: string;
  ignore: string;
}

const WORDS: Record<Locale, Words> = {
  en: {
    subject: (c) => `Your sign-in link to ${c}`,
    intro: (c) => `Someone (hopefully you) asked to sign in to your referral rewards for ${c}.`,
    action: 'Sign in',
    ignore: 'If this was not you, ignore this email: nothing happens without the link. It works once, within 15 minutes.',
  },
  de: {
    subject: (c) => `Ihr Anmeldelink für ${c}`,
    intro: (c) => `Jemand (hoffentlich Sie) möchte sich bei Ihren Empfehlungsprämien für ${c} anmelden.`,
    action: 'Anmelden',
    ignore: 'Falls Sie das nicht waren, ignorieren Sie diese E-Mail: Ohne den Link passiert nichts. Er funktioniert einmal, innerhalb von 15 Minuten.',
  },
  fr: {
    subject: (c) => `Votre lien de connexion à ${c}`,
    intro: (c) => `Quelqu’un (vous, espérons-le) a demandé à se connecter à vos récompenses de parrainage pour ${c}.`,
    action: 'Se connecter',
    ignore: 'Si ce n’était pas vous, ignorez cet e-mail : rien ne se passe sans le lien. Il ne fonctionne qu’une fois, dans les 15 minutes.',
  },
  es: {
    subject: (c) => `Tu enlace para entrar en ${c}`,
    intro: (c) => `Alguien (esperamos que tú) pidió entrar en tus recompensas por referidos de ${c}.`,
    action: 'Entrar',
    ignore: 'Si no fuiste tú, ignora este correo: sin el enlace no pasa nada. Funciona una sola vez, durante 15 minutos.',
  },
  ar: {
    subject: (c) => `رابط تسجيل الدخول إلى ${c}`,
    intro: (c) => `طلب شخص ما (نأمل أن تكون أنت) تسجيل الدخول إلى مكافآت الإحالة الخاصة بك في ${c}.`,
    action: 'تسجيل الدخول',
    ignore: 'إذا لم تكن أنت، فتجاهل هذه الرسالة: لن يحدث شيء دون الرابط. يعمل الرابط مرة واحدة خلال 15 دقيقة.',
  },
};

export function portalLinkMessage(to: string, campaignName: string, locale: string, url: string): MailMessage {
  const language = supportedLocale(locale);
  const w = WORDS[language];
  const message = buttonEmail(to, w.subject(campaignName), w.intro(campaignName), w.action, url, w.ignore);
  // Arabic reads right to left; the link button and the text follow.
  return language === 'ar' ? { ...message, html: `<div dir="rtl">${message.html}</div>` } : message;
}
