/**
 * Stripe credit out: sends the payout outbox (./payout-queue.ts) to Stripe with the campaign's
 * restricted key, through the official `stripe` package.
 *
 * - `balance`: a customer balance transaction (POST /v1/customers/{customer}/balance_transactions, a
 *   negative amount: a credit the customer's next invoices use up).
 * - `promotion_code`: a coupon (amount_off, duration once, max_redemptions 1) and a promotion code for it,
 *   restricted to that customer and one redemption (POST /v1/coupons, POST /v1/promotion_codes).
 *
 * Each tick claims due payouts with a lease (one sender per payout across processes). Every request of a
 * payout carries an idempotency key made from the payout's random key and its generation, the same on
 * every attempt: after a crash or a lost answer the retry gets the object Stripe made the first time,
 * never a second one. When Stripe answers, the payout is marked paid (with Stripe's id) and its
 * redemption written to the ledger in one transaction, under the claim; so it is redeemed once.
 * Network errors, 5xx, 429 and 409 are retried on a schedule (the last delay repeats: it never gives up);
 * any other 4xx cannot succeed as it is and marks the payout failed with Stripe's message, until the
 * owner retries it (a new generation: a new request).
 *
 * A test campaign's payouts follow its clock (../../kernel/campaign-time.ts): they are due when due in its
 * time, and each is sent in that time (its retries, waits and ledger entry are stamped in it), while the
 * claim's lease stays on the real time, which every process reads.
 */
import type Stripe from 'stripe';
import type { FastifyBaseLogger } from 'fastify';
import { isMoney } from '../../../api/reward-kind.js';
import type { Ctx } from '../../kernel/context.js';
import { inCampaignTime, offsetOf, realNow } from '../../kernel/campaign-time.js';
import { redeemPaidOut } from '../../rewards/domain/ledger.js';
import type { PayoutOutcome, StripePayoutRow } from '../store/stripe-payout-store.js';
import type { CampaignRow } from '../../store/store.js';
import { minorUnits } from '../../billing/domain/stripe-currency.js';
import { loopFailureLog } from '../../kernel/outage-log.js';
import { StripeClients, describeStripeError, transientStripeError } from '../../kernel/stripe-clients.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export interface PayoutSenderOptions {
  /** Waits before each retry of a failed attempt; the last repeats for every later one. */
  retryDelaysMs: number[];
  /** How long a payout that waits (no customer, mode off) waits before it is looked at again. */
  waitMs: number;
  /** How often to look for due payouts. */
  pollMs: number;
  /** How long a claim holds; longer than a payout's requests can take. */
  leaseMs: number;
  timeoutMs: number;
  batchSize: number;
  /** Where Stripe's API is (default api.stripe.com over https); the tests' fake Stripe is elsewhere. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

export const DEFAULT_PAYOUT_OPTIONS: PayoutSenderOptions = {
  retryDelaysMs: [10 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, HOUR],
  waitMs: 10 * MINUTE,
  pollMs: 5 * SECOND,
  leaseMs: 2 * MINUTE,
  timeoutMs: 20 * SECOND,
  batchSize: 10,
};

/** What Stripe made for a payout. */
interface Paid {
  customer: string;
  stripe_id: string;
  promotion_code: string | null;
}

/** Why a payout cannot be sent now, and waits: undefined when it can. */
function waitingReason(campaign: CampaignRow, row: StripePayoutRow, customer: string | undefined): string | undefined {
  if (campaign.stripe_reward_mode === 'off' || campaign.stripe_reward_key === null) return 'Paying rewards into Stripe is off for this campaign (stripeRewardMode, stripeRewardKey)';
  if (!isMoney(campaign.reward_type)) return `The campaign's rewards are ${campaign.reward_type}, not money: Stripe can only be paid an amount of a currency`;
  if (row.currency !== campaign.reward_currency) return `The credit is in ${row.currency} and the campaign's rewards are now in ${campaign.reward_currency}: set rewardCurrency back to pay it`;
  if (customer === undefined) return 'No Stripe customer is linked to this participant yet (a Stripe event of theirs links one); it is paid once one is';
  return undefined;
}

export class StripePayoutSender {
  readonly #ctx: Ctx;
  readonly #options: PayoutSenderOptions;
  readonly #log: FastifyBaseLogger | undefined;
  readonly #clients: StripeClients;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;
  readonly #failed: (err: unknown) => void;

