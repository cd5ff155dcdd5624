/**
 * Plural forms: which of a message's forms a count takes in the widget's language, by Intl.PluralRules
 * (English and German: 1 is "one"; French: 0 and 1; Arabic has six categories). Each counted message has
 * a `one` form and an `other` form, each its own catalogue entry; the translations of `other` are worded
 * to read right for every count the language's other categories cover (Arabic's "عدد ...: n").
 */
import { getLocale } from './i18n.js';

const rules = new Map<string, Intl.PluralRules>();

/** Whether `n` takes the singular form in the widget's language now (French: 0 as well as 1). */
export function isOne(n: number): boolean {
  const locale = getLocale();
  let r = rules.get(locale);
  if (!r) rules.set(locale, (r = new Intl.PluralRules(locale)));
  return r.select(n) === 'one';
}

/** The form of a counted message for `n`. */
export const plural = <T>(n: number, one: () => T, other: () => T): T => (isOne(n) ? one() : other());
