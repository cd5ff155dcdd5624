/**
 * A campaign whose ledger has every kind of row the dashboard shows: credits waiting out a hold,
 * commissions on payments, credits a ceiling capped, and the reversals of a refund. Made through the real
 * admin API, as an owner's backend would.
 */
import type { RefkitClient, RewardEntry } from '../../../src/api/client.js';

export interface LedgerCampaign {
  campaignId: string;
  /** The referrer: more entries than one page of the ledger holds. */
  referrer: string;
  /** The referee whose payment was refunded. */
  refunded: string;
  friends: string[];
}

/** `friends` referred sign-ups that each pay 100.00; the first one's payment is then refunded. */
export async function ledgerCampaign(admin: RefkitClient, friends = 11): Promise<LedgerCampaign> {
  const campaign = await admin.createCampaign({
    campaignName: 'Ledger campaign',
    hostURL: 'https://acme.example/ledger',
    referrerRewardValue: 10,
    refereeRewardValue: 5,
    rewardType: 'credit',
    rewardCurrency: 'EUR',
    referrerRewardPercent: 10,
    holdDays: 30,
    // 11 referrals earn 11 × (10 + 10): the last ones pass the ceiling and are capped.
    maxReferralReward: 150,
  });
  const campaignId = campaign.campaignId!;
  const referrer = 'lea@example.com';
  const { referralCode } = await admin.addParticipant({ id: campaignId, email: referrer });
  const emails = Array.from({ length: friends }, (_, i) => `payer${i}@example.org`);
  for (const email of emails) {
    await admin.addParticipant({ id: campaignId, email, referredByCode: referralCode! });
    await admin.qualifyParticipant({ id: campaignId, email, amountPaid: '100.00' });
  }
  await admin.refundPayment({ id: campaignId, email: emails[0]!, amount: '100.00' });
  return { campaignId, referrer, refunded: emails[0]!, friends: emails };
}

/** Every ledger entry of a participant, newest first, through every page. */
export async function allEntries(admin: RefkitClient, id: string, email: string): Promise<RewardEntry[]> {
  const entries: RewardEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await admin.listRewardEntriesPage(id, email, { pageSize: 100, ...(cursor && { cursor }) });
    entries.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}
