/** Campaign rules: creation, edits, the Active <-> Pause -> End state machine, and who may embed it. */
import type { CampaignStatus, CreateCampaignBody, UpdateCampaignBody } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { AppError, campaignNotFound, invalid } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { checkTimeZone, writeLeaderboard } from '../../engagement/domain/leaderboard-settings.js';
import { assertWaitlistChange, writeWaitlist } from '../../engagement/domain/waitlist-settings.js';
import { rulesColumns } from '../../rewards/domain/reward-rules.js';
import { newSecret } from '../../kernel/secrets.js';
import { campaignMode, seesMode } from '../../kernel/test-mode.js';
import { mergeShareMessages, readShareMessages } from './share-messages.js';
import { writeWidgetStyle } from './widget-style.js';
import { assertCanPayCash, writeCashPayouts } from '../../payouts/domain/cash-payout-settings.js';
import { writePaymentSecrets } from '../../billing/domain/payment-secrets.js';
import { fraudControlColumns } from '../../fraud/domain/fraud-settings.js';
import { assertCanDiscount, changeCodes, changesCodes, writePromotionCodePrefix, writeRefereeDiscount } from '../../promotions/domain/referee-discount.js';

/** A campaign's row, for the routes that show one (they read no SQL of their own). */
export type { CampaignRow };

/** The status a campaign reads as: a campaign whose end date has passed is End, whatever was stored. */
export function effectiveStatus(c: CampaignRow, now: number): CampaignStatus {
  if (c.status !== 'End' && c.end_on !== null && c.end_on <= now) return 'End';
  return c.status;
}

/** Throws 409 unless the campaign takes signups and qualifications now; `paused` says what a pause means for the call. */
export function assertOpen(c: CampaignRow, now: number, paused = 'The campaign is paused'): void {
  const status = effectiveStatus(c, now);
  if (status === 'Pause') throw new AppError(409, 'campaign_paused', paused);
  if (status === 'End') throw new AppError(409, 'campaign_ended', 'The campaign has ended');
}

/** Which states each state may move to. End is final. */
const TRANSITIONS: Record<CampaignStatus, CampaignStatus[]> = {
  Active: ['Active', 'Pause', 'End'],
  Pause: ['Pause', 'Active', 'End'],
  End: [],
};

/**
 * Origins allowed to call the public routes for this campaign from a browser: the landing page's (the
 * origin of hostURL) always, and those of allowedOrigins besides (a www. host, a second shop). The
 * service's own origin is allowed for every campaign (../../http/access.ts).
 */
export function allowedOrigins(c: Pick<CampaignRow, 'host_url' | 'allowed_origins'>): string[] {
  const own = new URL(c.host_url).origin;
  const more = c.allowed_origins ? (JSON.parse(c.allowed_origins) as string[]) : [];
  return more.includes(own) ? more : [own, ...more];
}

/** A campaign by id, or undefined: for callers to whom an unknown id is not an error (the demo page). */
export function lookupCampaign(ctx: Ctx, id: string): Promise<CampaignRow | undefined> {
  return ctx.store.findCampaign(id);
}

/** A campaign by id, for anyone (the public routes). */
export async function findCampaign(ctx: Ctx, id: string): Promise<CampaignRow> {
  const c = await lookupCampaign(ctx, id);
  if (!c) throw campaignNotFound();
  return c;
}

/**
 * Whether a page on `origin` may call the public routes for this campaign from a browser; undefined when
 * no campaign has this id (the route itself then answers campaign_not_found).
 */
export async function campaignAllowsOrigin(ctx: Ctx, id: string, origin: string): Promise<boolean | undefined> {
  const c = await lookupCampaign(ctx, id);
  return c && allowedOrigins(c).includes(origin);
}

