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

/**
 * A referrer with `friends` referred sign-ups that each paid 100.00, all but the last while the campaign
 * had no hold (their rewards are available, the last ones over the ceiling capped); the referrer's
 * balance redeemed; the first friend's payment refunded (its commission reversed, owed back for want of
 * a balance); then a hold of 30 days and the last friend's payment (pending).
 */
export async function ledgerCampaign(admin: RefkitClient, friends = 11): Promise<LedgerCampaign> {
  const campaign = await admin.createCampaign({
    campaignName: 'Ledger campaign',
    hostURL: 'https://acme.example/ledger',
    referrerRewardValue: 10,
    refereeRewardValue: 5,
    rewardType: 'credit',
    rewardCurrency: 'EUR',
    referrerRewardPercent: 10,
    maxReferralReward: 190,
  });
  const campaignId = campaign.campaignId!;
  const referrer = 'lea@example.com';
  const { referralCode } = await admin.addParticipant({ id: campaignId, email: referrer });
  const emails = Array.from({ length: friends }, (_, i) => `payer${i}@example.org`);
  const pay = async (email: string) => {
    await admin.addParticipant({ id: campaignId, email, referredByCode: referralCode! });
    await admin.qualifyParticipant({ id: campaignId, email, amountPaid: '100.00' });
  };
  for (const email of emails.slice(0, -1)) await pay(email);
  const { referralRewardBalance } = await admin.getParticipant(campaignId, referrer);
  await admin.redeemReward({ id: campaignId, email: referrer, kind: 'referral', amount: referralRewardBalance! });
  await admin.refundPayment({ id: campaignId, email: emails[0]!, amount: '100.00' });
  await admin.updateCampaign({ id: campaignId, holdDays: 30, maxReferralReward: 1000 });
  await pay(emails.at(-1)!);
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
