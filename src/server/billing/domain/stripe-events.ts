/**
 * Stripe in: a campaign's Stripe account sends its webhook events here, and they qualify, pay and
 * reverse referrals with no code on the host's backend.
 *
 * - `invoice.paid` and a paid `checkout.session.completed` of mode `payment`: a payment of the
 *   participant (what Stripe says was paid), which qualifies them on the first and earns commissions.
 *   A subscription's checkout (mode `subscription`) only introduces its customer: its payments arrive as
 *   `invoice.paid`, so that the first one is not counted twice.
 * - `charge.refunded` (what was refunded since the last one: Stripe sends the running total): a refund,
 *   reversed as the ledger says (../../rewards/domain/refunds.ts).
 * - `charge.dispute.created`: a dispute of the disputed amount, and `charge.dispute.closed` (status won,
 *   or warning_closed: an inquiry that never became a chargeback; or lost) closes it (../../rewards/domain/disputes.ts).
 *   The dispute id is Stripe's, so a dispute is opened and closed once whatever events repeat it.
 *
 * The participant is the one whose referral code the event carries (`client_reference_id`, or
 * `metadata.refkit_code` on the object or its subscription), else the one an earlier event tied to the
 * customer, charge or payment intent, else the one with the customer's email. An event for nobody is
 * kept as unmatched (answered 200: Stripe must not retry it), to be matched by hand.
 *
 * Each event is verified with the official `stripe` package against the campaign's signing secret, and
 * applied once however often Stripe sends it: the event's row is claimed and its effect written in one
 * transaction, so a replay finds the row and changes nothing, even after a crash.
 */
