/**
 * The demo campaigns a fresh database gets, so `npm start` shows a working widget at once: a referral
 * program with a leaderboard (/demo/) and a pre-launch waitlist (/demo/waitlist.html).
 */
import * as campaigns from './campaigns/domain/campaigns.js';
import { DEFAULT_ACCOUNT, type Ctx } from './kernel/context.js';
import { createApiKey } from './accounts/domain/keys.js';

export const DEMO_CAMPAIGN_ID = 'demo';
export const DEMO_WAITLIST_ID = 'demo-waitlist';

/** Seeds when no campaign exists; returns the new secret key when it did, else undefined. */
export async function seedIfEmpty(ctx: Ctx, publicUrl: string): Promise<string | undefined> {
  if ((await ctx.store.campaignOrigins()).length > 0) return undefined;
  try {
    await seedCampaign(ctx, publicUrl);
  } catch (err) {
    // Another process starting on the same new database seeded it first: nothing left to do.
    if (await ctx.store.findCampaign(DEMO_CAMPAIGN_ID)) return undefined;
    throw err;
  }
  return (await createApiKey(ctx, DEFAULT_ACCOUNT, 'demo (created at first start)')).key;
}

async function seedCampaign(ctx: Ctx, publicUrl: string): Promise<void> {
  await campaigns.createCampaign(
    ctx,
    DEFAULT_ACCOUNT,
    {
      campaignName: 'Acme Notes launch',
      hostURL: `${publicUrl}/demo/`,
      referrerRewardValue: 10,
      refereeRewardValue: 5,
      rewardType: 'credit',
      rewardCurrency: 'USD',
      rewardHeader: 'Give $5, get $10',
      rewardDescription: 'Friends you invite get $5 of credit when they start a plan, and you get $10 for each of them.',
      shareHeader: 'Share your link',
      shareDescription: 'Send it to a friend, post it, or let them scan the code.',
      // The demo page shows the board (show-leaderboard): the top referrers since the launch.
      leaderboard: { period: 'all', size: 5 },
    },
    DEMO_CAMPAIGN_ID,
  );
  await campaigns.createCampaign(
    ctx,
    DEFAULT_ACCOUNT,
    {
      campaignName: 'Acme Notes for iPhone',
      hostURL: `${publicUrl}/demo/waitlist.html`,
      rewardHeader: 'Skip the line',
      rewardDescription: 'Each friend who joins the waitlist with your link moves you 5 places closer to the front.',
      shareHeader: 'Move up the waitlist',
      shareDescription: 'Send your link to friends who take notes on the go.',
      // Before the launch, a waitlist; after it, turning it off makes this a referral campaign like the other.
      waitlist: { spotsPerReferral: 5 },
    },
    DEMO_WAITLIST_ID,
  );
}
