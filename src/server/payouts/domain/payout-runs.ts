/**
 * Payout runs: who is paid how much, and the owner's approval. A run looks at every participant of the
 * campaign with something payable (their referral and referee balances together, less what open payouts
 * already hold) and makes one payout each, unless it is under the campaign's minimum, they chose no
 * method the campaign pays by (or their Stripe account cannot be paid yet), or it would take a US payer's
 * year past the tax threshold without tax details (./tax-details.ts). Each payout is written in the
 * transaction that reserves its amount, so the balance cannot be redeemed or paid twice meanwhile. With
 * approval on, payouts wait in pending_approval; approving moves them to sending, once: the move is
 * conditional on the status, so two approvals at once send each payout once, in one PayPal batch.
 */
import type { CashPayout, CreatePayoutsAnswer } from '../../../api/payout-schemas.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { heldForSharedMethod } from '../../fraud/domain/payout-duplicates.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { fetchPage, pageRequest, type PageResult } from '../../kernel/paging.js';
import { iso } from '../../kernel/time.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { CampaignRow } from '../../store/store.js';
import type { CashPayoutStatus } from '../../store/tables.js';
import type { CashPayoutRow, ListedCashPayout, PayableBalance } from '../store/cash-payout-store.js';
import type { PayoutMethodRow } from '../store/payout-profile-store.js';
import { cashPayoutsOf } from './cash-payout-settings.js';
import { needsTaxDetails } from './tax-details.js';

const PAGE = 500;

export function presentPayout(r: CashPayoutRow & { email: string }): CashPayout {
  const referral = Number(r.referral_amount);
  const referee = Number(r.referee_amount);
  return {
    id: Number(r.id),
    email: r.email,
    runId: r.run_id,
    amount: referral + referee,
    referralAmount: referral,
    refereeAmount: referee,
    currency: r.currency,
    method: r.method,
    destination: r.destination,
    status: r.status,
    reason: r.reason,
    providerId: r.provider_id,
    createdAt: iso(Number(r.created_on)),
    sentAt: r.sent_on === null ? null : iso(Number(r.sent_on)),
    settledAt: r.settled_on === null ? null : iso(Number(r.settled_on)),
  };
}

/** Where a payout by this method goes, or why the participant cannot be paid by it now. */
function destinationOf(method: PayoutMethodRow | undefined, methods: readonly string[]): { method: 'paypal' | 'stripe_connect'; destination: string } | string {
  if (!method || !methods.includes(method.method)) return 'no payout method';
  if (method.method === 'paypal') return method.paypal_email ? { method: 'paypal', destination: method.paypal_email } : 'no PayPal address';
  if (!method.stripe_account) return 'Stripe account not connected';
  if (method.stripe_payouts_enabled !== 1) return 'Stripe account onboarding not finished';
  return { method: 'stripe_connect', destination: method.stripe_account };
}

/**
 * Makes a run's payouts (createPayouts, and the monthly schedule). `now` is the campaign's time. Answers
 * the payouts made and who was skipped, and why.
 */