import Stripe from 'stripe';
import { REFKIT_CODE_METADATA, STRIPE_EVENT_TYPES, type StripeEventView } from '../../../api/billing-schemas.js';
import type { StripeEventRow } from '../store/stripe-store.js';
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import { findCampaign, ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { AppError, participantNotFound } from '../../kernel/errors.js';
import { inTransaction } from '../../kernel/in-transaction.js';
import { applyToParticipant, participantNamed, stripeApplicable, stripeLinkKeys } from './payment-apply.js';
import { convert } from './exchange-rates.js';
import { cardOf, settlementOf, stripeCharge } from './stripe-settlement.js';
import { iso } from '../../kernel/time.js';
import { hundredths } from './stripe-currency.js';
import { attributeByCode } from '../../promotions/domain/code-attribution.js';

/** How far a signature's time may be from the server's, either way: Stripe's default tolerance. */
const SIGNATURE_TOLERANCE_S = 300;

/** Verification needs no API key: the package's webhook helpers are local HMAC checks. */
const stripe = new Stripe('sk_refkit_webhooks_only');

const money = (cents: number) => (cents / 100).toFixed(2);
const idOf = (x: string | { id: string } | null | undefined) => (typeof x === 'string' ? x : (x?.id ?? null));

/** What an event means for Refkit: the row to keep, with why it is ignored when it cannot be applied; undefined for the types it does not handle. */
type Reading = Omit<StripeEventRow, 'campaign_id' | 'status' | 'participant_id' | 'reason' | 'created_on' | 'applied_on' | 'converted_cents' | 'rate'> & { odd?: string; discounts?: Discounts };

/** A payment's discounts: the promotion codes it names, or (an invoice's, sent as ids) the invoice to read them from. */
interface Discounts {
  promotionCodes: string[];
  invoiceToRead?: string;
}

/** A checkout's discounts ({coupon, promotion_code}), or an invoice's (discount ids, or Discount objects when expanded). */
function discountsOf(list: unknown, invoice?: string): Discounts {
  const entries = Array.isArray(list) ? (list as unknown[]) : [];
  const promotionCodes = entries.flatMap((d) => {
    const code = d !== null && typeof d === 'object' ? idOf((d as { promotion_code?: string | { id: string } | null }).promotion_code) : null;
    return code ? [code] : [];
  });
  const unread = invoice !== undefined && promotionCodes.length === 0 && entries.some((d) => typeof d === 'string');
  return { promotionCodes, ...(unread && { invoiceToRead: invoice }) };
}

/** The event types Refkit applies (read below). */
const HANDLED = new Set<string>(STRIPE_EVENT_TYPES);

/**
 * Why a signed event of a handled type cannot be read, if it cannot: Stripe counts money in whole
 * numbers of a currency's smallest unit, never below zero, always with a currency. An event otherwise
 * (a hand-made one, or a shape Stripe has not sent) is kept as ignored with this reason, and answered
 * 200 so that it is not sent again for days.
 */
function oddity(event: Stripe.Event): string | undefined {
  const o = event.data?.object as unknown as Record<string, unknown> | null | undefined;
  if (o === null || typeof o !== 'object') return 'The event carries no object';
  const field = { 'checkout.session.completed': 'amount_total', 'invoice.paid': 'amount_paid', 'charge.refunded': 'amount_refunded' }[event.type as string] ?? 'amount';
  const amount = o[field];
  // A checkout's amount_total may be null (nothing to pay); every other amount is Stripe's integer.
  if (!(amount === null && field === 'amount_total') && !(Number.isSafeInteger(amount) && (amount as number) >= 0)) {
    return `Its ${field} (${JSON.stringify(amount)}) is not a whole, non-negative number of the currency's smallest unit`;
  }
  if (typeof o.currency !== 'string' || !/^[a-z]{3}$/i.test(o.currency)) return 'It names no currency';
  return undefined;
}

function read(event: Stripe.Event): Reading | undefined {
  if (!HANDLED.has(event.type)) return undefined;
  const base = { id: event.id, type: event.type, email: null, code: null, customer: null, charge: null, payment_intent: null, amount_cents: null, currency: null, dispute: null, promotion_code: null };
  const odd = oddity(event);
  if (odd) return { ...base, action: null, odd };
  switch (event.type) {
    case 'checkout.session.completed': {
      const s = event.data.object;
      const paid = s.mode === 'payment' && s.payment_status === 'paid';
      return {
        ...base,
        action: paid ? 'payment' : null,
        amount_cents: paid ? hundredths(s.amount_total ?? 0, s.currency ?? 'usd') : null,
        currency: s.currency,
        email: s.customer_details?.email ?? s.customer_email ?? null,
        code: s.client_reference_id ?? s.metadata?.[REFKIT_CODE_METADATA] ?? null,
        customer: idOf(s.customer),
        payment_intent: idOf(s.payment_intent),
        discounts: discountsOf(s.discounts),
      };
    }
    case 'invoice.paid': {
      const i = event.data.object as Stripe.Invoice & { charge?: string | { id: string } | null; payment_intent?: string | { id: string } | null };
      return {
        ...base,
        action: 'payment',
        amount_cents: hundredths(i.amount_paid, i.currency),
        currency: i.currency,
        email: i.customer_email ?? null,
        code: i.metadata?.[REFKIT_CODE_METADATA] ?? i.parent?.subscription_details?.metadata?.[REFKIT_CODE_METADATA] ?? null,
        customer: idOf(i.customer),
        charge: idOf(i.charge),
        payment_intent: idOf(i.payment_intent),
        discounts: discountsOf(i.discounts, i.id),
      };
    }
    case 'charge.refunded': {
      const c = event.data.object;
      return {
        ...base,
        action: 'refund',
        // The charge's refunds in all, so far (apply takes the part not taken yet).
        amount_cents: hundredths(c.amount_refunded, c.currency),
        currency: c.currency,
        email: c.billing_details?.email ?? c.receipt_email ?? null,
        code: c.metadata?.[REFKIT_CODE_METADATA] ?? null,
        customer: idOf(c.customer),
        charge: c.id,
        payment_intent: idOf(c.payment_intent),
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const d = event.data.object;
      return {
        ...base,
        action: event.type === 'charge.dispute.created' ? 'dispute' : disputeOutcome(d.status),
        amount_cents: hundredths(d.amount, d.currency),
        currency: d.currency,
        charge: idOf(d.charge),
        payment_intent: idOf(d.payment_intent),
        dispute: d.id,
      };
    }
    default:
      return undefined;
  }
}

/** What a closed dispute's status means: won (or an inquiry closed with no chargeback), lost, or nothing to do. */
function disputeOutcome(status: Stripe.Dispute.Status): Reading['action'] {
  if (status === 'won' || status === 'warning_closed') return 'dispute_won';
  return status === 'lost' ? 'dispute_lost' : null;
}

const apply = (ctx: Ctx, campaign: CampaignRow, r: StripeEventRow, participant: ParticipantRow) => applyToParticipant(ctx, campaign, stripeApplicable(r), participant);
const participantOf = (ctx: Ctx, campaign: CampaignRow, r: StripeEventRow) => participantNamed(ctx, campaign, { code: r.code, email: r.email, linkKeys: stripeLinkKeys(r) });

export interface Received {
  /** What became of the event: applied, unmatched, held (another currency), ignored (a type Refkit does not handle, or nothing to do), or duplicate. */
  outcome: StripeEventRow['status'] | 'duplicate';
  /** Why it was held or ignored, when it was kept. */
  reason?: string;
}

/** Verifies and applies one delivery of a Stripe webhook to a campaign. */
export async function receiveStripeEvent(ctx: Ctx, campaignId: string, body: Buffer, signature: string | undefined): Promise<Received> {
  const campaign = await findCampaign(ctx, campaignId);
  if (!campaign.stripe_webhook_secret) {
    throw new AppError(400, 'invalid_signature', 'This campaign has no Stripe webhook secret: set stripeWebhookSecret (updateCampaign, the CLI or the dashboard) to the endpoint\'s signing secret');
  }
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(body, signature ?? '', campaign.stripe_webhook_secret, SIGNATURE_TOLERANCE_S);
  } catch (err) {
    throw new AppError(400, 'invalid_signature', `The Stripe-Signature header does not verify with this campaign's signing secret: ${(err as Error).message}`);
  }
  // The package refuses a signature older than the tolerance, not one dated ahead of it: a signature made
  // for later (a clock far ahead, or one prepared to be replayed then) is refused the same way.
  const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature ?? '')?.[1]);
  if (signedAt * 1000 > Date.now() + SIGNATURE_TOLERANCE_S * 1000) {
    throw new AppError(400, 'invalid_signature', `The Stripe-Signature header is dated more than ${SIGNATURE_TOLERANCE_S / 60} minutes ahead of this server's clock`);
  }
  const reading = read(event);
  if (!reading) return { outcome: 'ignored' };
  const { odd, discounts, ...fields } = reading;
  // What needs Stripe or other writes is read first, outside the transaction, and only for an event not
  // recorded already: a redelivery costs one read (the claim below still decides a race between two).
  const fresh = !odd && !(await ctx.store.stripe.find(campaign.id, event.id));
  // A payment with a participant's promotion code: its buyer made their referee first (attribution by code).
  const coded = fresh && discounts ? await attributeByCode(ctx, campaign, { ...discounts, email: fields.email, customer: fields.customer }) : undefined;
  // Another currency than the campaign's: what the charge settled at in the balance currency. A payment's
  // charge also tells the card it was paid with (self-referral by payment).
  const foreign = fresh && !!fields.amount_cents && !!fields.currency && fields.currency.toUpperCase() !== campaign.reward_currency;
  const charge = foreign || (fresh && fields.action === 'payment') ? await stripeCharge(ctx, campaign, fields, foreign) : undefined;
  const settled = foreign ? settlementOf(charge, fields.amount_cents!) : undefined;
  return inTransaction(ctx, async (tx) => {
    const now = tx.now();
    const row: StripeEventRow = {
      ...fields,
      promotion_code: coded?.promotionCode ?? null,
      converted_cents: null,
      rate: null,
      campaign_id: campaign.id,
      status: 'unmatched',
      participant_id: null,
      reason: null,
      created_on: now,
      applied_on: null,
    };
    if (odd) row.status = 'ignored';
    if (!(await tx.store.stripe.claim(odd ? { ...row, reason: odd } : row))) return { outcome: 'duplicate' };
    if (odd) return { outcome: 'ignored', reason: odd };
    const participant = await participantOf(tx, campaign, row);
    // Another currency than the campaign's: converted by the account's rates, else held (./exchange-rates.ts).
    const conversion = moneyMoves(row) ? await convert(tx, campaign, { amountCents: row.amount_cents, currency: row.currency, settled }) : { cents: row.amount_cents, rate: null };
    if ('held' in conversion) {
      await tx.store.stripe.settle(campaign.id, row.id, { status: 'held', participant_id: participant?.id ?? null, reason: conversion.held, applied_on: null });
      return { outcome: 'held', reason: conversion.held };
    }
    if (conversion.rate !== null && conversion.cents !== null) {
      row.converted_cents = conversion.cents;
      row.rate = conversion.rate;
      await tx.store.stripe.setConverted(campaign.id, row.id, conversion.cents, conversion.rate);
    }
    if (!participant) {
      await tx.store.stripe.settle(campaign.id, row.id, { status: 'unmatched', participant_id: null, reason: 'No participant of this campaign has its referral code, customer or email', applied_on: null });
      return { outcome: 'unmatched' };
    }
    const done = await applyToParticipant(tx, campaign, { ...stripeApplicable(row), card: cardOf(charge) }, participant);
    // Why its promotion code did not attribute it, then what applying it had to tell.
    const reason = [coded?.note, done.reason].filter(Boolean).join('. ') || null;
    await tx.store.stripe.settle(campaign.id, row.id, { ...done, reason, participant_id: participant.id, applied_on: now });
    const told = done.status === 'ignored' ? reason : coded?.note;
    return { outcome: done.status, ...(told && { reason: told }) };
  });
}

