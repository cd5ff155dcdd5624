/** Rows to wire shapes: the one place where columns become the interface's field names. */
import { cashPayoutsOf } from '../../payouts/domain/cash-payout-settings.js';
import { refereeDiscountOf } from '../../promotions/domain/referee-discount.js';
import { configuredSources } from '../../billing/domain/payment-secrets.js';
import { presentFraudControls } from '../../fraud/domain/fraud-settings.js';
import type { Campaign, CampaignSettings, Participant, RewardEntry } from '../../../api/schemas.js';
import type { AnsweredParticipant } from '../store/answer-reads.js';
import type { CampaignRow, ListedRewardEntry, ParticipantRow } from '../../store/store.js';
import { effectiveStatus } from '../../campaigns/domain/campaigns.js';
import type { PageResult } from '../../kernel/paging.js';
import { leaderboardOf } from '../../engagement/domain/leaderboard-settings.js';
import { waitlistOf } from '../../engagement/domain/waitlist-settings.js';
import { presentRules } from '../../rewards/domain/reward-rules.js';
import { readShareMessages } from '../../campaigns/domain/share-messages.js';
import { iso } from '../../kernel/time.js';
import { readWidgetStyle } from '../../campaigns/domain/widget-style.js';

/** A domain answer about one participant: the whole row, or only what an answer shows (AnsweredParticipant). */
export interface ParticipantView<P extends AnsweredParticipant = ParticipantRow> {
  participant: P;
  campaign: CampaignRow;
}

/**
 * Who is reading, which decides the fields they get:
 * - `owner`: the product's backend or the campaign owner (secret key): everything;
 * - `self`: the participant, proven (./proof.ts): everything but fraudScore, which is the owner's alone;
 * - `public`: anyone else: only what the participant shares anyway (their code and link).
 */
export type Visibility = 'owner' | 'self' | 'public';

/** A campaign's share link split around the referral code: the text before it and after it. */
type LinkParts = readonly [string, string];
const CODE_SLOT = 'REFKIT-CODE-SLOT';

/** Per campaign row (rows are cached, so this lives as long as the campaign is unchanged). */
const linkParts = new WeakMap<CampaignRow, LinkParts>();

/** hostURL with `id` and `referralCode` set. */
export function shareLink(campaign: CampaignRow, code: string): string {
  // hostURL is parsed once per campaign, not once per participant (a page of 20 is 20 links): the link
  // is built with the code in a slot, split there, and each code is put between the two halves.
  let parts = linkParts.get(campaign);
  if (!parts) {
    const url = new URL(campaign.host_url);
    url.searchParams.set('id', campaign.id);
    url.searchParams.set('referralCode', CODE_SLOT);
    const [before = '', after = ''] = url.href.split(CODE_SLOT);
    linkParts.set(campaign, (parts = [before, after]));
  }
  return parts[0] + encodeURIComponent(code) + parts[1];
}

export function presentParticipant(p: AnsweredParticipant, campaign: CampaignRow, visibility: Visibility = 'owner'): Participant {
  const shared: Participant = { email: p.email, referralCode: p.code, campaignId: p.campaign_id, shareLink: shareLink(campaign, p.code) };
  if (visibility === 'public') return shared;
  // Assigned field by field rather than spread: this runs for every row of every page.
  if (p.first_name !== null) shared.firstName = p.first_name;
  if (p.last_name !== null) shared.lastName = p.last_name;
  if (p.referred_by_code !== null) shared.referredByCode = p.referred_by_code;
  shared.createdOn = iso(p.created_on);
  shared.totalReferrals = p.total_referrals;
  shared.referralReward = p.referral_reward;
  shared.referralRewardRedeemed = p.referral_reward_redeemed;
  shared.referralRewardBalance = p.referral_reward - p.referral_reward_redeemed;
  shared.refereeReward = p.referee_reward;
  shared.refereeRewardRedeemed = p.referee_reward_redeemed;
  shared.refereeRewardBalance = p.referee_reward - p.referee_reward_redeemed;
  shared.rewardEventCompleted = p.reward_event_completed === 1;
  if (visibility === 'owner') shared.fraudScore = p.fraud_score;
  return shared;
}

/** A domain answer about one participant, as the wire Participant for a reader. */
export const presentView = (v: ParticipantView<AnsweredParticipant>, visibility: Visibility = 'owner') => presentParticipant(v.participant, v.campaign, visibility);

/** A page of one campaign's participants, as the owner reads them. */
export const presentPage = (page: PageResult<AnsweredParticipant> & { campaign: CampaignRow }) => page.rows.map((p) => presentParticipant(p, page.campaign));

/** A campaign as its owner edits it: the wire Campaign and the settings getCampaign does not show. */
export function presentCampaignSettings(c: CampaignRow, counts: { participants: number; reviewQueue: number }, now: number): CampaignSettings {
  return {
    ...presentCampaign(c, counts.participants, now),
    reviewQueue: counts.reviewQueue,
    rewardCurrency: c.reward_currency,
    allowedOrigins: c.allowed_origins === null ? null : (JSON.parse(c.allowed_origins) as string[]),
    requireEmailConfirmation: c.require_email_confirmation === 1,
    shareMessages: readShareMessages(c),
    widgetStyle: readWidgetStyle(c),
    rewardCodesLowThreshold: c.reward_codes_low_threshold,
    leaderboard: leaderboardOf(c),
    waitlist: waitlistOf(c),
    timeZone: c.time_zone,
    test: c.test === 1,
    ...presentRules(c),
    stripeWebhookConfigured: c.stripe_webhook_secret !== null,
    stripeRewardKeyConfigured: c.stripe_reward_key !== null,
    stripeRewardMode: c.stripe_reward_mode,
    cashPayouts: cashPayoutsOf(c),
    refereeDiscount: refereeDiscountOf(c),
    promotionCodePrefix: c.promotion_code_prefix,
    paymentSourcesConfigured: configuredSources(c),
    ...presentFraudControls(c),
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

export function presentRewardEntry(e: ListedRewardEntry): RewardEntry {
  return {
    id: e.id,
    kind: e.kind,
    rewardKind: e.reward_kind,
    amount: e.amount,
    status: e.status,
    availableOn: iso(e.available_on),
    label: e.label,
    ...(e.referee_email !== null && { refereeEmail: e.referee_email }),
    ...(e.payment_id !== null && { paymentId: e.payment_id }),
    ...(e.capped > 0 && { capped: e.capped }),
    ...(e.code !== null && { code: e.code }),
    ...(e.code === null && e.code_kind !== null && { codeWaiting: true as const }),
    createdOn: iso(e.created_on),
  };
}