export async function makeRun(ctx: Ctx, campaign: CampaignRow, now: number): Promise<CreatePayoutsAnswer> {
  const settings = cashPayoutsOf(campaign);
  if (!settings) throw new AppError(409, 'cash_payouts_off', 'This campaign pays no cash: set its cashPayouts first', 'id');
  const runId = newId('run', 12);
  const payouts: CashPayout[] = [];
  const skipped: CreatePayoutsAnswer['skipped'] = [];
  for (let after = 0; ; ) {
    const page = await ctx.store.cashPayouts.payable(campaign.id, after, PAGE);
    const methods = new Map((await ctx.store.payoutProfiles.methods(page.map((p) => p.participant_id))).map((m) => [m.participant_id, m]));
    for (const balance of page) {
      const made = await payOne(ctx, campaign, balance, methods.get(balance.participant_id), { runId, minimum: settings.minimum, approval: settings.approval, methods: settings.methods }, now);
      if (typeof made === 'string') skipped.push({ email: balance.email, reason: made });
      else payouts.push(presentPayout({ ...made, email: balance.email }));
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.participant_id;
  }
  if (payouts.length > 0) ctx.onEventsCommitted?.();
  return { runId: payouts.length > 0 ? runId : null, payouts, skipped };
}

interface RunRules {
  runId: string;
  minimum: number;
  approval: boolean;
  methods: readonly string[];
}

/** One participant's payout, or why none. */
async function payOne(ctx: Ctx, campaign: CampaignRow, balance: PayableBalance, method: PayoutMethodRow | undefined, rules: RunRules, now: number): Promise<CashPayoutRow | string> {
  const referral = Math.max(0, Number(balance.referral));
  const referee = Math.max(0, Number(balance.referee));
  const amount = referral + referee;
  if (amount < rules.minimum || amount <= 0) return `under the minimum (${amount} of ${rules.minimum} ${campaign.reward_currency})`;
  const to = destinationOf(method, rules.methods);
  if (typeof to === 'string') return to;
  // Held participants are not paid; one whose payout method another participant has is held first.
  if (balance.approval === 0 || (await heldForSharedMethod(ctx, campaign, balance.participant_id, to))) return 'held for review';
  if (await needsTaxDetails(ctx, campaign.account_id, balance.participant_id, amount, campaign.reward_currency, now)) return 'tax details missing';
  const row = await ctx.store.transaction(async (tx) => {
    if (!(await tx.cashPayouts.reserve(balance.participant_id, referral, referee, now))) return undefined;
    return tx.cashPayouts.insert({
      campaign_id: campaign.id,
      participant_id: balance.participant_id,
      run_id: rules.runId,
      referral_amount: referral,
      referee_amount: referee,
      currency: campaign.reward_currency,
      method: to.method,
      destination: to.destination,
      status: rules.approval ? 'pending_approval' : 'sending',
      reason: null,
      idempotency_key: newId('refkit_po', 20),
      // Sent at once: the run is the PayPal batch.
      batch_key: rules.approval ? null : `${rules.runId}-${to.method}`,
      provider_batch_id: null,
      provider_id: null,
      next_attempt_on: rules.approval ? null : now,
      claimed_until: null,
      created_on: now,
      updated_on: now,
      sent_on: null,
      settled_on: null,
    });
  });
  return row ?? 'the balance changed while the run was made';
}

export async function createPayouts(ctx: Ctx, actor: Actor, id: string): Promise<CreatePayoutsAnswer> {
  const campaign = await ownCampaign(ctx, actor, id);
  return makeRun(ctx, campaign, ctx.now());
}

async function withEmails(ctx: Ctx, rows: readonly CashPayoutRow[]): Promise<CashPayout[]> {
  const out: CashPayout[] = [];
  for (const r of rows) out.push(presentPayout({ ...r, email: (await ctx.store.findParticipant(r.participant_id))?.email ?? '' }));
  return out;
}

/** The campaign's payouts of these ids, or 404 for the first unknown one (before anything changes). */
async function payoutsOf(ctx: Ctx, campaignId: string, ids: readonly number[]): Promise<CashPayoutRow[]> {
  const rows = await Promise.all(ids.map((p) => ctx.store.cashPayouts.find(campaignId, p)));
  const missing = ids.find((_, i) => rows[i] === undefined);
  if (missing !== undefined) throw new AppError(404, 'payout_not_found', `This campaign has no payout ${missing}`, 'payoutIds');
  return rows as CashPayoutRow[];
}

/** The payouts as they are now, after a change. */
async function reread(ctx: Ctx, campaignId: string, ids: readonly number[]): Promise<{ payouts: CashPayout[] }> {
  return { payouts: await withEmails(ctx, await payoutsOf(ctx, campaignId, ids)) };
}

/**
 * Approves payouts waiting for approval: they are sent (one PayPal batch per call and method). A payout
 * approved already (by this call's twin, or before) is left as it is and answered as it is now.
 */
export async function approvePayouts(ctx: Ctx, actor: Actor, id: string, payoutIds: readonly number[]): Promise<{ payouts: CashPayout[] }> {
  const campaign = await ownCampaign(ctx, actor, id);
  const rows = await payoutsOf(ctx, campaign.id, payoutIds);
  const now = ctx.now();
  const approval = newId('apr', 12);
  let moved = 0;
  for (const method of ['paypal', 'stripe_connect'] as const) {
    const ids = rows.filter((r) => r.method === method).map((r) => Number(r.id));
    if (ids.length === 0) continue;
    const set = { status: 'sending' as const, batch_key: `${approval}-${method}`, next_attempt_on: now };
    moved += (await ctx.store.cashPayouts.move(campaign.id, ids, 'pending_approval', set, now)).length;
  }
  if (moved > 0) ctx.onEventsCommitted?.();
  return reread(ctx, campaign.id, payoutIds);
}

/** Cancels payouts waiting for approval: their amounts are back on the balances. Others are left as they are. */
export async function cancelPayouts(ctx: Ctx, actor: Actor, id: string, payoutIds: readonly number[]): Promise<{ payouts: CashPayout[] }> {
  const campaign = await ownCampaign(ctx, actor, id);
  await payoutsOf(ctx, campaign.id, payoutIds);
  const now = ctx.now();
  await ctx.store.transaction(async (tx) => {
    const moved = await tx.cashPayouts.move(campaign.id, payoutIds, 'pending_approval', { status: 'cancelled', reason: 'Cancelled by the owner', settled_on: now }, now);
    for (const r of moved) await tx.cashPayouts.release(r, now);
  });
  return reread(ctx, campaign.id, payoutIds);
}

export async function listPayouts(
  ctx: Ctx,
  actor: Actor,
  query: { id: string; status?: CashPayoutStatus; runId?: string; page?: number; pageSize?: number; cursor?: string },
): Promise<PageResult<ListedCashPayout>> {
  const { id, status, runId, ...paging } = query;
  const campaign = await ownCampaign(ctx, actor, id);
  return fetchPage(pageRequest(paging), (start, limit) => ctx.store.cashPayouts.list(campaign.id, { status, runId }, start, limit));
}

/** A participant's own payouts, newest first (the portal; exportPerson). */
export async function participantPayouts(ctx: Ctx, participantId: number): Promise<CashPayout[]> {
  const participant = await ctx.store.findParticipant(participantId);
  const rows = await ctx.store.cashPayouts.ofParticipant(participantId, 100);
  return rows.map((r) => presentPayout({ ...r, email: participant?.email ?? '' }));
}
