/**
 * The widget's language: every text comes from @lit/localize's catalogue (`msg()` in the code; the
 * translations in ./locales/*.ts are built from xliff/*.xlf by `npm run localize`). English is in the
 * bundle; the other catalogues load on demand, so a page in English downloads none of them.
 *
 * A page has one active locale (the library's model): the widget picks it from its own `lang`, else
 * the nearest ancestor's, else the page's `<html lang>`.
 */
import { configureLocalization } from '@lit/localize';

export const SOURCE_LOCALE = 'en';
export const TARGET_LOCALES = ['ar', 'de', 'es', 'fr'] as const;
export type Locale = typeof SOURCE_LOCALE | (typeof TARGET_LOCALES)[number];

const loaders = {
  ar: () => import('./locales/ar.js'),
  de: () => import('./locales/de.js'),
  es: () => import('./locales/es.js'),
  fr: () => import('./locales/fr.js'),
};

export const { getLocale, setLocale } = configureLocalization({
  sourceLocale: SOURCE_LOCALE,
  targetLocales: TARGET_LOCALES,
  loadLocale: (locale) => loaders[locale as keyof typeof loaders](),
});

const SUPPORTED = new Set<string>([SOURCE_LOCALE, ...TARGET_LOCALES]);
const RTL = new Set(['ar', 'he', 'fa', 'ur']);

/** The supported locale for a BCP 47 tag: `de-CH` reads German; an unsupported language, English. */
export function supportedLocale(tag: string | null | undefined): Locale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (SUPPORTED.has(language) ? language : SOURCE_LOCALE) as Locale;
}

/** The language an element is written in: its own or nearest `lang`, else the page's. */
export function languageOf(el: Element): string {
  return el.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || SOURCE_LOCALE;
}

/** Text direction of a language tag (not only of the shipped locales: the page's own text may be RTL). */
export const directionOf = (tag: string): 'ltr' | 'rtl' => (RTL.has(tag.trim().toLowerCase().split(/[-_]/)[0] ?? '') ? 'rtl' : 'ltr');
