/**
 * What a signed-in participant sees of their own in the portal (portal/me): the campaign and what the
 * widget shows with it, their link and code, the friends who joined through it (as getMyReferrals shows
 * them: a first name or a masked email, and a status), their reward ledger, their payouts, where their
 * money goes and whether tax details are on file (masked). Only their own: every read is by the
 * session's participant, and no other participant is named beyond what getMyReferrals shows.
 */
import { MAX_MY_REFERRALS } from '../../../api/widget-schemas.js';
import { promotionCodeField } from '../../promotions/domain/promotion-views.js';
import type { Participant } from '../../../api/schemas.js';
import { MAX_PORTAL_ENTRIES, MAX_PORTAL_PAYOUTS, type PortalLedger, type PortalLedgerEntry, type PortalMe } from '../../../api/portal-schemas.js';
import type { Ctx } from '../../kernel/context.js';
import { iso } from '../../kernel/time.js';
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import { lookupCampaign } from '../../campaigns/domain/campaigns.js';
import { campaignView } from '../../campaigns/domain/campaign-views.js';
import { presentWidgetSettings } from '../../campaigns/domain/widget-settings.js';
import { describeReferral } from '../../referrals/domain/my-referrals.js';
import { presentParticipant } from '../../referrals/domain/present.js';
import { cashPayoutsOf } from '../../payouts/domain/cash-payout-settings.js';
import { payoutMethodView } from '../../payouts/domain/payout-methods.js';
import { participantPayouts } from '../../payouts/domain/payout-runs.js';
import { taxDetailsView } from '../../payouts/domain/tax-details.js';
import { notSignedIn, type PortalSession } from './portal-sessions.js';

/** Pending credits summed for the ledger's total (and to date the held referrals listed). */
const MAX_PENDING_READ = 1000;

/**
 * The session's campaign and participant; 401 when either is gone (an erased participant's sessions
 * prove nothing), or when the session is another campaign's.
 */
export async function sessionSubject(ctx: Ctx, session: PortalSession, campaignId: string): Promise<{ campaign: CampaignRow; participant: ParticipantRow }> {
  if (session.campaignId !== campaignId) throw notSignedIn();
  const campaign = await lookupCampaign(ctx, campaignId);
  const participant = await ctx.store.findParticipant(session.participantId);
  if (!campaign || !participant || participant.campaign_id !== campaign.id) throw notSignedIn();
  return { campaign, participant };
}

type EntryRow = Awaited<ReturnType<Ctx['store']['rewardEntries']['list']>>[number];

function entryState(e: EntryRow): PortalLedgerEntry['state'] {
  if (e.status === 'pending' || e.status === 'cancelled') return e.status;
  if (e.kind === 'reversal') return 'reversed';
  return e.kind === 'redemption' ? 'redeemed' : 'available';
}

/** An entry as the portal shows it: the referee it came from is left out (the friends list names them). */
const presentEntry = (e: EntryRow): PortalLedgerEntry => ({
  id: e.id,
  kind: e.kind,
  rewardKind: e.reward_kind,
  amount: e.amount,
  status: e.status,
  state: entryState(e),
  availableOn: iso(e.available_on),
  createdOn: iso(e.created_on),
  label: e.label,
});

async function ledgerOf(ctx: Ctx, p: ParticipantRow, pending: { amount: number }[]): Promise<PortalLedger> {
  const entries = await ctx.store.rewardEntries.list(p.id, { offset: 0 }, MAX_PORTAL_ENTRIES + 1);
  const reserved = p.referral_reward_reserved + p.referee_reward_reserved;
  const balance = p.referral_reward - p.referral_reward_redeemed + (p.referee_reward - p.referee_reward_redeemed);
  return {
    pending: pending.reduce((sum, e) => sum + e.amount, 0),
    available: Math.max(0, balance - reserved),
    inPayouts: reserved,
    entries: entries.slice(0, MAX_PORTAL_ENTRIES).map(presentEntry),
    more: entries.length > MAX_PORTAL_ENTRIES,
  };
}

/**
 * The share card's balances "left", as the ledger's tiles count them: what an open payout holds is not
 * left to spend (it is shown "in payouts"), though it is the participant's again if the payout fails.
 */
function withoutReserved(view: Participant, p: ParticipantRow): Participant {
  const less = (balance: number | undefined, reserved: number) => (balance === undefined ? undefined : Math.max(0, balance - reserved));
  const referralRewardBalance = less(view.referralRewardBalance, p.referral_reward_reserved);
  const refereeRewardBalance = less(view.refereeRewardBalance, p.referee_reward_reserved);
  return { ...view, ...(referralRewardBalance !== undefined && { referralRewardBalance }), ...(refereeRewardBalance !== undefined && { refereeRewardBalance }) };
}

export async function portalMe(ctx: Ctx, session: PortalSession, campaignId: string): Promise<PortalMe> {
  const { campaign, participant } = await sessionSubject(ctx, session, campaignId);
  const friends = await ctx.store.listParticipants({ campaignId: campaign.id, referredById: participant.id }, { offset: 0 }, MAX_MY_REFERRALS + 1);
  const pending = await ctx.store.rewardEntries.pending(participant.id, MAX_PENDING_READ);
  // When each friend's reward to the participant is due, as the widget's list dates it.
  const heldUntil = new Map<number, number>();
  for (const e of pending) if (e.kind === 'referral' && e.referee_id !== null && !heldUntil.has(e.referee_id)) heldUntil.set(e.referee_id, e.available_on);
  const cash = cashPayoutsOf(campaign);
  return {
    csrfToken: session.csrfToken,
    campaign: await campaignView(ctx, campaign),
    settings: presentWidgetSettings(campaign),
    participant: withoutReserved(presentParticipant(participant, campaign, 'self'), participant),
    referrals: friends.slice(0, MAX_MY_REFERRALS).map((r) => describeReferral(r, heldUntil.get(r.id))),
    moreReferrals: friends.length > MAX_MY_REFERRALS,
    ledger: await ledgerOf(ctx, participant, pending),
    payouts: (await participantPayouts(ctx, participant.id)).slice(0, MAX_PORTAL_PAYOUTS),
    cashPayouts: cash && { methods: cash.methods, minimum: cash.minimum },
    payoutMethod: await payoutMethodView(ctx, participant.id),
    taxDetails: await taxDetailsView(ctx, participant.id),
    ...(await promotionCodeField(ctx.store, campaign, participant)),
  };
}
