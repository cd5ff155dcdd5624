/** Rows to wire shapes: the one place where columns become the interface's field names. */
import type { Campaign, CampaignSettings, Participant } from '../../api/schemas.js';
import type { CampaignRow, ParticipantRow } from '../store/store.js';
import { effectiveStatus } from './campaigns.js';
import { readShareMessages } from './share-messages.js';
import { iso } from './time.js';

/** A domain answer about one participant. */
export interface ParticipantView {
  participant: ParticipantRow;
  campaign: CampaignRow;
}

/**
 * Who is reading, which decides the fields they get:
 * - `owner`: the product's backend or the campaign owner (secret key): everything;
 * - `self`: the participant, proven (./proof.ts): everything but fraudScore, which is the owner's alone;
 * - `public`: anyone else: only what the participant shares anyway (their code and link).
 */
export type Visibility = 'owner' | 'self' | 'public';

export function shareLink(campaign: CampaignRow, code: string): string {
  const url = new URL(campaign.host_url);
  url.searchParams.set('id', campaign.id);
  url.searchParams.set('referralCode', code);
  return url.href;
}

export function presentParticipant(p: ParticipantRow, campaign: CampaignRow, visibility: Visibility = 'owner'): Participant {
  const shared: Participant = { email: p.email, referralCode: p.code, campaignId: p.campaign_id, shareLink: shareLink(campaign, p.code) };
  if (visibility === 'public') return shared;
  return {
    ...shared,
    ...(p.first_name !== null && { firstName: p.first_name }),
    ...(p.last_name !== null && { lastName: p.last_name }),
    ...(p.referred_by_code !== null && { referredByCode: p.referred_by_code }),
    createdOn: iso(p.created_on),
    totalReferrals: p.total_referrals,
    referralReward: p.referral_reward,
    referralRewardRedeemed: p.referral_reward_redeemed,
    referralRewardBalance: p.referral_reward - p.referral_reward_redeemed,
    refereeReward: p.referee_reward,
    refereeRewardRedeemed: p.referee_reward_redeemed,
    refereeRewardBalance: p.referee_reward - p.referee_reward_redeemed,
    rewardEventCompleted: p.reward_event_completed === 1,
    ...(visibility === 'owner' && { fraudScore: p.fraud_score }),
  };
}

/** A domain answer about one participant, as the wire Participant for a reader. */
export const presentView = (v: ParticipantView, visibility: Visibility = 'owner') => presentParticipant(v.participant, v.campaign, visibility);

/** A campaign as its owner edits it: the wire Campaign and the settings getCampaign does not show. */
export function presentCampaignSettings(c: CampaignRow, participants: number, now: number): CampaignSettings {
  return {
    ...presentCampaign(c, participants, now),
    rewardCurrency: c.reward_currency,
    allowedOrigins: c.allowed_origins === null ? null : (JSON.parse(c.allowed_origins) as string[]),
    requireEmailConfirmation: c.require_email_confirmation === 1,
    shareMessages: readShareMessages(c),
  };
}

export function presentCampaign(c: CampaignRow, participants: number, now: number): Campaign {
  const status = effectiveStatus(c, now);
  return {
    campaignId: c.id,
    campaignName: c.name,
    status,
    createdOn: iso(c.created_on),
    ...(c.end_on !== null && { end: iso(c.end_on) }),
    hostURL: c.host_url,
    paused: status === 'Pause',
    ended: status === 'End',
    rewardHeader: c.reward_header,
    rewardDescription: c.reward_description,
    shareHeader: c.share_header,
    shareDescription: c.share_description,
    referrerRewardValue: c.referrer_reward_value,
    refereeRewardValue: c.referee_reward_value,
    rewardType: c.reward_type,
    participants,
  };
}
