/**
 * The promotion code outbox's sender: keeps each discount campaign's Stripe coupon and its participants'
 * promotion codes in step with the campaign.
 *
 * Each tick, for every campaign with a refereeDiscount and a stripeRewardKey: makes the coupon of the
 * current generation if it has none (its idempotency key names the campaign and generation, so two
 * processes or a retry after a crash get the one coupon), then queues a code for every participant who
 * has none of this generation (new sign-ups and those who joined before the discount alike: it reads on
 * from where it got to, minus a margin that covers sign-ups committed late). Then it sends what is due,
 * deactivations first: a claim with a lease gives each row to one process, and each request carries the
 * row's own idempotency key, so a code is made once whatever crashes or repeats.
 *
 * Stripe wants an active code's text unique in its account: a code whose text an older code of this
 * campaign still holds waits for its deactivation; one whose text is taken otherwise (another campaign on
 * the same account, a code made by hand) stays unmade with the reason, until promotionCodePrefix is set.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../kernel/context.js';
import { PollLoop } from '../../kernel/poll-loop.js';
import { loopFailureLog } from '../../kernel/outage-log.js';
import { realNow } from '../../kernel/campaign-time.js';
import type { CampaignRow } from '../../store/store.js';
import type { CodeOutcome, PromotionCodeRow } from '../store/promotion-code-store.js';
import { refereeDiscountOf } from './referee-discount.js';
import { missing, StripePromotionsApi, textTaken } from './stripe-promotions-api.js';
import { describeStripeError, stripeApiTarget, transientStripeError, type StripeApiTarget } from '../../kernel/stripe-clients.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export interface PromotionSyncOptions {
  pollMs: number;
  leaseMs: number;
  batchSize: number;
  timeoutMs: number;
  /** Waits before each retry of a failed attempt; the last repeats. */
  retryDelaysMs: number[];
  /** How long a code waits for its coupon, or for its text to be freed, before it is looked at again. */
  waitMs: number;
  /** How far back of where it got to each look through a campaign's participants starts again. */
  lateCommitMs: number;
  /** Where Stripe's API is; default: STRIPE_API_URL (ctx.payouts), else api.stripe.com. */
  api?: StripeApiTarget | undefined;
}

export const DEFAULT_PROMOTION_SYNC: PromotionSyncOptions = {
  pollMs: 5 * SECOND,
  leaseMs: 2 * MINUTE,
  batchSize: 25,
  timeoutMs: 20 * SECOND,
  retryDelaysMs: [10 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE],
  waitMs: 30 * SECOND,
  lateCommitMs: MINUTE,
};

/** Participants queued per statement. */
const QUEUE_BATCH = 500;

export class PromotionCodeSync extends PollLoop {
  readonly #ctx: Ctx;
  readonly #options: PromotionSyncOptions;
  readonly #log: FastifyBaseLogger | undefined;
  readonly #api: StripePromotionsApi;
  /** Why a campaign's coupon could not be made, for its codes' reason. */
  readonly #couponTrouble = new Map<string, string>();

  constructor(ctx: Ctx, options: Partial<PromotionSyncOptions> = {}, log?: FastifyBaseLogger) {
    const merged = { ...DEFAULT_PROMOTION_SYNC, ...options };
    super(merged.pollMs, loopFailureLog(log, 'making Stripe promotion codes'));
    this.#ctx = ctx;
    this.#options = merged;
    this.#log = log;
    this.#api = new StripePromotionsApi({ api: merged.api ?? stripeApiTarget(ctx.payouts?.stripeApiUrl), timeoutMs: merged.timeoutMs });
  }

  protected async tick(): Promise<void> {
    await this.syncNow();
  }