/** Whether any campaign allows `origin`: a CORS preflight does not say which campaign it is for. */
export async function someCampaignAllowsOrigin(ctx: Ctx, origin: string): Promise<boolean> {
  return (await ctx.store.campaignOrigins()).some((c) => allowedOrigins(c).includes(origin));
}

/**
 * A campaign by id that belongs to the actor's account and the actor's mode; others' campaigns, and test
 * campaigns to a live key (live ones to a test key), read as not found.
 */
export async function ownCampaign(ctx: Ctx, actor: Actor, id: string): Promise<CampaignRow> {
  const c = await findCampaign(ctx, id);
  if (c.account_id !== actor.accountId || !seesMode(actor, c)) throw campaignNotFound();
  return c;
}

type CampaignInput = Partial<Omit<CreateCampaignBody, 'campaignName' | 'hostURL'>> & {
  campaignName?: string;
  hostURL?: string;
};

/**
 * Maps the wire names of campaign fields to columns; only the fields given are returned. `current`: the
 * campaign being changed, whose share messages a change merges into. `refkit apply` (../../operations/domain/config-plan.ts)
 * compares a row with what this makes of it, to tell a change from a field given as it is.
 */
export function campaignColumns(input: CampaignInput, current?: CampaignRow) {
  const row: Partial<CampaignRow> = {};
  if (input.campaignName !== undefined) row.name = input.campaignName;
  if (input.hostURL !== undefined) row.host_url = new URL(input.hostURL).href;
  if (input.referrerRewardValue !== undefined) row.referrer_reward_value = input.referrerRewardValue;
  if (input.refereeRewardValue !== undefined) row.referee_reward_value = input.refereeRewardValue;
  if (input.rewardType !== undefined) row.reward_type = input.rewardType;
  if (input.rewardCurrency !== undefined) row.reward_currency = input.rewardCurrency;
  if (input.rewardHeader !== undefined) row.reward_header = input.rewardHeader;
  if (input.rewardDescription !== undefined) row.reward_description = input.rewardDescription;
  if (input.shareHeader !== undefined) row.share_header = input.shareHeader;
  if (input.shareDescription !== undefined) row.share_description = input.shareDescription;
  if (input.end !== undefined) row.end_on = input.end === null ? null : Date.parse(input.end);
  if (input.requireEmailConfirmation !== undefined) row.require_email_confirmation = input.requireEmailConfirmation ? 1 : 0;
  if (input.shareMessages !== undefined) row.share_messages = mergeShareMessages(current ? readShareMessages(current) : {}, input.shareMessages);
  if (input.widgetStyle !== undefined) row.widget_style = writeWidgetStyle(input.widgetStyle);
  if (input.allowedOrigins !== undefined) {
    row.allowed_origins = JSON.stringify(input.allowedOrigins.map((o) => new URL(o).origin));
  }
  if (input.stripeWebhookSecret !== undefined) row.stripe_webhook_secret = input.stripeWebhookSecret === '' ? null : input.stripeWebhookSecret;
  if (input.stripeRewardKey !== undefined) row.stripe_reward_key = input.stripeRewardKey === '' ? null : input.stripeRewardKey;
  if (input.stripeRewardMode !== undefined) row.stripe_reward_mode = input.stripeRewardMode;
  if (input.cashPayouts !== undefined) row.cash_payouts = writeCashPayouts(input.cashPayouts);
  if (input.refereeDiscount !== undefined) row.referee_discount = writeRefereeDiscount(input.refereeDiscount);
  if (input.promotionCodePrefix !== undefined) row.promotion_code_prefix = writePromotionCodePrefix(input.promotionCodePrefix);
  const secrets = writePaymentSecrets(input, current);
  if (secrets !== undefined) row.payment_secrets = secrets;
  if (input.rewardCodesLowThreshold !== undefined) row.reward_codes_low_threshold = input.rewardCodesLowThreshold;
  if (input.leaderboard !== undefined) row.leaderboard = writeLeaderboard(input.leaderboard);
  if (input.timeZone !== undefined) row.time_zone = checkTimeZone(input.timeZone);
  if (input.waitlist !== undefined) row.waitlist = writeWaitlist(input.waitlist);
  return Object.assign(row, rulesColumns(input), fraudControlColumns(input, current));
}

