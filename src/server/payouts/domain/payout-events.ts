/**
 * What the payout providers tell us (../routes/payout-receivers.ts), per Refkit account:
 *
 * - PayPal's webhooks: verified by PayPal itself (verify-webhook-signature, with the webhook id of the
 *   live app, else the sandbox's: one receiver serves both). A payout item's event ends its payout
 *   (./paypal-payouts.ts settleItem: paid, failed, returned, unclaimed); a batch's event makes its sent
 *   payouts due for a poll now. An event for no payout of the account's campaigns changes nothing.
 * - Stripe's Connect webhooks: verified with the Connect endpoint's signing secret (the live keys', else
 *   the test keys'). `account.updated` keeps whether the account can be paid (payouts_enabled), which
 *   payout runs require of a stripe_connect participant.
 *
 * Applying an event twice changes nothing the second time: every end of a payout is conditional on its
 * status, and the account's state is set, not counted.
 */
import type Stripe from 'stripe';
import type { Ctx } from '../../kernel/context.js';
import { inCampaignTime, offsetOf } from '../../kernel/campaign-time.js';
import { AppError } from '../../kernel/errors.js';
import { paypalCredentials, stripeConnectCredentials } from './payout-providers.js';
import { settleItem } from './paypal-payouts.js';
import { PayPalApi, PayPalError, paypalBaseUrl } from './paypal-api.js';
import { record, text } from './paypal-wire.js';
import { accountState, verifyConnectEvent } from './stripe-connect-api.js';

export interface Received {
  received: true;
  outcome: 'applied' | 'ignored';
  reason?: string;
}

const apis = new Map<string, PayPalApi>();
function paypalApi(ctx: Ctx, live: boolean): PayPalApi {
  const url = paypalBaseUrl(!live, ctx.payouts?.paypalApiUrl);
  let api = apis.get(url);
  if (!api) apis.set(url, (api = new PayPalApi({ baseUrl: url, timeoutMs: 20_000 })));
  return api;
}

const badSignature = (message: string) => new AppError(400, 'invalid_signature', message);
const ignored = (reason: string): Received => ({ received: true, outcome: 'ignored', reason });

export async function receivePayPalEvent(ctx: Ctx, accountId: number, raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<Received> {
  const body = raw.toString('utf8');
  let event: Record<string, unknown>;
  try {
    event = record(JSON.parse(body));
  } catch {
    throw badSignature('The body is not a PayPal event (JSON)');
  }
  let verified = false;
  let configured = false;
  for (const live of [true, false]) {
    const creds = await paypalCredentials(ctx, accountId, live);
    if (!creds?.webhookId) continue;
    configured = true;
    try {
      verified = await paypalApi(ctx, live).verifyWebhook(creds, headers, body);
    } catch (err) {
      if (err instanceof PayPalError && err.transient) throw new AppError(503, 'unavailable', 'PayPal could not be asked to verify this event just now; PayPal sends it again', undefined, undefined, err);
      throw badSignature(`PayPal refused to verify this event: ${(err as Error).message}`);
    }
    if (verified) break;
  }
  if (!configured) throw badSignature("This account has no PayPal webhook id: set paypal.webhookId (or paypalSandbox.webhookId) in the account settings to the id PayPal gave this receiver's webhook");
  if (!verified) throw badSignature('PayPal did not verify this event for the webhook ids of this account');
  const type = text(event.event_type) ?? '';
  const resource = record(event.resource);
  if (type.startsWith('PAYMENT.PAYOUTS-ITEM.')) return itemEvent(ctx, accountId, resource);
  if (type.startsWith('PAYMENT.PAYOUTSBATCH.')) {
    const batchId = text(record(resource.batch_header).payout_batch_id);
    if (!batchId) return ignored('No payout_batch_id');
    const n = await ctx.store.cashPayouts.pollNow(accountId, batchId, ctx.now());
    return n > 0 ? { received: true, outcome: 'applied' } : ignored('No sent payout of this account is in this batch');
  }
  return ignored(`Refkit does not act on ${type || 'events without an event_type'}`);
}

async function itemEvent(ctx: Ctx, accountId: number, resource: Record<string, unknown>): Promise<Received> {
  const item = record(resource.payout_item);
  const key = text(item.sender_item_id);
  const status = text(resource.transaction_status);
  const itemId = text(resource.payout_item_id);
  if (!key || !status || !itemId) return ignored('No sender_item_id, transaction_status or payout_item_id');
  const row = await ctx.store.cashPayouts.findByProvider({ idempotencyKey: key });
  const campaign = row && (await ctx.store.findCampaign(row.campaign_id));
  if (!row || !campaign || campaign.account_id !== accountId) return ignored('No payout of this account has this sender_item_id');
  const error = text(record(resource.errors).message);
  const offset = await offsetOf(ctx, campaign);
  const ended = await inCampaignTime(offset, () => settleItem(ctx, row, status, itemId, error, false));
  return ended ? { received: true, outcome: 'applied' } : ignored(`The payout is ${row.status}; ${status} changes nothing`);
}

export async function receiveStripeConnectEvent(ctx: Ctx, accountId: number, raw: Buffer, signature: string | undefined): Promise<Received> {
  let event: Stripe.Event | undefined;
  let configured = false;
  let lastError = '';
  for (const live of [true, false]) {
    const creds = await stripeConnectCredentials(ctx, accountId, live);
    if (!creds?.webhookSecret) continue;
    configured = true;
    try {
      event = verifyConnectEvent(raw, signature, creds.webhookSecret);
      break;
    } catch (err) {
      lastError = (err as Error).message;
    }
  }
  if (!configured) throw badSignature('This account has no Stripe Connect webhook secret: set stripe.connectWebhookSecret (or stripeTest.connectWebhookSecret) in the account settings');
  if (!event) throw badSignature(`The Stripe-Signature header does not verify with this account's Connect webhook secrets: ${lastError}`);
  if (event.type !== 'account.updated') return ignored(`Refkit does not act on ${event.type}`);
  const state = accountState(event.data.object as Stripe.Account);
  const n = await ctx.store.payoutProfiles.setStripePayoutsEnabled(state.id, state.payoutsEnabled && state.transfersActive, ctx.now(), accountId);
  return n > 0 ? { received: true, outcome: 'applied' } : ignored('No participant of this account has this Stripe account');
}
