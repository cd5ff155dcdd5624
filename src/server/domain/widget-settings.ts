/**
 * What the widget needs of a campaign beyond the interface's exact Campaign shape: how to write its
 * amounts (a currency, or the reward type's unit when the reward is not money) and the messages the
 * friend receives on each channel. Public, like the campaign's texts: nothing here is private.
 */
import type { WidgetSettings } from '../../api/widget-schemas.js';
import type { CampaignRow } from '../store/store.js';
import { findCampaign } from './campaigns.js';
import type { Ctx } from './context.js';
import { readShareMessages } from './share-messages.js';

/**
 * Reward types that are an amount of money (store credit, a discount, cash): their values are written
 * in the campaign's currency. Anything else ("points", "months free") is a count of that unit.
 */
const MONEY_TYPES = new Set(['', 'cash', 'money', 'credit', 'store credit', 'account credit', 'discount', 'voucher', 'gift card', 'coupon']);

export const isMoney = (rewardType: string) => MONEY_TYPES.has(rewardType.trim().toLowerCase());

export function presentWidgetSettings(c: CampaignRow): WidgetSettings {
  const money = isMoney(c.reward_type);
  return {
    campaignId: c.id,
    ...(money ? { rewardCurrency: c.reward_currency } : { rewardUnit: c.reward_type }),
    shareMessages: readShareMessages(c),
  };
}

export async function widgetSettings(ctx: Ctx, campaignId: string): Promise<WidgetSettings> {
  return presentWidgetSettings(await findCampaign(ctx, campaignId));
}
