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

type Localization = ReturnType<typeof configureLocalization>;
let localization: Localization | undefined;

/**
 * @lit/localize, configured when the widget first asks for the locale rather than as the module loads (the
 * npm package does nothing on import). It can be configured once per copy of it: a page whose one
 * @lit/localize another copy of the widget (or the app itself) configured first keeps that configuration,
 * and this copy's texts stay in English. (The script-tag build carries its own copy.)
 */
function localized(): Localization {
  if (!localization) {
    try {
      localization = configureLocalization({
        sourceLocale: SOURCE_LOCALE,
        targetLocales: TARGET_LOCALES,
        loadLocale: (locale) => loaders[locale as keyof typeof loaders](),
      });
    } catch {
      localization = { getLocale: () => SOURCE_LOCALE, setLocale: () => Promise.resolve() };
    }
  }
  return localization;
}

/** The language the widget's texts are in now. */
export const getLocale = (): string => localized().getLocale();
/** Loads a language's texts (English is built in) and re-renders the widgets in it. */
export const setLocale = (locale: string): Promise<void> => localized().setLocale(locale);

/** The language an element is written in: its own or nearest `lang`, else the page's. */
export function languageOf(el: Element): string {
  return el.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || SOURCE_LOCALE;
}

