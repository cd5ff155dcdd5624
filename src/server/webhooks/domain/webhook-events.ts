/**
 * The webhook outbox: the events each change emits, with one delivery per subscribed endpoint, written
 * in the change's own transaction (the dispatcher in ../webhooks sends them).
 */
import type { ParticipantErasedEvent, RewardCodesLowEvent, RewardCodesLowData, WebhookEvent, WebhookEventData, WebhookEventType } from '../../../api/schemas.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import type { OutboxEvent } from '../store/webhook-store.js';
import { newSortableId } from '../../kernel/ids.js';
import { iso } from '../../kernel/time.js';

const units = (cents: number) => cents / 100;

/** `data` of every event: the participant as it stands after the change, in the interface's names. */
export function eventData(p: ParticipantRow, campaign: CampaignRow): WebhookEventData {
  const referralBalance = p.referral_reward - p.referral_reward_redeemed;
  const refereeBalance = p.referee_reward - p.referee_reward_redeemed;
  return {
    participantId: p.id,
    firstName: p.first_name ?? '',
    lastName: p.last_name ?? '',
    email: p.email,
    code: p.code,
    campaignId: p.campaign_id,
    referredByCode: p.referred_by_code,
    referralReward: p.referral_reward,
    referralRewardBalance: referralBalance,
    referralRewardRedeemed: p.referral_reward_redeemed,
    refereeReward: p.referee_reward,
    refereeRewardBalance: refereeBalance,
    refereeRewardRedeemed: p.referee_reward_redeemed,
    refereeActionCompleted: p.reward_event_completed === 1,
    refereeActionCompletedLabel: p.reward_event_completed === 1 ? 'Qualified' : null,
    rewardType: campaign.reward_type || null,
    rewardCurrency: campaign.reward_currency,
    createdOn: iso(p.created_on),
    updatedOn: iso(p.updated_on),
    approval: p.approval === 1,
    totalReferred: p.total_referrals,
    totalCompletedReferred: p.total_completed_referred,
    amountPaid: units(p.amount_paid_cents),
    paymentCount: p.payment_count,
    revenueGenerated: units(p.revenue_generated_cents),
    rewardDue: referralBalance + refereeBalance,
    rewardPaid: p.referral_reward_redeemed + p.referee_reward_redeemed,
    score: p.fraud_score,
    impressionCount: p.impression_count,
  };
}

/**
 * An event about to be written: its row but for the payload, which is made from the participant as the
 * change leaves it (with `extra`: what the change adds, e.g. a reward code), and one delivery per endpoint of the campaign's account that selected its type.
 * Undefined when no endpoint selected it: such an event is not written at all, as nothing would ever
 * send it or show it (the dashboard and the API show deliveries, each with its event). A sign-up of a
 * program without webhooks so writes no outbox row (about 1 KB each, kept for good) and builds no payload.
 */
export async function prepareEvent(
  tx: Store,
  type: WebhookEventType,
  campaign: CampaignRow,
  now: number,
  extra: Partial<WebhookEventData> = {},
): Promise<OutboxEvent | undefined> {
  const outbox = await subscribed(tx, type, campaign, now);
  if (!outbox) return undefined;
  return {
    ...outbox,
    payload: (participant) => JSON.stringify({ eventType: type, data: { ...eventData(participant, campaign), ...extra }, createdAt: now, updatedAt: now, ...liveMode(campaign) } satisfies WebhookEvent),
  };
}

/** The test marker beside an event body's fields: `livemode: false` on a test campaign's events, nothing on a live one's. */
const liveMode = (campaign: CampaignRow): { livemode?: false } => (campaign.test === 1 ? { livemode: false } : {});

/** An event's row and deliveries, if an endpoint of the campaign's account selected its type. */
async function subscribed(tx: Store, type: WebhookEventType, campaign: CampaignRow, now: number): Promise<Omit<OutboxEvent, 'payload'> | undefined> {
  // A test campaign's events go to test endpoints only, a live one's to live endpoints only (../../kernel/test-mode.ts).
  const endpoints = (await tx.webhooks.listEndpoints(campaign.account_id)).filter((e) =>
    e.test === campaign.test && (JSON.parse(e.event_types) as string[]).includes(type),
  );
  if (endpoints.length === 0) return undefined;
  return {
    row: { id: newSortableId('msg', 16, now), account_id: campaign.account_id, campaign_id: campaign.id, event_type: type, created_on: now },
    deliveries: endpoints.map((e) => ({ id: newSortableId('dlv', 12, now), endpointId: e.id })),
  };
}

/** Writes an event whose body is not a participant's (see emit); true when a delivery was queued. */
async function emitBody(tx: Store, campaign: CampaignRow, now: number, body: RewardCodesLowEvent | ParticipantErasedEvent): Promise<boolean> {
  const outbox = await subscribed(tx, body.eventType, campaign, now);
  if (!outbox) return false;
  await tx.webhooks.insertEvent({ ...outbox.row, payload: JSON.stringify({ ...body, ...liveMode(campaign) }) }, outbox.deliveries);
  return true;
}

/** Writes reward_codes_low about a campaign's pool to the outbox (see emit); true when a delivery was queued. */
export function emitPoolLow(tx: Store, campaign: CampaignRow, data: RewardCodesLowData, now: number): Promise<boolean> {
  return emitBody(tx, campaign, now, { eventType: 'reward_codes_low', data, createdAt: now, updatedAt: now });
}

/** Writes participant_erased to the outbox: the participant's id, campaign and when, nothing personal. */
export function emitErased(tx: Store, campaign: CampaignRow, participantId: number, now: number): Promise<boolean> {
  return emitBody(tx, campaign, now, { eventType: 'participant_erased', data: { participantId, campaignId: campaign.id, erasedAt: iso(now) }, createdAt: now, updatedAt: now });
}

/**
 * Writes an event about a participant to the outbox, with its deliveries, if an endpoint selected its
 * type (see prepareEvent). `tx` must be the transaction of the change itself, so the event exists if and
 * only if the change does. `who` is the participant's row as the change left it, or its id to read it.
 * True when a delivery was queued (a dispatcher has something to send).
 */
export async function emit(
  tx: Store,
  type: WebhookEventType,
  who: ParticipantRow | number,
  campaign: CampaignRow,
  now: number,
  extra: Partial<WebhookEventData> = {},
): Promise<boolean> {
  const event = await prepareEvent(tx, type, campaign, now, extra);
  if (!event) return false;
  const participant = typeof who === 'number' ? await tx.findParticipant(who) : who;
  if (!participant) throw new Error(`emit: participant ${String(who)} is gone`);
  await tx.webhooks.insertEvent({ ...event.row, payload: event.payload(participant) }, event.deliveries);
  return true;
}
