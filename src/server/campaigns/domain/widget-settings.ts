/**
 * What the widget needs of a campaign beyond the interface's exact Campaign shape: how to write its
 * amounts (a currency, or the reward type's unit when the reward is not money), the messages the
 * friend receives on each channel, the look the owner chose for it, and the reward rules its offer states. Public, like the campaign's
 * texts: nothing here is private.
 */
import { isMoney } from '../../../api/reward-kind.js';
import { widgetLook } from '../../../api/widget-style.js';
import type { WidgetSettings } from '../../../api/widget-schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { findCampaign } from './campaigns.js';
import type { Ctx } from '../../kernel/context.js';
import { leaderboardOf } from '../../engagement/domain/leaderboard-settings.js';
import { waitlistOf } from '../../engagement/domain/waitlist-settings.js';
import { presentRules } from '../../rewards/domain/reward-rules.js';
import { readShareMessages } from './share-messages.js';
import { readWidgetStyle } from './widget-style.js';
import { captchaOf } from '../../fraud/domain/fraud-settings.js';

/** `captchaScriptUrl`: CAPTCHA_SCRIPT_URL, where the widget loads the CAPTCHA's script from instead of the provider's. */
export function presentWidgetSettings(c: CampaignRow, captchaScriptUrl?: string): WidgetSettings {
  const money = isMoney(c.reward_type);
  const leaderboard = leaderboardOf(c);
  const waitlist = waitlistOf(c);
  const captcha = captchaOf(c);
  return {
    campaignId: c.id,
    ...(money ? { rewardCurrency: c.reward_currency } : { rewardUnit: c.reward_type }),
    shareMessages: readShareMessages(c),
    look: widgetLook(readWidgetStyle(c)),
    rules: presentRules(c),
    ...(leaderboard && { leaderboard }),
    ...(waitlist && { waitlist }),
    ...(captcha && { captcha: { ...captcha, ...(captchaScriptUrl && { scriptUrl: captchaScriptUrl }) } }),
  };
}

export async function widgetSettings(ctx: Ctx, campaignId: string): Promise<WidgetSettings> {
  return presentWidgetSettings(await findCampaign(ctx, campaignId), ctx.fraud?.captchaScriptUrl);
}
