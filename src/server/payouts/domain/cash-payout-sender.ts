/**
 * Cash out: sends approved payouts (status `sending`) to PayPal or Stripe, and polls PayPal for the
 * payouts it took (`sent`) until each ends (./payout-settlement.ts). A background loop, in every process:
 * each tick claims due payouts with a lease, so one process sends each; a PayPal batch is sent only by
 * the process that holds all of it.
 *
 * - PayPal (./paypal-api.ts): a batch per approval (or per run without approval), `sender_batch_id` the
 *   batch's key and `PayPal-Request-Id` the same, each item's `sender_item_id` the payout's key. After a
 *   crash or a lost answer the retry sends the same request: PayPal answers the batch it made (or refuses
 *   the reused sender_batch_id, naming the batch), never a second one. Items end by PayPal's webhooks
 *   (../routes/payout-receivers.ts) or, for batches that got none, by polling the batch.
 * - Stripe Connect (./stripe-connect-api.ts): a transfer to the participant's account under the payout's
 *   key as Idempotency-Key; a transfer made is paid (the money is in their Stripe balance).
 *
 * A test campaign pays only through PayPal's sandbox or Stripe test keys, a live one only through the live
 * ones (./payout-providers.ts); without them its payouts wait with the reason. A test campaign's payouts
 * follow its clock, as Stripe credit out's do.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../kernel/context.js';
import { inCampaignTime, offsetOf, realNow } from '../../kernel/campaign-time.js';
import { loopFailureLog } from '../../kernel/outage-log.js';
import { PollLoop } from '../../kernel/poll-loop.js';
import type { CampaignRow } from '../../store/store.js';
import type { CashPayoutRow } from '../store/cash-payout-store.js';
import { monthIn } from '../../engagement/domain/leaderboard.js';
import { makeRun } from './payout-runs.js';
import { DEFAULT_CASH_SENDER_OPTIONS, type CashSenderOptions, type SenderKit } from './sender-kit.js';
import { PayPalPayouts } from './paypal-payouts.js';
import { StripeConnectPayouts } from './stripe-connect-payouts.js';

export class CashPayoutSender extends PollLoop {
  readonly #ctx: Ctx;
  readonly #kit: SenderKit;
  readonly #paypal: PayPalPayouts;
  readonly #stripe: StripeConnectPayouts;

  constructor(ctx: Ctx, options: Partial<CashSenderOptions> = {}, log?: FastifyBaseLogger) {
    const all = { ...DEFAULT_CASH_SENDER_OPTIONS, ...options };
    super(all.pollMs, loopFailureLog(log, 'sending cash payouts'));
    this.#ctx = ctx;
    this.#kit = { options: all, later: (rows, reason, attempted) => this.#later(rows, reason, attempted), log };
    this.#paypal = new PayPalPayouts(ctx, this.#kit);
    this.#stripe = new StripeConnectPayouts(ctx, this.#kit);
  }

  protected async tick(): Promise<void> {
    await this.runSchedules();
    await this.sendDue();
  }

  /**
   * Makes the month's run of each campaign on the monthly schedule, once a month began in its time zone
   * (a test campaign's by its clock). The month is claimed first (a conditional update), so one process
   * makes it; a process that dies mid-run leaves the rest to the owner's createPayouts or the next month
   * (balances wait; nothing is paid twice: every payout reserves its amount). A campaign that just turned
   * the schedule on is marked, and its first run is at the next month's start. Answers the runs made.
   */
  async runSchedules(): Promise<number> {
    let runs = 0;
    for (const campaign of await this.#ctx.store.cashPayouts.scheduled()) {
      const offset = await offsetOf(this.#ctx, campaign);
      await inCampaignTime(offset, async () => {
        const now = this.#ctx.now();
        const was = campaign.payouts_run_on === null ? null : Number(campaign.payouts_run_on);
        if (was !== null && monthIn(campaign.time_zone, was) === monthIn(campaign.time_zone, now)) return;
        if (!(await this.#ctx.store.cashPayouts.claimScheduledRun(campaign.id, was, now))) return;
        if (was === null) return;
        const run = await makeRun(this.#ctx, campaign, now);
        runs++;
        this.#kit.log?.info({ campaign: campaign.id, run: run.runId, payouts: run.payouts.length, skipped: run.skipped.length }, 'monthly payout run');
      });
    }
    return runs;
  }

  /** Sends (and polls) every payout due now, a batch at a time; answers how many were looked at. */
  async sendDue(): Promise<number> {
    let seen = 0;
    for (;;) {
      const { leaseMs, batchSize } = this.#kit.options;
      const real = realNow(this.#ctx);
      if (!(await this.#ctx.store.cashPayouts.anyDue(real))) return seen;
      const due = await this.#ctx.store.transaction((tx) => tx.cashPayouts.claimDue(real, leaseMs, batchSize));
      seen += due.length;
      for (const group of groups(due)) await this.#inItsTime(group);
      if (due.length < batchSize || this.stopped) return seen;
    }
  }

  /** Works on a group (a PayPal batch, or one payout) in its campaign's time. */
  async #inItsTime(rows: CashPayoutRow[]): Promise<void> {
    const campaign = await this.#ctx.store.findCampaign(rows[0]!.campaign_id);
    if (!campaign) return;
    const offset = await offsetOf(this.#ctx, campaign);
    await inCampaignTime(offset, () => this.#work(campaign, rows));
  }

  async #work(campaign: CampaignRow, rows: CashPayoutRow[]): Promise<void> {
    const first = rows[0]!;
    if (first.status === 'sent') return this.#paypal.poll(campaign, rows);
    if (first.method === 'stripe_connect') return this.#stripe.send(campaign, first);
    // A batch is sent whole: a sender holding part of it (another took the rest) leaves it for later.
    if (first.batch_key !== null && (await this.#ctx.store.cashPayouts.batchSize(first.batch_key)) !== rows.length) {
      return this.#later(rows, 'Part of its batch is being sent by another process', false);
    }
    return this.#paypal.send(campaign, rows);
  }

  async #later(rows: readonly CashPayoutRow[], reason: string, attempted: boolean): Promise<void> {
    const now = this.#ctx.now();
    const delays = this.#kit.options.retryDelaysMs;
    for (const row of rows) {
      const wait = attempted ? delays[Math.min(row.attempts, delays.length - 1)]! : this.#kit.options.waitMs;
      await this.#ctx.store.cashPayouts.later(row, reason, now + wait, attempted, now);
    }
  }
}

/**
 * The claimed payouts in the groups they are worked on: a PayPal batch to send together, a sent PayPal
 * batch to poll together, a Stripe transfer alone.
 */
function groups(rows: readonly CashPayoutRow[]): CashPayoutRow[][] {
  const byKey = new Map<string, CashPayoutRow[]>();
  for (const r of rows) {
    const key =
      r.status === 'sent' ? `poll:${r.provider_batch_id ?? r.id}` : r.method === 'paypal' && r.batch_key !== null ? `send:${r.batch_key}` : `one:${r.id}`;
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  return [...byKey.values()];
}
