/**
 * The Stripe requests of the friend's discount, through the official `stripe` package with the campaign's
 * restricted key: the coupon (POST /v1/coupons), each participant's promotion code on it (POST
 * /v1/promotion_codes, for a first purchase), deactivating one (POST /v1/promotion_codes/{id}, active=false),
 * and reading an invoice's discounts (GET /v1/invoices/{id}?expand[]=discounts), which an invoice.paid
 * event carries only as ids. Every POST carries the caller's idempotency key, the same on every attempt.
 */
import Stripe from 'stripe';
import type { RefereeDiscount } from '../../../api/promotion-schemas.js';
import { minorUnits } from '../../billing/domain/stripe-currency.js';
import { StripeClients, type StripeApiTarget } from '../../kernel/stripe-clients.js';

export interface PromotionsApiOptions {
  api?: StripeApiTarget | undefined;
  timeoutMs: number;
}

/** Stripe refused a code because an active one has its text already (in this account, whoever made it). */
export function textTaken(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeError && err.statusCode === 400 && (err.code === 'resource_already_exists' || /already exists/i.test(err.message));
}

/** Stripe no longer has the object (another account's key, or deleted by hand). */
export const missing = (err: unknown): boolean => err instanceof Stripe.errors.StripeError && err.statusCode === 404;

export class StripePromotionsApi {
  readonly #clients: StripeClients;

  constructor(options: PromotionsApiOptions) {
    this.#clients = new StripeClients(options);
  }

  /** The coupon of a discount; `metadata` names the campaign and generation. */
  async createCoupon(key: string, discount: RefereeDiscount, currency: string, name: string, metadata: Record<string, string>, idempotencyKey: string): Promise<string> {
    const off =
      discount.percentOff !== undefined
        ? { percent_off: discount.percentOff }
        : { amount_off: minorUnits(discount.amountOff!, currency), currency: currency.toLowerCase() };
    const coupon = await this.#client(key).coupons.create(
      {
        ...off,
        duration: discount.duration,
        ...(discount.durationInMonths !== undefined && { duration_in_months: discount.durationInMonths }),
        name: name.slice(0, 40),
        metadata,
      },
      { idempotencyKey },
    );
    return coupon.id;
  }

  /** A promotion code with this text on the coupon, for a customer's first purchase. */
  async createPromotionCode(key: string, coupon: string, code: string, metadata: Record<string, string>, idempotencyKey: string): Promise<string> {
    const made = await this.#client(key).promotionCodes.create(
      { promotion: { type: 'coupon', coupon }, code, restrictions: { first_time_transaction: true }, metadata },
      { idempotencyKey },
    );
    return made.id;
  }

  async deactivate(key: string, id: string, idempotencyKey: string): Promise<void> {
    await this.#client(key).promotionCodes.update(id, { active: false }, { idempotencyKey });
  }

  /** The id of the active promotion code with this text that this campaign made, if Stripe has one. */
  async findActive(key: string, code: string, campaignId: string): Promise<string | undefined> {
    const list = await this.#client(key).promotionCodes.list({ code, active: true, limit: 10 });
    return list.data.find((p) => p.metadata?.refkit_campaign === campaignId)?.id;
  }

  /** The promotion codes (ids) of an invoice's discounts. */
  async invoicePromotionCodes(key: string, invoice: string): Promise<string[]> {
    const i = await this.#client(key).invoices.retrieve(invoice, { expand: ['discounts'] });
    return (i.discounts ?? []).flatMap((d) => {
      if (typeof d === 'string' || !('promotion_code' in d) || !d.promotion_code) return [];
      return [typeof d.promotion_code === 'string' ? d.promotion_code : d.promotion_code.id];
    });
  }

  #client(key: string): Stripe {
    return this.#clients.for(key);
  }
}