  constructor(ctx: Ctx, options: Partial<PayoutSenderOptions> = {}, log?: FastifyBaseLogger) {
    this.#ctx = ctx;
    this.#options = { ...DEFAULT_PAYOUT_OPTIONS, ...options };
    this.#clients = new StripeClients(this.#options);
    this.#log = log;
    this.#failed = loopFailureLog(log, 'paying rewards into Stripe');
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops looking and waits for the payouts in flight to be recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.sendDue()
        .catch(this.#failed)
        .finally(() => {
          this.#running = undefined;
          this.#schedule(this.#options.pollMs);
        });
    }, ms);
  }

  /** Sends every payout due now (a batch at a time); answers how many were looked at. */
  async sendDue(): Promise<number> {
    let seen = 0;
    for (;;) {
      const { leaseMs, batchSize } = this.#options;
      const real = realNow(this.#ctx);
      if (!(await this.#ctx.store.stripePayouts.anyDue(real))) return seen;
      const due = await this.#ctx.store.transaction((tx) => tx.stripePayouts.claimDue(real, leaseMs, batchSize));
      seen += due.length;
      await Promise.all(due.map((row) => this.#inItsTime(row)));
      if (due.length < batchSize || this.#stopped) return seen;
    }
  }

  /** Sends a payout in its campaign's time (a moved test campaign's; the real time for the others). */
  async #inItsTime(row: StripePayoutRow): Promise<void> {
    const campaign = await this.#ctx.store.findCampaign(row.campaign_id);
    const offset = campaign ? await offsetOf(this.#ctx, campaign) : 0;
    await inCampaignTime(offset, () => this.#send(row));
  }

  async #send(row: StripePayoutRow): Promise<void> {
    const { store } = this.#ctx;
    const campaign = await store.findCampaign(row.campaign_id);
    const customer = await store.stripe.customerOf(row.campaign_id, row.participant_id);
    const waiting = campaign ? waitingReason(campaign, row, customer) : 'The campaign is gone';
    if (waiting !== undefined || !campaign || customer === undefined) {
      const outcome = { status: 'waiting' as const, nextAttemptOn: this.#ctx.now() + this.#options.waitMs, error: waiting ?? '', attempted: false };
      await store.stripePayouts.settle(row, outcome, this.#ctx.now());
      this.#ctx.metrics?.attempt('stripe_payouts', 'waiting');
      return;
    }
    let paid: Paid;
    try {
      paid = await this.#pay(campaign, row, customer);
    } catch (err) {
      const now = this.#ctx.now();
      const delays = this.#options.retryDelaysMs;
      const outcome: PayoutOutcome = transientStripeError(err)
        ? { status: 'queued', nextAttemptOn: now + delays[Math.min(row.attempts, delays.length - 1)]!, error: describeStripeError(err), customer, attempted: true }
        : { status: 'failed', nextAttemptOn: null, error: describeStripeError(err), customer, attempted: true };
      await store.stripePayouts.settle(row, outcome, now);
      this.#ctx.metrics?.attempt('stripe_payouts', outcome.status === 'queued' ? 'retry' : 'failed');
      this.#log?.warn({ payout: row.id, error: outcome.error, next: outcome.status }, 'Stripe payout attempt');
      return;
    }
    await this.#redeem(row, paid);
  }

  /** The Stripe requests of one payout; each idempotent under a key that is the same on every attempt. */
  async #pay(campaign: CampaignRow, row: StripePayoutRow, customer: string): Promise<Paid> {
    const stripe = this.#client(campaign.stripe_reward_key!);
    const key = `${row.idempotency_key}-${row.generation}`;
    const amount = minorUnits(row.amount, row.currency);
    const currency = row.currency.toLowerCase();
    const metadata = { refkit_campaign: campaign.id, refkit_payout: String(row.id) };
    const description = `${campaign.name}: ${row.label}`.slice(0, 350);
    if (row.mode === 'balance') {
      const txn = await stripe.customers.createBalanceTransaction(customer, { amount: -amount, currency, description, metadata }, { idempotencyKey: key });
      return { customer, stripe_id: txn.id, promotion_code: null };
    }
    const coupon = await stripe.coupons.create(
      { amount_off: amount, currency, duration: 'once', max_redemptions: 1, name: campaign.name.slice(0, 40), metadata },
      { idempotencyKey: `${key}-coupon` },
    );
    const promotion = await stripe.promotionCodes.create(
      { promotion: { type: 'coupon', coupon: coupon.id }, customer, max_redemptions: 1, metadata },
      { idempotencyKey: `${key}-promotion-code` },
    );
    return { customer, stripe_id: promotion.id, promotion_code: promotion.code };
  }

  /**
   * Marks the payout paid and redeems it from the participant's balance, in one transaction and only
   * under this sender's claim. Should the balance no longer cover it (a refund took back some of the
   * credit between its queueing and Stripe's answer), what it lacks is owed, as with any reversal that
   * finds no balance: Stripe has the money, and the ledger says so.
   */
  async #redeem(row: StripePayoutRow, paid: Paid): Promise<void> {
    const now = this.#ctx.now();
    const where = paid.promotion_code ? `as promotion code ${paid.promotion_code} (${paid.stripe_id})` : `as a customer balance credit (${paid.stripe_id})`;
    const done = await this.#ctx.store.transaction(async (tx) => {
      if (!(await tx.stripePayouts.markPaid(row, paid, now))) return false;
      await tx.lockParticipants([row.participant_id]);
      await redeemPaidOut(tx, row.participant_id, row.reward_kind, row.amount, `Paid into Stripe ${where}: ${row.label}`, now);
      return true;
    });
    this.#ctx.metrics?.attempt('stripe_payouts', 'paid');
    this.#log?.info({ payout: row.id, stripe: paid.stripe_id, recorded: done }, 'Stripe payout');
  }

  #client(key: string): Stripe {
    return this.#clients.for(key);
  }
}
