/**
 * The portal's language: @lit/localize, as the widget's (../widget/i18n.ts), over two catalogues: the
 * widget's (its share view, QR caption, friends list) and the portal's own (./locales/*.ts, built from
 * xliff/portal/*.xlf by `npm run localize`). A locale loads both and uses them as one. The portal's build
 * (vite.portal.config.ts) hands the widget's modules this module for their `./i18n.js`, so that the page
 * configures the library once, with both catalogues.
 */
import { configureLocalization } from '@lit/localize';
import { SOURCE_LOCALE, TARGET_LOCALES } from '../api/locales.js';

export { directionOf, SOURCE_LOCALE, supportedLocale, TARGET_LOCALES, type Locale } from '../api/locales.js';

type Catalogue = { templates: Record<string, unknown> };
const loaders: Record<(typeof TARGET_LOCALES)[number], () => Promise<[Catalogue, Catalogue]>> = {
  ar: () => Promise.all([import('../widget/locales/ar.js'), import('./locales/ar.js')]),
  de: () => Promise.all([import('../widget/locales/de.js'), import('./locales/de.js')]),
  es: () => Promise.all([import('../widget/locales/es.js'), import('./locales/es.js')]),
  fr: () => Promise.all([import('../widget/locales/fr.js'), import('./locales/fr.js')]),
};

export const { getLocale, setLocale } = configureLocalization({
  sourceLocale: SOURCE_LOCALE,
  targetLocales: TARGET_LOCALES,
  loadLocale: async (locale) => {
    const [widget, portal] = await loaders[locale as keyof typeof loaders]();
    return { templates: { ...widget.templates, ...portal.templates } } as never;
  },
});