  /** One whole pass: coupons, codes to queue, and every row due. Answers how many rows were sent. */
  async syncNow(): Promise<number> {
    for (const id of await this.#ctx.store.promotionCodes.discountCampaigns()) {
      const campaign = await this.#ctx.store.findCampaign(id);
      if (campaign) await this.#prepare(campaign);
    }
    let sent = 0;
    for (;;) {
      const now = realNow(this.#ctx);
      const { leaseMs, batchSize } = this.#options;
      if (!(await this.#ctx.store.promotionCodes.anyDue(now))) return sent;
      const due = await this.#ctx.store.transaction((tx) => tx.promotionCodes.claimDue(now, leaseMs, batchSize));
      // One at a time: a deactivation claimed with a new code of the same text goes first.
      for (const row of due) await this.#send(row);
      sent += due.length;
      if (due.length < batchSize || this.stopped) return sent;
    }
  }

  /** The campaign's coupon, and a queued code for each participant without one. */
  async #prepare(campaign: CampaignRow): Promise<void> {
    const store = this.#ctx.store.promotionCodes;
    const generation = campaign.discount_generation;
    if (campaign.discount_coupon === null) await this.#makeCoupon(campaign);
    const now = realNow(this.#ctx);
    await store.retireOlder(campaign.id, generation, now);
    const through = await store.through(campaign.id);
    let since = through === null ? 0 : through - this.#options.lateCommitMs;
    for (;;) {
      const { seen, through: reached } = await store.enqueue(campaign.id, generation, campaign.promotion_code_prefix ?? '', since, now, QUEUE_BATCH);
      if (reached !== undefined) {
        await store.setThrough(campaign.id, generation, reached);
        since = reached;
      }
      if (seen < QUEUE_BATCH || this.stopped) break;
    }
    // Participants' earlier codes (they chose vanity codes) still name them, and keep a promotion code each.
    const prefix = campaign.promotion_code_prefix ?? '';
    while ((await store.enqueueAliases(campaign.id, generation, prefix, now, QUEUE_BATCH)) === QUEUE_BATCH && !this.stopped);
  }

  async #makeCoupon(campaign: CampaignRow): Promise<void> {
    const discount = refereeDiscountOf(campaign);
    if (!discount || campaign.stripe_reward_key === null) return;
    const generation = campaign.discount_generation;
    try {
      const coupon = await this.#api.createCoupon(
        campaign.stripe_reward_key,
        discount,
        campaign.reward_currency,
        campaign.name,
        { refkit_campaign: campaign.id, refkit_generation: String(generation) },
        `refkit-coupon-${campaign.id}-${generation}`,
      );
      await this.#ctx.store.promotionCodes.setCoupon(campaign.id, generation, coupon);
      this.#couponTrouble.delete(campaign.id);
    } catch (err) {
      this.#couponTrouble.set(campaign.id, `The coupon could not be made: ${describeStripeError(err)}`);
      this.#log?.warn({ campaign: campaign.id, error: describeStripeError(err) }, 'Stripe coupon');
    }
  }

  async #send(row: PromotionCodeRow): Promise<void> {
    const campaign = await this.#ctx.store.findCampaign(row.campaign_id);
    const outcome = campaign ? await this.#attempt(campaign, row) : { status: 'inactive' as const, nextAttemptOn: null, reason: 'The campaign is gone', attempted: false };
    await this.#ctx.store.promotionCodes.settle(row, outcome, realNow(this.#ctx));
    if (outcome.attempted) this.#log?.info({ code: row.id, status: outcome.status, reason: outcome.reason }, 'Stripe promotion code');
  }

  /** What one attempt at a row does: Stripe's requests, and where they leave it. */
  async #attempt(campaign: CampaignRow, row: PromotionCodeRow): Promise<CodeOutcome> {
    const now = realNow(this.#ctx);
    const wait = (reason: string): CodeOutcome => ({ status: row.status, nextAttemptOn: now + this.#options.waitMs, reason, attempted: false });
    const retry = (err: unknown): CodeOutcome => {
      const delays = this.#options.retryDelaysMs;
      return { status: row.status, nextAttemptOn: now + delays[Math.min(row.attempts, delays.length - 1)]!, reason: describeStripeError(err), attempted: true };
    };
    const key = campaign.stripe_reward_key;
    if (key === null) return wait('The campaign has no stripeRewardKey to reach Stripe with');
    const current = row.generation === campaign.discount_generation;

    if (row.status === 'deactivating') {
      if (row.stripe_id === null) return { status: 'inactive', nextAttemptOn: null, reason: null, attempted: false };
      try {
        await this.#api.deactivate(key, row.stripe_id, `${row.idempotency_key}-deactivate`);
        return { status: 'inactive', nextAttemptOn: null, reason: null, attempted: true };
      } catch (err) {
        if (missing(err)) return { status: 'inactive', nextAttemptOn: null, reason: `Not deactivated: ${describeStripeError(err)}`, attempted: true };
        return retry(err);
      }
    }

    // A code of an earlier generation: never sent, there is nothing to undo; sent before with its answer lost,
    // Stripe may have made it, so it is looked up by its text and deactivated.
    if (!current) {
      if (row.attempts === 0) return { status: 'inactive', nextAttemptOn: null, reason: null, attempted: false };
      try {
        const made = await this.#api.findActive(key, row.stripe_code, campaign.id);
        if (made !== undefined) await this.#api.deactivate(key, made, `${row.idempotency_key}-deactivate`);
        return { status: 'inactive', nextAttemptOn: null, reason: null, attempted: true, ...(made !== undefined && { stripeId: made }) };
      } catch (err) {
        return retry(err);
      }
    }
    const coupon = campaign.discount_coupon;
    if (coupon === null) return wait(this.#couponTrouble.get(campaign.id) ?? 'Waiting for the discount\'s coupon to be made');
    if (await this.#ctx.store.promotionCodes.textBeingFreed(campaign.id, row.stripe_code)) return wait(`Waiting for the earlier code ${row.stripe_code} to be deactivated`);
    try {
      const id = await this.#api.createPromotionCode(key, coupon, row.stripe_code, { refkit_code: row.code, refkit_campaign: campaign.id }, row.idempotency_key);
      return { status: 'active', stripeId: id, nextAttemptOn: null, reason: null, attempted: true };
    } catch (err) {
      if (textTaken(err)) {
        return {
          status: 'failed',
          nextAttemptOn: null,
          reason: `Stripe has an active promotion code ${row.stripe_code} already (another campaign on this Stripe account, or one made by hand): set promotionCodePrefix`,
          attempted: true,
        };
      }
      if (transientStripeError(err)) return retry(err);
      return { status: 'failed', nextAttemptOn: null, reason: describeStripeError(err), attempted: true };
    }
  }
}
