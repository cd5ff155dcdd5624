/**
 * Disputes: a referee's payment disputed (a chargeback). A dispute is not a refund: it may be won. While
 * it is open, nothing the payment earned may be paid out:
 *
 * - what is still pending (the payment's commission inside the hold, and, when the dispute is for all
 *   that is left of the qualifying payment, the referral's fixed rewards and the milestones it reached,
 *   both sides, as a full refund would undo them) is **held**: it stays pending past its availableOn
 *   until the dispute closes (reward_entries.held_by_dispute; the releaser skips it);
 * - what is already available (the commission, after the hold) is **reversed at once** in the disputed
 *   share, as Stripe withdraws the disputed funds at once (the balance never below zero, the rest owed).
 *   Fixed rewards after the hold stay, as they do for a refund: that is what the hold is for.
 *
 * Closed **won**: the held credits are let go (those past their date released at once, the others when
 * due) and the commission reversed is given back, exactly once (the close is one conditional update).
 * Closed **lost**: the hold is let go and the disputed amount is refunded through ./refunds.ts, which
 * cancels or reverses what the payment earned and undoes the referral as a refund does.
 *
 * Each dispute is a row (../store/dispute-store.ts) keyed by campaign and dispute id: opening it again
 * changes nothing, closing it again with its outcome changes nothing. A payment has at most one open
 * dispute. Webhook events dispute_opened and dispute_closed are about the payer.
 */
import type { CloseDisputeBody, DisputePaymentBody, DisputeView } from '../../../api/dispute-schemas.js';
import type { DisputeRow } from '../store/dispute-store.js';
import type { PaymentRow } from '../store/payment-store.js';
import type { Store } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { newSortableId } from '../../kernel/ids.js';
import { toCents } from '../../kernel/money.js';
import { getParticipant } from '../../referrals/domain/participants.js';
import { refundPart } from './refunds.js';
import { RewardBatch } from './reward-credits.js';
import { commissionKept } from './reward-rules.js';
import { iso } from '../../kernel/time.js';
import { emit } from '../../webhooks/domain/webhook-events.js';

const money = (cents: number) => (cents / 100).toFixed(2);
const disputeNotFound = () => new AppError(404, 'not_found', 'This campaign has no dispute with this id', 'disputeId');

/** The dispute as a webhook event's `data.dispute`. */
const eventDispute = (d: Pick<DisputeRow, 'id' | 'payment_id' | 'amount_cents' | 'status'>) => ({
  dispute: { id: d.id, paymentId: Number(d.payment_id), amount: Number(d.amount_cents) / 100, status: d.status },
});

/** Runs `fn` in one transaction (joining the caller's, e.g. a Stripe event's); webhooks nudged after the commit. */
async function inTransaction<T>(ctx: Ctx, fn: (tx: Store) => Promise<[T, boolean]>): Promise<T> {
  const [result, queued] = await ctx.store.transaction(fn);
  if (queued) ctx.onEventsCommitted?.();
  return result;
}

/** The payment a dispute is about: the one named, else the payer's latest with something left to refund. */
async function disputedPayment(tx: Store, payerId: number, paymentId: number | undefined): Promise<PaymentRow> {
  if (paymentId !== undefined) {
    const p = await tx.payments.find(payerId, paymentId);
    if (!p) throw new AppError(404, 'not_found', 'This participant has no payment with this id', 'paymentId');
    return p;
  }
  const [latest] = await tx.payments.refundable(payerId);
  if (!latest) throw new AppError(409, 'dispute_exceeds_payment', 'This participant has no payment left to dispute', 'amount');
  return latest;
}

/**
 * Opens a dispute of a referee's payment (disputePayment, and Stripe's charge.dispute.created): holds what
 * is pending and reverses what is available of what it earned. Idempotent on the dispute id.
 */
