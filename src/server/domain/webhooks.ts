/**
 * Webhook rules: endpoints and what they subscribe to, the events each change emits (written to the
 * outbox in the change's own transaction), and the delivery log admins read and replay.
 */
import { randomBytes } from 'node:crypto';
import type {
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  WebhookEventData,
  WebhookEventType,
} from '../../api/schemas.js';
import type { CampaignRow, ParticipantRow, Store } from '../store/store.js';
import type { EndpointRow, OutboxEvent } from '../store/webhook-store.js';
import { newId } from './codes.js';
import type { Actor, Ctx } from './context.js';
import { AppError } from './errors.js';
import { assertWebhookTarget } from '../webhooks/target.js';
import { iso } from './time.js';

const units = (cents: number) => cents / 100;

function presentEndpoint(row: EndpointRow): WebhookEndpoint {
  return { id: row.id, url: row.url, eventTypes: JSON.parse(row.event_types) as WebhookEventType[], createdOn: iso(row.created_on) };
}

export async function createEndpoint(
  ctx: Ctx,
  actor: Actor,
  input: CreateWebhookEndpointBody,
  allowPrivate: boolean,
): Promise<WebhookEndpoint & { secret: string }> {
  await assertWebhookTarget(input.url, allowPrivate);
  const row: EndpointRow = {
    id: newId('whe'),
    account_id: actor.accountId,
    url: new URL(input.url).href,
    event_types: JSON.stringify(input.eventTypes),
    // The Standard Webhooks secret format: whsec_ and base64 of 24 to 64 random bytes.
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    created_on: ctx.now(),
    deleted_on: null,
  };
  await ctx.store.webhooks.insertEndpoint(row);
  return { ...presentEndpoint(row), secret: row.secret };
}

export async function listEndpoints(ctx: Ctx, actor: Actor): Promise<WebhookEndpoint[]> {
  return (await ctx.store.webhooks.listEndpoints(actor.accountId)).map(presentEndpoint);
}

export async function deleteEndpoint(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if (!(await ctx.store.transaction((tx) => tx.webhooks.deleteEndpoint(id, actor.accountId, ctx.now())))) {
    throw new AppError(404, 'webhook_endpoint_not_found', 'No webhook endpoint of this account has this id', 'id');
  }
}

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
 * change leaves it, and one delivery per endpoint of the campaign's account that selected its type.
 */
export async function prepareEvent(tx: Store, type: WebhookEventType, campaign: CampaignRow, now: number): Promise<OutboxEvent> {
  const endpoints = (await tx.webhooks.listEndpoints(campaign.account_id)).filter((e) =>
    (JSON.parse(e.event_types) as string[]).includes(type),
  );
  return {
    row: { id: newId('msg', 20), account_id: campaign.account_id, campaign_id: campaign.id, event_type: type, created_on: now },
    payload: (participant) => JSON.stringify({ eventType: type, data: eventData(participant, campaign), createdAt: now, updatedAt: now } satisfies WebhookEvent),
    deliveries: endpoints.map((e) => ({ id: newId('dlv', 16), endpointId: e.id })),
  };
}

/**
 * Writes an event about a participant to the outbox, with its deliveries (see prepareEvent). `tx` must
 * be the transaction of the change itself, so the event exists if and only if the change does. `who` is
 * the participant's row as the change left it, or its id to read it. True when a delivery was queued (a
 * dispatcher has something to send).
 */
export async function emit(tx: Store, type: WebhookEventType, who: ParticipantRow | number, campaign: CampaignRow, now: number): Promise<boolean> {
  const participant = typeof who === 'number' ? await tx.findParticipant(who) : who;
  if (!participant) throw new Error(`emit: participant ${String(who)} is gone`);
  const event = await prepareEvent(tx, type, campaign, now);
  await tx.webhooks.insertEvent({ ...event.row, payload: event.payload(participant) }, event.deliveries);
  return event.deliveries.length > 0;
}

export async function listDeliveries(ctx: Ctx, actor: Actor, q: ListWebhookDeliveriesQuery): Promise<WebhookDelivery[]> {
  const rows = await ctx.store.webhooks.listDeliveries({ accountId: actor.accountId, ...q, limit: q.limit ?? 50 });
  const attempts = await ctx.store.webhooks.attemptsOf(rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    eventType: r.event_type as WebhookEventType,
    status: r.status,
    attemptCount: r.attempt_count,
    nextAttemptOn: r.status === 'pending' && r.next_attempt_on !== null ? iso(r.next_attempt_on) : null,
    createdOn: iso(r.created_on),
    attempts: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({ attemptedOn: iso(a.attempted_on), statusCode: a.status_code, error: a.error, durationMs: a.duration_ms })),
  }));
}

export async function redeliver(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  if (!(await ctx.store.webhooks.redeliver(id, actor.accountId, ctx.now()))) {
    throw new AppError(404, 'delivery_not_found', 'No delivery of this account to a current endpoint has this id', 'id');
  }
  ctx.onEventsCommitted?.();
}
