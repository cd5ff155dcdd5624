/** Reward values as the visitor's locale writes them (Intl), in the campaign's currency or unit. */
import type { Campaign, WidgetSettings } from '../api/client.js';
import type { RewardFormat } from '../api/reward-format.js';

export { formatCount, formatReward, type RewardFormat } from '../api/reward-format.js';

/** From the widget settings; without them (an older service), the campaign's reward type as the unit. */
export function rewardFormat(settings: WidgetSettings | undefined, campaign: Campaign | undefined): RewardFormat {
  if (settings?.rewardCurrency) return { currency: settings.rewardCurrency };
  const unit = settings ? settings.rewardUnit : campaign?.rewardType;
  return unit ? { unit } : {};
}

