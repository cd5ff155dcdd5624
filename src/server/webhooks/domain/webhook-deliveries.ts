/** The webhook delivery log an account reads (each delivery with its attempts), and redelivery. */
import type { ListWebhookDeliveriesQuery, ParticipantErasedEvent, RewardCodesLowEvent, WebhookDelivery, WebhookEvent, WebhookEventType } from '../../../api/schemas.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { listedMode } from '../../kernel/test-mode.js';
import { iso } from '../../kernel/time.js';

/** A pool's event is about no participant, and an erasure's names none (its participant has no address left). */
const participantOf = (event: WebhookEvent | RewardCodesLowEvent | ParticipantErasedEvent) =>
  event.eventType === 'reward_codes_low' || event.eventType === 'participant_erased' ? {} : { participantEmail: event.data.email };

/** A mode as the store filters by it. */
const modeFlag = (test: boolean | undefined): 0 | 1 | undefined => (test === undefined ? undefined : test ? 1 : 0);

/** The account's deliveries, newest first: a key's to endpoints of its mode only (../../kernel/test-mode.ts). */
export async function listDeliveries(ctx: Ctx, actor: Actor, { mode, ...q }: ListWebhookDeliveriesQuery): Promise<WebhookDelivery[]> {
  const test = modeFlag(listedMode(actor, mode));
  const rows = await ctx.store.webhooks.listDeliveries({ accountId: actor.accountId, ...q, ...(test !== undefined && { test }), limit: q.limit ?? 50 });
  const attempts = await ctx.store.webhooks.attemptsOf(rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    eventType: r.event_type as WebhookEventType,
    campaignId: r.campaign_id,
    // Who it is about, from the body that was sent (frozen when the event happened); a pool's event is about none.
    ...participantOf(JSON.parse(r.payload) as WebhookEvent | RewardCodesLowEvent | ParticipantErasedEvent),
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
  if (!(await ctx.store.webhooks.redeliver(id, actor.accountId, ctx.now(), modeFlag(actor.test)))) {
    throw new AppError(404, 'delivery_not_found', 'No delivery of this account to a current endpoint has this id', 'id');
  }
  ctx.onEventsCommitted?.();
}