/** Double opt-in sends email: refuse to turn it on where none can be sent, rather than fail every sign-up. */
function assertCanConfirm(ctx: Ctx, input: CampaignInput): void {
  if (input.requireEmailConfirmation && !ctx.mailer) {
    throw invalid('requireEmailConfirmation', 'requireEmailConfirmation needs the service to send email: set SMTP_URL');
  }
}

/** Paying rewards into Stripe needs the key to pay with: refuse a mode that is on without one. */
function assertCanPayOut(patch: Partial<CampaignRow>, current?: CampaignRow): void {
  const mode = patch.stripe_reward_mode ?? current?.stripe_reward_mode ?? 'off';
  const key = patch.stripe_reward_key !== undefined ? patch.stripe_reward_key : (current?.stripe_reward_key ?? null);
  if (mode !== 'off' && key === null) {
    const field = patch.stripe_reward_mode !== undefined ? 'stripeRewardMode' : 'stripeRewardKey';
    throw invalid(field, `stripeRewardMode ${mode} pays rewards with the campaign's restricted Stripe key: set stripeRewardKey (rk_live_... or rk_test_...) too, or set stripeRewardMode to off`);
  }
}

export async function createCampaign(
  ctx: Ctx,
  actor: Actor,
  input: CreateCampaignBody,
  id: string = newId('cmp'),
): Promise<CampaignRow> {
  assertCanConfirm(ctx, input);
  const patch = campaignColumns(input);
  assertCanPayOut(patch);
  assertCanPayCash(patch);
  assertCanDiscount(patch);
  const now = ctx.now();
  await ctx.store.insertCampaign({
    id,
    account_id: actor.accountId,
    test: campaignMode(actor, input.test) ? 1 : 0,
    status: 'Active',
    created_on: now,
    updated_on: now,
    name: input.campaignName,
    host_url: new URL(input.hostURL).href,
    signing_secret: newSecret('cs'),
    email_secret: newSecret('es'),
    ...patch,
  });
  return findCampaign(ctx, id);
}

export async function updateCampaign(ctx: Ctx, actor: Actor, input: UpdateCampaignBody): Promise<CampaignRow> {
  const current = await ownCampaign(ctx, actor, input.id);
  assertCanConfirm(ctx, input);
  const { id, ...fields } = input;
  const patch = campaignColumns(fields, current);
  assertCanPayOut(patch, current);
  assertCanPayCash(patch, current);
  assertCanDiscount(patch, current);
  await assertWaitlistChange(ctx.store, current, patch.waitlist);
  if (changesCodes(patch, current)) await changeCodes(ctx.store, id, { ...patch, updated_on: ctx.now() }, ctx.now());
  else if (Object.keys(patch).length > 0) await ctx.store.updateCampaign(id, { ...patch, updated_on: ctx.now() });
  return findCampaign(ctx, id);
}

export async function setCampaignStatus(ctx: Ctx, actor: Actor, id: string, status: CampaignStatus): Promise<CampaignRow> {
  const c = await ownCampaign(ctx, actor, id);
  const from = effectiveStatus(c, ctx.now());
  if (from === status) return c;
  const sources = (Object.keys(TRANSITIONS) as CampaignStatus[]).filter((s) => TRANSITIONS[s].includes(status));
  // Conditional on the stored status, so two admins racing Pause and End end in a state some order allows.
  const moved = from !== 'End' && (await ctx.store.transitionCampaign(id, sources, status, ctx.now()));
  if (!moved) throw new AppError(409, 'invalid_transition', `A campaign cannot go from ${from} to ${status}`, 'status');
  return findCampaign(ctx, id);
}