/** Whether an event moves money, whose currency then matters (a payment, refund or dispute). */
const moneyMoves = (r: StripeEventRow) => (r.action === 'payment' || r.action === 'refund' || r.action === 'dispute') && !!r.amount_cents && !!r.currency;

/** Applies an unmatched event to the participant with `email` (the owner matched it by hand). */
export async function matchStripeEvent(ctx: Ctx, actor: Actor, campaignId: string, eventId: string, email: string): Promise<StripeEventView> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  return inTransaction(ctx, async (tx) => {
    const row = await tx.store.stripe.find(campaign.id, eventId);
    if (!row) throw new AppError(404, 'not_found', 'This campaign received no Stripe event with this id', 'eventId');
    if (row.status !== 'unmatched') throw new AppError(409, 'invalid_transition', `This event is ${row.status}: only an unmatched one can be matched`, 'eventId');
    const participant = await tx.store.findParticipantByEmail(campaign.id, normalizeEmail(email));
    if (!participant) throw participantNotFound();
    const done = await apply(tx, campaign, row, participant);
    const settled = { ...done, participant_id: participant.id, applied_on: tx.now() };
    await tx.store.stripe.settle(campaign.id, row.id, settled);
    return presentStripeEvent({ ...row, ...settled }, participant.email);
  });
}

export async function listStripeEvents(ctx: Ctx, actor: Actor, campaignId: string, status: StripeEventRow['status'] | undefined, limit: number): Promise<StripeEventView[]> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const rows = await ctx.store.stripe.list(campaign.id, status, limit);
  const emails = new Map<number, string>();
  for (const r of rows) {
    if (r.participant_id !== null && !emails.has(r.participant_id)) emails.set(r.participant_id, (await ctx.store.findParticipant(r.participant_id))?.email ?? '');
  }
  return rows.map((r) => presentStripeEvent(r, r.participant_id === null ? undefined : emails.get(r.participant_id)));
}

function presentStripeEvent(r: StripeEventRow, participantEmail: string | undefined): StripeEventView {
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    ...(r.action && { action: r.action }),
    ...(r.amount_cents !== null && { amount: money(r.amount_cents) }),
    ...(r.currency && { currency: r.currency.toUpperCase() }),
    ...(r.email && { email: r.email }),
    ...(r.code && { code: r.code }),
    ...(r.promotion_code && { promotionCode: r.promotion_code }),
    ...(participantEmail && { participantEmail }),
    ...(r.reason && { reason: r.reason }),
    receivedOn: iso(r.created_on),
  };
}
