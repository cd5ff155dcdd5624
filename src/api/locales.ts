/**
 * The five languages Refkit writes in (the widget's texts and the lifecycle emails), and how a language
 * tag maps to one of them. Plain code, shared by the widget and the service.
 */
export const SOURCE_LOCALE = 'en';
export const TARGET_LOCALES = ['ar', 'de', 'es', 'fr'] as const;
export type Locale = typeof SOURCE_LOCALE | (typeof TARGET_LOCALES)[number];
export const LOCALES: readonly Locale[] = [SOURCE_LOCALE, ...TARGET_LOCALES];

const SUPPORTED = new Set<string>(LOCALES);
const RTL = new Set(['ar', 'he', 'fa', 'ur']);

/** The supported locale for a BCP 47 tag: `de-CH` reads German; an unsupported language, English. */
export function supportedLocale(tag: string | null | undefined): Locale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (SUPPORTED.has(language) ? language : SOURCE_LOCALE) as Locale;
}

/** Text direction of a language tag (not only of the shipped locales: the page's own text may be RTL). */
export const directionOf = (tag: string): 'ltr' | 'rtl' => (RTL.has(tag.trim().toLowerCase().split(/[-_]/)[0] ?? '') ? 'rtl' : 'ltr');
