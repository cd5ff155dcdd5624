/**
 * Sales from beyond Stripe: one core that every payment provider's adapter feeds (./paddle-source.ts and the
 * others in SOURCES). An adapter verifies a delivery against the campaign's write-only secret for it, and
 * reads its provider's event into one shape (SourceEvent: a payment, refund or dispute, its amount and
 * currency, the amount the provider settled in the shop's currency when it gives one, the customer, email,
 * and the referral codes it carries). The core then does what Stripe's receiver does (./stripe-events.ts):
 *
 * - the event is kept once per provider event (claimed and applied in one transaction: a replay, or a retry
 *   after a crash, is a duplicate), then applied by the rules every source shares (./payment-apply.ts);
 * - an amount in another currency than the campaign's rewardCurrency is converted with what the provider
 *   itself settled in the campaign's currency when it says so, else kept `held` with the reason, never 1:1;
 * - a referral code used as a discount code (Shopify's) makes an unknown buyer its owner's referee, as a
 *   Stripe promotion code does (../../promotions/domain/code-attribution.ts);
 * - an event for nobody is kept `unmatched`, for the owner to match by hand (matchPaymentEvent).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PAYMENT_PROVIDERS, PROVIDER_SECRET_FIELDS, type PaymentEventView, type PaymentProvider } from '../../../api/payment-source-schemas.js';
import { paymentSecretsOf } from './payment-secrets.js';
import type { PaymentEventRow } from '../store/payment-event-store.js';
import { findCampaign, ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { AppError, invalid, participantNotFound } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';
import { normalizeCode } from '../../referrals/domain/participants.js';
import { referBuyer } from '../../promotions/domain/code-attribution.js';
import { inTransaction } from '../../kernel/in-transaction.js';
import { applyToParticipant, participantNamed, paymentApplicable, type PaymentAction } from './payment-apply.js';
import { convert } from './exchange-rates.js';
import { listStripeEvents, matchStripeEvent, type Received } from './stripe-events.js';

/** What an adapter reads of its provider's event. */
export interface SourceEvent {
  /** The provider's event id, or what stands for one: each is applied once. */
  id: string;
  type: string;
  action: PaymentAction | null;
  /** Hundredths of `currency` (a currency's minor units converted as Stripe's are). */
  amountCents: number | null;
  currency: string | null;
  /** The same amount as the provider settled or reported it in the shop's currency, when it gives it. */
  settled?: { cents: number; currency: string } | undefined;
  email: string | null;
  /** The paying participant's own referral code (the checkout's custom data). */
  code: string | null;
  /** A code used as a discount code: when it is a participant's, they are the buyer's referrer. */
  referrerCode?: string | null;
  /** The provider's customer id. */
  customer: string | null;
  /** The provider's order or transaction id: a later refund of it names the same participant. */
  reference: string | null;
  /** Set when a refund's amount is the running total of its order's refunds. */
  refundIsTotal?: boolean;
  dispute?: string | null;
  /** Why a signed event cannot be read (kept as ignored, answered 200). */
  odd?: string;
}

/** A provider's adapter: how its deliveries are verified, and what its events mean. */
export interface PaymentSource {
  provider: PaymentProvider;
  /** Throws 400 invalid_signature unless the delivery is signed (or authenticated) with `secret`. */
  verify(body: Buffer, headers: IncomingHttpHeaders, secret: string): void;
  /** The event, or undefined for a type Refkit does not act on (answered 200 and not kept). */
  read(payload: unknown, headers: IncomingHttpHeaders): SourceEvent | undefined;
}

export const invalidSignature = (message: string) => new AppError(400, 'invalid_signature', message);

const linkKeys = (provider: string, e: Pick<SourceEvent, 'customer' | 'reference'>) =>
  [e.customer && `${provider}:customer:${e.customer}`, e.reference && `${provider}:order:${e.reference}`].filter((k): k is string => !!k);

/** Verifies and applies one delivery of a provider's webhook to a campaign. */
export async function receivePaymentEvent(ctx: Ctx, source: PaymentSource, campaignId: string, body: Buffer, headers: IncomingHttpHeaders): Promise<Received> {
  const campaign = await findCampaign(ctx, campaignId);
  const secret = paymentSecretsOf(campaign)[source.provider];
  if (secret === undefined) throw invalidSignature(`This campaign has no ${source.provider} secret: set ${PROVIDER_SECRET_FIELDS[source.provider]} (updateCampaign, the CLI or the dashboard)`);
  source.verify(body, headers, secret);
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid('body', 'The body is not JSON');
  }
  const e = source.read(payload, headers);
  if (!e) return { outcome: 'ignored' };
  const { provider } = source;
  const keys = linkKeys(provider, e);
  // A participant's code used as the discount code: an unknown buyer becomes its owner's referee first.
  let note: string | undefined;
  if (!e.odd && e.referrerCode && e.action === 'payment' && !(await ctx.store.paymentEvents.find(campaign.id, provider, e.id))) {
    const owner = await ctx.store.codeOwner(campaign.id, normalizeCode(e.referrerCode));
    const ownerRow = owner && (await ctx.store.findParticipant(owner.id));
    if (ownerRow) note = await referBuyer(ctx, campaign, ownerRow, normalizeCode(e.referrerCode), { email: e.email, customerKey: keys[0] ?? null });
  }
  const conversion = await convert(ctx, campaign, e);
  return inTransaction(ctx, async (tx) => {
    const now = tx.now();
    const row: PaymentEventRow = {
      campaign_id: campaign.id,
      provider,
      id: e.id,
      type: e.type,
      status: e.odd ? 'ignored' : 'unmatched',
      action: e.action,
      amount_cents: e.amountCents,
      currency: e.currency,
      converted_cents: 'held' in conversion || conversion.rate === null ? null : conversion.cents,
      rate: 'held' in conversion ? null : conversion.rate,
      email: e.email,
      code: e.code,
      referrer_code: e.referrerCode ?? null,
      customer: e.customer,
      reference: e.reference,
      link_keys: JSON.stringify(keys),
      refund_total_key: e.refundIsTotal && e.reference ? `${provider}:order:${e.reference}` : null,
      dispute: e.dispute ?? null,
      participant_id: null,
      reason: e.odd ?? null,
      created_on: now,
      applied_on: null,
    };
    if (!(await tx.store.paymentEvents.claim(row))) return { outcome: 'duplicate' };
    if (e.odd) return { outcome: 'ignored', reason: e.odd };
    const participant = await participantNamed(tx, campaign, { code: e.code, email: e.email, linkKeys: keys });
    if ('held' in conversion && e.action !== null) {
      await tx.store.paymentEvents.settle(campaign.id, provider, e.id, { status: 'held', participant_id: participant?.id ?? null, reason: conversion.held, applied_on: null });
      return { outcome: 'held', reason: conversion.held };
    }
    if (!participant) {
      await tx.store.paymentEvents.settle(campaign.id, provider, e.id, { status: 'unmatched', participant_id: null, reason: 'No participant of this campaign has its referral code, customer or email', applied_on: null });
      return { outcome: 'unmatched' };
    }
    const done = await applyToParticipant(tx, campaign, paymentApplicable(row), participant);
    const reason = [note, done.reason].filter(Boolean).join('. ') || null;
    await tx.store.paymentEvents.settle(campaign.id, provider, e.id, { status: done.status, reason, participant_id: participant.id, applied_on: now });
    const told = done.status === 'ignored' ? reason : note;
    return { outcome: done.status, ...(told && { reason: told }) };
  });
}