export async function disputePayment(ctx: Ctx, actor: Actor, input: DisputePaymentBody): Promise<DisputeView> {
  const { participant, campaign } = await getParticipant(ctx, actor, input.id, input.email);
  const cents = toCents(input.amount);
  if (cents === 0) throw invalid('amount', 'amount must be more than 0');
  const disputeId = input.disputeId ?? newSortableId('dsp', 12, ctx.now());
  const referrerId = participant.referred_by_id;
  const payerId = participant.id;
  const row = await inTransaction(ctx, async (tx) => {
    const now = ctx.now();
    const states = await tx.lockParticipants(referrerId === null ? [payerId] : [referrerId, payerId]);
    const known = await tx.disputes.find(campaign.id, disputeId);
    if (known) return [known, false];
    const p = await disputedPayment(tx, payerId, input.paymentId);
    const left = p.amount_cents - p.refunded_cents;
    if (cents > left) throw new AppError(409, 'dispute_exceeds_payment', `The dispute is for more than is left of payment ${p.id} (${money(left)})`, 'amount');
    if (await tx.disputes.openOfPayment(p.id)) throw new AppError(409, 'dispute_open', `Payment ${p.id} has an open dispute already: close it first`, 'paymentId');
    const d: DisputeRow = { campaign_id: campaign.id, id: disputeId, participant_id: payerId, payment_id: p.id, amount_cents: cents, reversed: 0, status: 'open', opened_on: now, closed_on: null };
    await tx.disputes.open(d);
    const batch = new RewardBatch(tx, campaign, now, states, ctx.metrics);
    if (referrerId !== null) d.reversed = await holdOrReverse(tx, batch, d, p, referrerId);
    let queued = await batch.commit();
    if (await emit(tx, 'dispute_opened', payerId, campaign, now, eventDispute(d))) queued = true;
    return [d, queued];
  });
  return presentDispute(ctx.store, row, participant.email, referrerId);
}

/** Holds the pending credits a dispute's payment earned and reverses the available ones; answers what was reversed. */
async function holdOrReverse(tx: Store, batch: RewardBatch, d: DisputeRow, p: PaymentRow, referrerId: number): Promise<number> {
  const held: number[] = [];
  let reversed = 0;
  const commission = await tx.rewardEntries.ofPayment(p.id, 'commission');
  if (commission?.status === 'pending') held.push(commission.id);
  else if (commission) {
    reversed = p.commission - p.commission_reversed - commissionKept(p.commission, p.amount_cents, p.refunded_cents + d.amount_cents);
    if (reversed > 0) {
      await batch.reverse(referrerId, 'referral', reversed, `Commission on payment ${p.seq} reversed: disputed (${d.id})`, p.participant_id, p.id);
      await tx.payments.reverseCommission(p.id, reversed);
      await tx.disputes.setReversed(d.campaign_id, d.id, reversed);
    }
  }
  // All that is left of the qualifying payment: a loss would undo the referral (./refunds.ts), so its pending rewards wait too.
  if (p.qualifying === 1 && p.refunded_cents + d.amount_cents === p.amount_cents) {
    held.push(...(await tx.rewardEntries.pendingOfReferral(p.participant_id)).map((e) => e.id));
  }
  await tx.disputes.hold(held, d.id);
  return Math.max(0, reversed);
}

/**
 * Closes a dispute (closeDispute, and Stripe's charge.dispute.closed). Won: what it held is let go and
 * what it reversed given back. Lost: a refund of its amount. Closing it again with the same outcome
 * changes nothing; with the other, 409.
 */
