/**
 * Reward types that are an amount of money (store credit, a discount, cash): their values are written
 * in the campaign's currency. Anything else ("points", "months free") is a count of that unit. The
 * service tells the widget which (getWidgetSettings) and the dashboard writes its texts the same way.
 */
const MONEY_TYPES = new Set(['', 'cash', 'money', 'credit', 'store credit', 'account credit', 'discount', 'voucher', 'gift card', 'coupon']);

export const isMoney = (rewardType: string) => MONEY_TYPES.has(rewardType.trim().toLowerCase());
