/**
 * Cash out by PayPal Payouts (./cash-payout-sender.ts): a batch sent, then each item's end, by polling its
 * batch (and by PayPal's webhooks, ../routes/payout-receivers.ts, through `settleItem`).
 */
import type { Ctx } from '../../kernel/context.js';
import type { CampaignRow } from '../../store/store.js';
import type { CashPayoutRow } from '../store/cash-payout-store.js';
import { credentialsName, paypalCredentials } from './payout-providers.js';
import { markPaid, markReleased, markSent, refuse } from './payout-settlement.js';
import { PayPalApi, PayPalError, paypalBaseUrl, type PayPalCredentials } from './paypal-api.js';
import { paypalMinorUnits } from './paypal-wire.js';
import type { SenderKit } from './sender-kit.js';

/** How PayPal's item statuses end a payout; a status not here (PENDING, ONHOLD, NEW) is asked about again later. */
const ENDS: Record<string, 'paid' | 'failed' | 'returned' | 'unclaimed'> = {
  SUCCESS: 'paid',
  FAILED: 'failed',
  BLOCKED: 'failed',
  DENIED: 'failed',
  REFUNDED: 'failed',
  REVERSED: 'failed',
  CANCELED: 'failed',
  RETURNED: 'returned',
  UNCLAIMED: 'unclaimed',
};

const describe = (err: unknown) =>
  err instanceof PayPalError ? `PayPal ${err.status ? `answered ${err.status} ${err.name}` : 'could not be reached'}: ${err.message}` : String(err);

export class PayPalPayouts {
  readonly #apis = new Map<string, PayPalApi>();

  constructor(
    private readonly ctx: Ctx,
    private readonly kit: SenderKit,
  ) {}

  /** The API of a campaign's mode: PayPal's sandbox for a test campaign (PAYPAL_API_URL replaces both). */
  api(live: boolean): PayPalApi {
    const url = paypalBaseUrl(!live, this.ctx.payouts?.paypalApiUrl);
    let api = this.#apis.get(url);
    if (!api) this.#apis.set(url, (api = new PayPalApi({ baseUrl: url, timeoutMs: this.kit.options.timeoutMs })));
    return api;
  }

  async #credentials(campaign: CampaignRow, rows: readonly CashPayoutRow[]): Promise<PayPalCredentials | undefined> {
    const live = campaign.test === 0;
    const creds = await paypalCredentials(this.ctx, campaign.account_id, live);
    if (!creds) {
      await this.kit.later(rows, `PayPal is not set up for ${live ? 'live' : 'test'} campaigns: set ${credentialsName('paypal', live)} in the account settings`, false);
    }
    return creds;
  }

  /** Sends a batch: every row holds the same batch_key. */
  async send(campaign: CampaignRow, rows: CashPayoutRow[]): Promise<void> {
    const creds = await this.#credentials(campaign, rows);
    if (!creds) return;
    const api = this.api(campaign.test === 0);
    const first = rows[0]!;
    try {
      const batch = await api.createBatch(creds, {
        senderBatchId: first.batch_key ?? first.idempotency_key,
        emailSubject: `${campaign.name}: your referral reward`.slice(0, 255),
        emailMessage: `You have a payout from ${campaign.name}'s referral program. Thank you for sharing!`.slice(0, 1000),
        items: rows.map((r) => ({
          senderItemId: r.idempotency_key,
          receiver: r.destination,
          amountMinor: paypalMinorUnits(Number(r.referral_amount) + Number(r.referee_amount), r.currency),
          currency: r.currency,
          note: `${campaign.name}: referral rewards (payout ${r.id})`.slice(0, 1000),
        })),
      });
      await markSent(this.ctx, rows, batch.batchId, this.ctx.now() + this.kit.options.statusPollMs);
    } catch (err) {
      if (err instanceof PayPalError && err.duplicateBatch && err.existingBatchId) {
        // Sent before (the answer was lost, and PayPal no longer replays the request): that batch is this one.
        await markSent(this.ctx, rows, err.existingBatchId, this.ctx.now());
      } else if (err instanceof PayPalError && !err.transient && !err.duplicateBatch) {
        await refuse(this.ctx, rows, describe(err));
      } else {
        this.kit.log?.warn({ payouts: rows.map((r) => r.id), error: describe(err) }, 'PayPal payout attempt');
        await this.kit.later(rows, describe(err), true);
      }
    }
  }

  /** Asks PayPal how a sent batch's items are, and ends those that ended. */
  async poll(campaign: CampaignRow, rows: CashPayoutRow[]): Promise<void> {
    const creds = await this.#credentials(campaign, rows);
    if (!creds) return;
    const batchId = rows[0]!.provider_batch_id!;
    let batch;
    try {
      batch = await this.api(campaign.test === 0).getBatch(creds, batchId);
    } catch (err) {
      await this.kit.later(rows, describe(err), true);
      return;
    }
    const open: CashPayoutRow[] = [];
    for (const row of rows) {
      const item = batch.items.find((i) => i.senderItemId === row.idempotency_key);
      const ended = item && (await settleItem(this.ctx, row, item.transactionStatus, item.payoutItemId, item.error, true));
      if (!ended) open.push(row);
    }
    const poll = this.kit.options.statusPollMs;
    for (const row of open) await this.ctx.store.cashPayouts.update(row, { next_attempt_on: this.ctx.now() + poll, claimed_until: null }, this.ctx.now());
  }
}

/** Ends a payout by its PayPal item's status; false when the status is not an end (or it had ended). */
export async function settleItem(ctx: Ctx, row: CashPayoutRow, status: string, payoutItemId: string, error: string | undefined, claimed: boolean): Promise<boolean> {
  const end = ENDS[status.toUpperCase()];
  if (!end) return false;
  if (end === 'paid') return markPaid(ctx, row, payoutItemId, claimed);
  return markReleased(ctx, row, end, `PayPal: ${status}${error ? ` (${error})` : ''}`, claimed, payoutItemId);
}
