/** Reward values as a locale writes them (Intl), in the campaign's currency or unit: the widget's and the emails'. */

/** How a campaign's reward values read: money in a currency, or a count of some unit ("points"). */
export interface RewardFormat {
  currency?: string;
  unit?: string;
}

export function formatReward(value: number, format: RewardFormat, locale: string): string {
  if (format.currency) {
    try {
      // Whole amounts without decimals ("$5", "5 €"); the service keeps integer units.
      return new Intl.NumberFormat(locale, { style: 'currency', currency: format.currency, maximumFractionDigits: 0 }).format(value);
    } catch {
      // An unknown currency code: the number and the code.
      return `${formatCount(value, locale)} ${format.currency}`;
    }
  }
  return format.unit ? `${formatCount(value, locale)} ${format.unit}` : formatCount(value, locale);
}

export const formatCount = (n: number, locale: string) => new Intl.NumberFormat(locale).format(n);
