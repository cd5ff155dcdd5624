/**
 * The friend's discount in the visitor's language: "15% off your first payment with code ANN123.".
 * Loaded on demand by ./referral-widget.ts, once getPromotionCode answered with a discount, so that the
 * sign-up form's first load does not carry these texts. The widget's number and money formatting
 * (./amounts.ts) is handed in by the element rather than imported, so that it stays in the first load's
 * chunk instead of becoming a chunk of its own.
 */
import { html } from 'lit';
import { msg } from '@lit/localize';
import type { PromotionCodeOffer } from '../api/promotion-schemas.js';
import type { formatCount, formatReward } from './amounts.js';
import { plural } from './plural.js';

/** ./amounts.ts's formatting, as the element hands it in. */
export interface Formats {
  reward: typeof formatReward;
  count: typeof formatCount;
}

/** What the code takes off: "15%", "$10" (whole amounts as the widget's rewards read), "$10.50". */
export function discountOff(offer: PromotionCodeOffer, locale: string, formats: Formats): string {
  if (offer.percentOff !== undefined) return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(offer.percentOff / 100);
  const amount = Number(offer.amountOff);
  if (Number.isInteger(amount)) return formats.reward(amount, { currency: offer.currency }, locale);
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: offer.currency }).format(amount);
  } catch {
    return `${offer.amountOff} ${offer.currency}`;
  }
}

/** The friend's discount in a sentence, the code in it kept left to right. */
export function discountText(offer: PromotionCodeOffer, locale: string, formats: Formats) {
  const off = discountOff(offer, locale, formats);
  const code = html`<code dir="ltr">${offer.code}</code>`;
  const months = offer.durationInMonths ?? 1;
  const count = formats.count(months, locale);
  switch (offer.duration) {
    case 'forever':
      return msg(html`${off} off every payment with code ${code}.`);
    case 'repeating':
      return plural(
        months,
        () => msg(html`${off} off your payments for the first month with code ${code}.`),
        () => msg(html`${off} off your payments for the first ${count} months with code ${code}.`),
      );
    default:
      return msg(html`${off} off your first payment with code ${code}.`);
  }
}
