/**
 * How a cash payout ends, in one place for the sender (./cash-payout-sender.ts) and the providers'
 * webhooks: `sent` (the provider took it), `paid` (its reservation let go and the amount redeemed from the
 * balances it was taken from: "Paid by PayPal"), or released: `failed`, `returned`, `unclaimed` (the
 * reservation let go: the amount is back on the balance, with the reason). Each is one transaction,
 * conditional on the payout's status (and the sender's claim, when it holds one), with its webhook event
 * and its participant's email (payout_paid, payout_failed): a payout ends once, whoever learns of it first.
 */
import type { Ctx } from '../../kernel/context.js';
import { redeemPaidOut } from '../../rewards/domain/ledger.js';
import { emit } from '../../webhooks/domain/webhook-events.js';
import { payoutEmail, type EndedPayout } from '../../emails/domain/lifecycle-emails.js';
import type { Store } from '../../store/store.js';
import type { CashPayoutStatus } from '../../store/tables.js';
import type { CashPayoutRow } from '../store/cash-payout-store.js';

const PROVIDER = { paypal: 'PayPal', stripe_connect: 'Stripe' } as const;

type Released = Extract<CashPayoutStatus, 'failed' | 'returned' | 'unclaimed'>;

/** Whether the change is made under the sender's claim (`claimed`), or found by the provider's id (a webhook). */
async function change(tx: Store, row: CashPayoutRow, set: Partial<CashPayoutRow>, now: number, claimed: boolean): Promise<boolean> {
  return claimed ? tx.cashPayouts.update(row, { ...set, claimed_until: null }, now) : tx.cashPayouts.settleOpen(Number(row.id), set, now);
}

async function event(tx: Store, type: 'payout_sent' | 'payout_paid' | 'payout_failed', row: CashPayoutRow, status: string, now: number, reason?: string): Promise<boolean> {
  const campaign = await tx.findCampaign(row.campaign_id);
  const participant = await tx.findParticipant(row.participant_id);
  if (!campaign || !participant) return false;
  const payout = {
    payoutId: Number(row.id),
    email: participant.email,
    amount: Number(row.referral_amount) + Number(row.referee_amount),
    currency: row.currency,
    method: row.method,
    status,
    ...(reason !== undefined && { reason }),
  };
  return emit(tx, type, participant, campaign, now, { payout });
}

/** The payout as its participant's email tells it (../../emails/domain/lifecycle-emails.ts). */
const endedPayout = (row: CashPayoutRow): EndedPayout => ({
  id: Number(row.id),
  campaignId: row.campaign_id,
  participantId: row.participant_id,
  amount: Number(row.referral_amount) + Number(row.referee_amount),
  currency: row.currency,
});

export async function markSent(ctx: Ctx, rows: readonly CashPayoutRow[], providerBatchId: string | null, nextPollOn: number): Promise<void> {
  const now = ctx.now();
  const queued = await ctx.store.transaction(async (tx) => {
    let any = false;
    for (const row of rows) {
      const set = { status: 'sent' as const, provider_batch_id: providerBatchId, sent_on: now, next_attempt_on: nextPollOn, reason: null, attempts: row.attempts + 1 };
      if (await change(tx, row, set, now, true)) any = (await event(tx, 'payout_sent', row, 'sent', now)) || any;
    }
    return any;
  });
  if (queued) ctx.onEventsCommitted?.();
}

/** The payout was paid: the reservation goes, and the amount is redeemed from each balance it was taken from. */
export async function markPaid(ctx: Ctx, row: CashPayoutRow, providerId: string, claimed: boolean): Promise<boolean> {
  const now = ctx.now();
  const result = await ctx.store.transaction(async (tx) => {
    const sent = row.sent_on === null ? { sent_on: now } : {};
    if (!(await change(tx, row, { status: 'paid', provider_id: providerId, settled_on: now, next_attempt_on: null, reason: null, ...sent }, now, claimed))) return undefined;
    await tx.lockParticipants([row.participant_id]);
    await tx.cashPayouts.release(row, now);
    const label = `Paid by ${PROVIDER[row.method]} (payout ${row.id}, ${providerId})`;
    await redeemPaidOut(tx, row.participant_id, 'referral', Number(row.referral_amount), label, now);
    await redeemPaidOut(tx, row.participant_id, 'referee', Number(row.referee_amount), label, now);
    const emailed = await payoutEmail(tx, endedPayout(row), 'paid', now);
    // Paid at once (a Stripe transfer is made or not): it was sent too, so a receiver sees every payout sent first.
    const sentNow = row.sent_on === null && (await event(tx, 'payout_sent', row, 'sent', now));
    return (await event(tx, 'payout_paid', row, 'paid', now)) || emailed || sentNow;
  });
  if (result) ctx.onEventsCommitted?.();
  return result !== undefined;
}

/** The payout did not reach the participant: the reservation goes, so the amount is theirs again. */
export async function markReleased(ctx: Ctx, row: CashPayoutRow, status: Released, reason: string, claimed: boolean, providerId?: string): Promise<boolean> {
  const now = ctx.now();
  const result = await ctx.store.transaction(async (tx) => {
    const set = { status, reason, settled_on: now, next_attempt_on: null, ...(providerId !== undefined && { provider_id: providerId }) };
    if (!(await change(tx, row, set, now, claimed))) return undefined;
    await tx.lockParticipants([row.participant_id]);
    await tx.cashPayouts.release(row, now);
    const emailed = await payoutEmail(tx, endedPayout(row), status, now);
    return (await event(tx, 'payout_failed', row, status, now, reason)) || emailed;
  });
  if (result) ctx.onEventsCommitted?.();
  return result !== undefined;
}

/** Payouts that can never be sent as they are (an unsupported currency, an address refused): failed, their amounts released. */
export async function refuse(ctx: Ctx, rows: readonly CashPayoutRow[], reason: string): Promise<void> {
  for (const row of rows) await markReleased(ctx, row, 'failed', reason, true);
}
