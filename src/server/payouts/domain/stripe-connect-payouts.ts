/**
 * Cash out by Stripe Connect (./cash-payout-sender.ts): a transfer from the platform's balance to the
 * participant's Express account, under the payout's key as Idempotency-Key (a retry after a crash or a
 * lost answer gets the transfer Stripe made, never a second). A transfer made is paid: the money is in the
 * participant's Stripe balance, and Stripe pays it out to their bank on its schedule.
 */
import { minorUnits } from '../../billing/domain/stripe-currency.js';
import type { Ctx } from '../../kernel/context.js';
import type { CampaignRow } from '../../store/store.js';
import type { CashPayoutRow } from '../store/cash-payout-store.js';
import { credentialsName, stripeConnectCredentials } from './payout-providers.js';
import { markPaid, refuse } from './payout-settlement.js';
import type { SenderKit } from './sender-kit.js';
import { StripeConnectApi } from './stripe-connect-api.js';
import { describeStripeError, stripeApiTarget, transientStripeError } from '../../kernel/stripe-clients.js';

export class StripeConnectPayouts {
  readonly #api: StripeConnectApi;

  constructor(
    private readonly ctx: Ctx,
    private readonly kit: SenderKit,
  ) {
    this.#api = new StripeConnectApi({ api: stripeApiTarget(ctx.payouts?.stripeApiUrl), timeoutMs: kit.options.timeoutMs });
  }

  async send(campaign: CampaignRow, row: CashPayoutRow): Promise<void> {
    const live = campaign.test === 0;
    const creds = await stripeConnectCredentials(this.ctx, campaign.account_id, live);
    if (!creds) {
      await this.kit.later([row], `Stripe Connect is not set up for ${live ? 'live' : 'test'} campaigns: set ${credentialsName('stripe_connect', live)} in the account settings`, false);
      return;
    }
    const amount = Number(row.referral_amount) + Number(row.referee_amount);
    let transfer;
    try {
      transfer = await this.#api.createTransfer(creds.secretKey, {
        amountMinor: minorUnits(amount, row.currency),
        currency: row.currency.toLowerCase(),
        destination: row.destination,
        description: `${campaign.name}: referral rewards (payout ${row.id})`.slice(0, 350),
        idempotencyKey: row.idempotency_key,
        metadata: { refkit_campaign: campaign.id, refkit_payout: String(row.id) },
        transferGroup: row.run_id,
      });
    } catch (err) {
      if (transientStripeError(err)) {
        this.kit.log?.warn({ payout: row.id, error: describeStripeError(err) }, 'Stripe Connect payout attempt');
        await this.kit.later([row], describeStripeError(err), true);
      } else {
        await refuse(this.ctx, [row], describeStripeError(err));
      }
      return;
    }
    await markPaid(this.ctx, row, transfer.id, true);
  }
}
