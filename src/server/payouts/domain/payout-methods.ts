/**
 * Where a participant is paid: set by the participant in the portal or by the owner (admin/setPayoutMethod),
 * one of the campaign's `cashPayouts.methods`. A PayPal address is kept as given; a Stripe Connect
 * Express account is made for the participant when they first ask to connect, and Stripe's onboarding
 * (opened from the portal) makes it payable (`account.updated`'s payouts_enabled, ./stripe-connect-events.ts).
 */
import type { PayoutMethod, PayoutMethodView } from '../../../api/payout-schemas.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError, invalid } from '../../kernel/errors.js';
import type { CampaignRow } from '../../store/store.js';
import { cashPayoutsOf } from './cash-payout-settings.js';
import { stripeConnectCredentials } from './payout-providers.js';
import { StripeConnectApi } from './stripe-connect-api.js';
import { describeStripeError, stripeApiTarget } from '../../kernel/stripe-clients.js';
import type { PayoutMethodRow } from '../store/payout-profile-store.js';

export interface PayoutMethodInput {
  method: PayoutMethod;
  paypalEmail?: string;
}

export function presentPayoutMethod(row: PayoutMethodRow | undefined): PayoutMethodView {
  return {
    method: row?.method ?? null,
    paypalEmail: row?.paypal_email ?? null,
    stripeAccount: row?.stripe_account ?? null,
    stripePayoutsEnabled: row?.stripe_payouts_enabled === 1,
  };
}

export async function payoutMethodView(ctx: Ctx, participantId: number): Promise<PayoutMethodView> {
  return presentPayoutMethod(await ctx.store.payoutProfiles.method(participantId));
}

/** Throws 409 unless the campaign pays cash, and 400 unless by this method. */
export function assertPaysBy(campaign: CampaignRow, method: PayoutMethod): void {
  const settings = cashPayoutsOf(campaign);
  if (!settings) throw new AppError(409, 'cash_payouts_off', 'This campaign pays no cash: set its cashPayouts first', 'method');
  if (!settings.methods.includes(method)) throw invalid('method', `This campaign pays by ${settings.methods.join(' or ')}, not ${method}`);
}

export async function setPayoutMethod(ctx: Ctx, campaign: CampaignRow, participantId: number, input: PayoutMethodInput): Promise<PayoutMethodView> {
  assertPaysBy(campaign, input.method);
  const current = await ctx.store.payoutProfiles.method(participantId);
  const paypalEmail = input.paypalEmail?.trim().toLowerCase() ?? null;
  if (input.method === 'paypal' && paypalEmail === null && !current?.paypal_email) {
    throw invalid('paypalEmail', 'Payouts by PayPal are sent to a PayPal account: give its email address (paypalEmail)');
  }
  await ctx.store.payoutProfiles.setMethod({ participant_id: participantId, campaign_id: campaign.id, method: input.method, paypal_email: paypalEmail, updated_on: ctx.now() });
  return payoutMethodView(ctx, participantId);
}

/**
 * The link to Stripe's onboarding of the participant's Express account, made on the first call (its
 * idempotency key is the participant's, so two calls at once make one account). `returnUrl` is where
 * Stripe sends them back (the portal), and where an expired link sends them to ask for a new one.
 */
export async function connectStripe(ctx: Ctx, campaign: CampaignRow, participant: { id: number; email: string }, returnUrl: string): Promise<{ url: string }> {
  assertPaysBy(campaign, 'stripe_connect');
  const creds = await stripeConnectCredentials(ctx, campaign.account_id, campaign.test === 0);
  if (!creds) {
    throw new AppError(409, 'payouts_not_configured', `Stripe Connect is not set up for ${campaign.test ? 'test' : 'live'} campaigns yet: the owner sets ${campaign.test ? 'stripeTest' : 'stripe'} in the account settings`);
  }
  const api = new StripeConnectApi({ api: stripeApiTarget(ctx.payouts?.stripeApiUrl), timeoutMs: 20_000 });
  try {
    return await onboardingLink(ctx, api, creds.secretKey, campaign, participant, returnUrl);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(502, 'payout_provider_error', `Stripe did not make the onboarding link: ${describeStripeError(err)}`);
  }
}

async function onboardingLink(ctx: Ctx, api: StripeConnectApi, secretKey: string, campaign: CampaignRow, participant: { id: number; email: string }, returnUrl: string) {
  const creds = { secretKey };
  let account = (await ctx.store.payoutProfiles.method(participant.id))?.stripe_account ?? null;
  if (account === null) {
    const made = await api.createExpressAccount(creds.secretKey, {
      email: participant.email,
      idempotencyKey: `refkit-connect-${campaign.id}-${participant.id}`,
      metadata: { refkit_campaign: campaign.id, refkit_participant: String(participant.id) },
    });
    account = made.id;
    await ctx.store.payoutProfiles.setStripeAccount(participant.id, campaign.id, account, ctx.now());
  }
  const link = await api.createOnboardingLink(creds.secretKey, { account, refreshUrl: returnUrl, returnUrl });
  return { url: link.url };
}
