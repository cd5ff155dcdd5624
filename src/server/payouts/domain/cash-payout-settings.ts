/** The campaign field `cashPayouts` (docs/payouts.md): how it is stored, read and checked. */
import type { CashPayoutSettings } from '../../../api/cash-payout-settings.js';
import { isMoney } from '../../../api/reward-kind.js';
import { invalid } from '../../kernel/errors.js';
import type { CampaignRow } from '../../store/store.js';

export function cashPayoutsOf(c: Pick<CampaignRow, 'cash_payouts'>): CashPayoutSettings | null {
  return c.cash_payouts === null ? null : (JSON.parse(c.cash_payouts) as CashPayoutSettings);
}

export function writeCashPayouts(settings: CashPayoutSettings | null): string | null {
  return settings === null ? null : JSON.stringify({ methods: settings.methods, minimum: settings.minimum, schedule: settings.schedule, approval: settings.approval });
}

/** Cash is money: a campaign whose rewards are points or months cannot pay them out in cash. */
export function assertCanPayCash(patch: Partial<CampaignRow>, current?: CampaignRow): void {
  const cash = patch.cash_payouts !== undefined ? patch.cash_payouts : (current?.cash_payouts ?? null);
  const type = patch.reward_type ?? current?.reward_type ?? 'credit';
  if (cash !== null && !isMoney(type)) {
    const field = patch.cash_payouts !== undefined ? 'cashPayouts' : 'rewardType';
    throw invalid(field, `cashPayouts pays rewards in money: the campaign's rewardType is ${type}, not an amount of rewardCurrency`);
  }
}
