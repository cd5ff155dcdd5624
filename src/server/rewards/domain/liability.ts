/**
 * What a program owes its participants, from the ledger: credits waiting out their hold (pending),
 * balances (available: earned and not redeemed), what was redeemed, and what participants owe back
 * (reversals that found no balance to take). And the whole ledger of a campaign as CSV.
 */
import { stringify } from 'csv-stringify';
import type { LiabilityAmounts, RewardLiability } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { spreadsheetSafe } from '../../kernel/csv-cells.js';
import { presentRewardEntry } from '../../referrals/domain/present.js';

const zero = (): LiabilityAmounts => ({ pending: 0, available: 0, redeemed: 0, owed: 0 });

export async function rewardLiability(ctx: Ctx, actor: Actor, campaignId: string): Promise<RewardLiability> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const out: RewardLiability = { referral: zero(), referee: zero(), total: zero() };
  for (const r of await ctx.store.rewardEntries.campaignSums(campaign.id)) {
    const total = Number(r.total);
    const side = out[r.reward_kind];
    if (r.status === 'pending') side.pending += total;
    if (r.status !== 'available') continue;
    // The balance is the sum of every available entry; redemptions are negative.
    side.available += total;
    if (r.kind === 'redemption') side.redeemed -= total;
  }
  const owed = await ctx.store.rewardEntries.campaignOwed(campaign.id);
  out.referral.owed = owed.referral;
  out.referee.owed = owed.referee;
  for (const key of Object.keys(out.total) as (keyof LiabilityAmounts)[]) out.total[key] = out.referral[key] + out.referee[key];
  return out;
}

export const LEDGER_COLUMNS = ['createdOn', 'email', 'kind', 'rewardKind', 'amount', 'status', 'availableOn', 'label', 'refereeEmail', 'paymentId', 'capped', 'code'] as const;
const BATCH = 1000;

/** Every entry of the campaign's ledger, oldest first, as a CSV stream (formulas neutralised). */
export async function exportRewardEntries(ctx: Ctx, actor: Actor, campaignId: string): Promise<{ campaign: CampaignRow; csv: NodeJS.ReadableStream }> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const csv = stringify({ header: true, columns: [...LEDGER_COLUMNS], cast: { string: spreadsheetSafe } });
  void (async () => {
    let after = 0;
    for (;;) {
      const rows = await ctx.store.rewardEntries.campaignPage(campaign.id, after, BATCH);
      for (const e of rows) {
        // The entry as listRewardEntries shows it, with whose it is; capped is 0 rather than left out.
        const record = { ...presentRewardEntry(e), email: e.email, capped: e.capped };
        if (!csv.write(record)) await new Promise((resolve) => csv.once('drain', resolve));
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
    csv.end();
  })().catch((err: unknown) => csv.destroy(err instanceof Error ? err : new Error(String(err))));
  return { campaign, csv };
}
