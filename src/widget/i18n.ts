/**
 * The widget's language: every text comes from @lit/localize's catalogue (`msg()` in the code; the
 * translations in ./locales/*.ts are built from xliff/*.xlf by `npm run localize`). English is in the
 * bundle; the other catalogues load on demand, so a page in English downloads none of them.
 *
 * A page has one active locale (the library's model): the widget picks it from its own `lang`, else
 * the nearest ancestor's, else the page's `<html lang>`.
 */
import { configureLocalization } from '@lit/localize';

import { SOURCE_LOCALE, TARGET_LOCALES } from '../api/locales.js';

export { directionOf, SOURCE_LOCALE, supportedLocale, TARGET_LOCALES, type Locale } from '../api/locales.js';

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

/** The language an element is written in: its own or nearest `lang`, else the page's. */
export function languageOf(el: Element): string {
  return el.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || SOURCE_LOCALE;
}