export async function closeDispute(ctx: Ctx, actor: Actor, input: CloseDisputeBody): Promise<DisputeView> {
  const campaign = await ownCampaign(ctx, actor, input.id);
  const found = await ctx.store.disputes.find(campaign.id, input.disputeId);
  if (!found) throw disputeNotFound();
  const payer = await ctx.store.findParticipant(Number(found.participant_id));
  if (!payer) throw disputeNotFound();
  const referrerId = payer.referred_by_id;
  const row = await inTransaction(ctx, async (tx) => {
    const now = ctx.now();
    const states = await tx.lockParticipants(referrerId === null ? [payer.id] : [referrerId, payer.id]);
    const d = (await tx.disputes.find(campaign.id, input.disputeId))!;
    if (d.status === input.outcome) return [d, false];
    if (d.status !== 'open') throw new AppError(409, 'invalid_transition', `This dispute was closed ${d.status} already`, 'outcome');
    if (!(await tx.disputes.close(campaign.id, d.id, input.outcome, now))) throw new AppError(409, 'invalid_transition', 'This dispute was closed meanwhile', 'outcome');
    const closed: DisputeRow = { ...d, status: input.outcome, closed_on: now };
    const batch = new RewardBatch(tx, campaign, now, states, ctx.metrics);
    const involved = referrerId === null ? [payer.id] : [referrerId, payer.id];
    await tx.disputes.letGo(involved, d.id);
    if (input.outcome === 'won') await giveBack(tx, batch, closed, involved, referrerId);
    else await refundLost(tx, batch, closed, referrerId);
    let queued = await batch.commit();
    if (await emit(tx, 'dispute_closed', payer.id, campaign, now, eventDispute(closed))) queued = true;
    return [closed, queued];
  });
  return presentDispute(ctx.store, row, payer.email, referrerId);
}

/**
 * A dispute won: held credits already due are released now, and the commission reversed is given back:
 * what it reversed, less what a refund made meanwhile takes back of it (./refunds.ts reversalDue), so the
 * payment keeps its commission on what is neither refunded nor lost.
 */
async function giveBack(tx: Store, batch: RewardBatch, d: DisputeRow, involved: number[], referrerId: number | null): Promise<void> {
  for (const id of involved) await batch.released(await tx.rewardEntries.release(id, batch.now));
  if (Number(d.reversed) === 0 || referrerId === null) return;
  const p = (await tx.payments.find(Number(d.participant_id), Number(d.payment_id)))!;
  const due = p.commission - commissionKept(p.commission, p.amount_cents, p.refunded_cents);
  const back = Math.min(Number(d.reversed), p.commission_reversed - due);
  if (back <= 0) return;
  await tx.payments.reverseCommission(p.id, -back);
  await batch.restore(referrerId, 'referral', back, `Commission on payment ${p.seq} given back: dispute ${d.id} won`, p.participant_id, p.id);
}

/** A dispute lost: a refund of its amount (of what is left of the payment, if a refund took some meanwhile). */
async function refundLost(tx: Store, batch: RewardBatch, d: DisputeRow, referrerId: number | null): Promise<void> {
  const p = (await tx.payments.find(Number(d.participant_id), Number(d.payment_id)))!;
  const cents = Math.min(Number(d.amount_cents), p.amount_cents - p.refunded_cents);
  if (cents > 0) await refundPart(batch, p, cents, referrerId, false);
}

/** A participant's disputes as the payer, newest first (the dashboard's participant page). */
export async function listDisputes(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<{ disputes: DisputeView[] }> {
  const { participant } = await getParticipant(ctx, actor, campaignId, email);
  const rows = await ctx.store.disputes.ofParticipant(participant.id, 100);
  const disputes: DisputeView[] = [];
  for (const r of rows) disputes.push(await presentDispute(ctx.store, r, participant.email, participant.referred_by_id));
  return { disputes };
}

async function presentDispute(store: Store, d: DisputeRow, email: string, referrerId: number | null): Promise<DisputeView> {
  const payer = Number(d.participant_id);
  const p = await store.payments.find(payer, Number(d.payment_id));
  const held = d.status === 'open' ? await store.disputes.held(referrerId === null ? [payer] : [referrerId, payer], d.id) : 0;
  return {
    id: d.id,
    participantEmail: email,
    paymentId: Number(d.payment_id),
    paymentSeq: p?.seq ?? 0,
    amount: money(Number(d.amount_cents)),
    status: d.status,
    reversed: Number(d.reversed),
    held,
    openedOn: iso(Number(d.opened_on)),
    ...(d.closed_on !== null && { closedOn: iso(Number(d.closed_on)) }),
  };
}

