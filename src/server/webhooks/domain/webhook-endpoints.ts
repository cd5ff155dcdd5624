/** Webhook endpoints an account administers: where events go and which types each one receives. */
import { campaignMode, seesRow } from '../../kernel/test-mode.js';
import { randomBytes } from 'node:crypto';
import type { CreateWebhookEndpointBody, WebhookEndpoint, WebhookEventType } from '../../../api/schemas.js';
import type { EndpointRow } from '../store/webhook-store.js';
import { assertWebhookTarget } from './webhook-targets.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { iso } from '../../kernel/time.js';

function presentEndpoint(row: EndpointRow): WebhookEndpoint {
  return { id: row.id, url: row.url, eventTypes: JSON.parse(row.event_types) as WebhookEventType[], test: row.test === 1, createdOn: iso(row.created_on) };
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
    test: campaignMode(actor, input.test) ? 1 : 0,
    created_on: ctx.now(),
    deleted_on: null,
  };
  await ctx.store.webhooks.insertEndpoint(row);
  return { ...presentEndpoint(row), secret: row.secret };
}

/** The account's current endpoints: a key's of its own mode only (a test key never sees where live events go). */
export async function listEndpoints(ctx: Ctx, actor: Actor): Promise<WebhookEndpoint[]> {
  return (await ctx.store.webhooks.listEndpoints(actor.accountId)).filter((e) => seesRow(actor, e)).map(presentEndpoint);
}

const endpointNotFound = () => new AppError(404, 'webhook_endpoint_not_found', 'No webhook endpoint of this account has this id', 'id');

/** 404 unless the account has this current endpoint and the actor sees its mode: the other mode's is absent to a key. */
async function ownEndpoint(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  const endpoint = (await ctx.store.webhooks.listEndpoints(actor.accountId)).find((e) => e.id === id);
  if (!endpoint || !seesRow(actor, endpoint)) throw endpointNotFound();
}

/** Changes which events an endpoint receives; its URL and signing secret stay (`refkit apply`). */
export async function setEndpointEventTypes(ctx: Ctx, actor: Actor, id: string, eventTypes: WebhookEventType[]): Promise<void> {
  await ownEndpoint(ctx, actor, id);
  if (!(await ctx.store.webhooks.setEventTypes(id, actor.accountId, JSON.stringify(eventTypes)))) throw endpointNotFound();
}

export async function deleteEndpoint(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  await ownEndpoint(ctx, actor, id);
  if (!(await ctx.store.transaction((tx) => tx.webhooks.deleteEndpoint(id, actor.accountId, ctx.now())))) throw endpointNotFound();
}