/** The provider and the provider's id of an id listPaymentEvents shows (`paddle:evt_...`). */
function splitEventId(eventId: string): [string, string] {
  const at = eventId.indexOf(':');
  const provider = at === -1 ? '' : eventId.slice(0, at);
  if (provider !== 'stripe' && !(PAYMENT_PROVIDERS as readonly string[]).includes(provider)) {
    throw new AppError(404, 'not_found', 'This campaign received no payment event with this id (ids are <provider>:<id>, as listPaymentEvents shows them)', 'eventId');
  }
  return [provider, eventId.slice(at + 1)];
}

/** Applies an unmatched event to the participant with `email` (the owner matched it by hand). */
export async function matchPaymentEvent(ctx: Ctx, actor: Actor, campaignId: string, eventId: string, email: string): Promise<PaymentEventView> {
  const [provider, id] = splitEventId(eventId);
  if (provider === 'stripe') return { ...(await matchStripeEvent(ctx, actor, campaignId, id, email)), id: eventId, provider };
  const campaign = await ownCampaign(ctx, actor, campaignId);
  return inTransaction(ctx, async (tx) => {
    const row = await tx.store.paymentEvents.find(campaign.id, provider, id);
    if (!row) throw new AppError(404, 'not_found', 'This campaign received no payment event with this id', 'eventId');
    if (row.status !== 'unmatched') throw new AppError(409, 'invalid_transition', `This event is ${row.status}: only an unmatched one can be matched`, 'eventId');
    const participant = await tx.store.findParticipantByEmail(campaign.id, normalizeEmail(email));
    if (!participant) throw participantNotFound();
    const done = await applyToParticipant(tx, campaign, paymentApplicable(row), participant);
    const settled = { ...done, participant_id: participant.id, applied_on: tx.now() };
    await tx.store.paymentEvents.settle(campaign.id, provider, id, settled);
    return present({ ...row, ...settled }, participant.email);
  });
}

/** A campaign's payment events from every source (Stripe's too), newest first. */
export async function listPaymentEvents(ctx: Ctx, actor: Actor, campaignId: string, provider: string | undefined, status: PaymentEventRow['status'] | undefined, limit: number): Promise<PaymentEventView[]> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const stripe = provider === undefined || provider === 'stripe' ? (await listStripeEvents(ctx, actor, campaignId, status, limit)).map((e) => ({ ...e, id: `stripe:${e.id}`, provider: 'stripe' })) : [];
  const rows = provider === 'stripe' ? [] : await ctx.store.paymentEvents.list(campaign.id, provider, status, limit);
  const emails = new Map<number, string>();
  for (const r of rows) {
    if (r.participant_id !== null && !emails.has(r.participant_id)) emails.set(r.participant_id, (await ctx.store.findParticipant(r.participant_id))?.email ?? '');
  }
  const others = rows.map((r) => present(r, r.participant_id === null ? undefined : emails.get(r.participant_id)));
  return [...stripe, ...others].sort((a, b) => b.receivedOn.localeCompare(a.receivedOn)).slice(0, limit);
}

const money = (cents: number) => (cents / 100).toFixed(2);

function present(r: PaymentEventRow, participantEmail: string | undefined): PaymentEventView {
  return {
    id: `${r.provider}:${r.id}`,
    provider: r.provider,
    type: r.type,
    status: r.status,
    ...(r.action && { action: r.action }),
    ...(r.amount_cents !== null && { amount: money(r.amount_cents) }),
    ...(r.currency && { currency: r.currency }),
    ...(r.converted_cents !== null && { convertedAmount: money(r.converted_cents) }),
    ...(r.rate && { rate: r.rate }),
    ...(r.email && { email: r.email }),
    ...(r.code && { code: r.code }),
    ...(r.referrer_code && { referrerCode: r.referrer_code }),
    ...(participantEmail && { participantEmail }),
    ...(r.reason && { reason: r.reason }),
    receivedOn: iso(r.created_on),
  };
}
