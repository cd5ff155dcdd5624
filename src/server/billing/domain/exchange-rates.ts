/**
 * Payments in another currency than the campaign's rewardCurrency, converted, never taken 1:1. In order:
 * the amount the provider itself settled or reported in the campaign's currency (Paddle's payout totals,
 * Shopify's shop money), else the rates the owner set for the account (setExchangeRates: units of `base`
 * per one unit of each currency, dated), else the event is held with the reason. The rate used is kept on
 * the event. Setting rates applies the account's held events that they now convert (Stripe's and the other
 * providers'), each once: it is taken from `held` by a conditional update before it is applied.
 */
import type { ExchangeRates, SetExchangeRatesBody } from '../../../api/payment-source-schemas.js';
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import type { StripeEventRow } from '../store/stripe-store.js';
import type { PaymentEventRow } from '../store/payment-event-store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { invalid } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';
import type { ExchangeRatesRow } from '../store/exchange-rate-store.js';
import { inTransaction } from '../../kernel/in-transaction.js';
import { applyToParticipant, participantNamed, paymentApplicable, stripeApplicable, type Applicable, type Outcome } from './payment-apply.js';

export type Conversion = { cents: number | null; rate: string | null } | { held: string };

const RATE_DIGITS = 10;

/** Units of `base` per one unit of `currency`; undefined when the rates do not name it. */
function unitsOfBase(r: ExchangeRatesRow, currency: string): number | undefined {
  if (currency === r.base) return 1;
  return (JSON.parse(r.rates) as Record<string, number>)[currency];
}

/** `cents` of `from` in `to` by the account's rates, with the rate said in words; undefined when they cannot. */
function byRates(r: ExchangeRatesRow | undefined, cents: number, from: string, to: string): { cents: number; rate: string } | undefined {
  if (!r) return undefined;
  const f = unitsOfBase(r, from);
  const t = unitsOfBase(r, to);
  if (f === undefined || t === undefined) return undefined;
  const rate = Number((f / t).toPrecision(RATE_DIGITS));
  return { cents: Math.round(cents * (f / t)), rate: `1 ${from} = ${rate} ${to} (the account's rates of ${iso(r.as_of).slice(0, 10)})` };
}

/** An event's amount in the campaign's currency, and how it was converted; or why it is held. */
export async function convert(
  ctx: Ctx,
  campaign: CampaignRow,
  e: { amountCents: number | null; currency: string | null; settled?: { cents: number; currency: string } | undefined },
): Promise<Conversion> {
  const to = campaign.reward_currency;
  if (e.amountCents === null || e.currency === null || e.currency.toUpperCase() === to) return { cents: e.amountCents, rate: null };
  const from = e.currency.toUpperCase();
  if (e.settled && e.settled.currency.toUpperCase() === to) return { cents: e.settled.cents, rate: `settled by the provider: ${from} -> ${to}` };
  const converted = byRates(await ctx.store.exchangeRates.of(campaign.account_id), e.amountCents, from, to);
  if (converted) return converted;
  return { held: `Its amount is in ${from} and this campaign's rewards are in ${to}: held, not applied, until it can be converted (the provider gave no amount in ${to}, and the account's exchange rates (setExchangeRates) have no rate for it)` };
}

function present(r: ExchangeRatesRow): ExchangeRates {
  return { base: r.base, rates: JSON.parse(r.rates) as Record<string, number>, asOf: iso(r.as_of), updatedOn: iso(r.updated_on) };
}

export async function getExchangeRates(ctx: Ctx, actor: Actor): Promise<ExchangeRates | null> {
  const r = await ctx.store.exchangeRates.of(actor.accountId);
  return r ? present(r) : null;
}

/** Sets the account's rates and applies the held events they now convert; answers the rates and how many were applied. */
export async function setExchangeRates(ctx: Ctx, actor: Actor, body: SetExchangeRatesBody): Promise<ExchangeRates & { applied: number }> {
  if (Object.keys(body.rates).length === 0) throw invalid('rates', 'rates names at least one currency besides the base');
  if (body.rates[body.base] !== undefined && body.rates[body.base] !== 1) throw invalid(`rates.${body.base}`, `The base currency is worth 1 of itself: leave ${body.base} out of rates`);
  const now = ctx.now();
  const row: ExchangeRatesRow = { account_id: actor.accountId, base: body.base, rates: JSON.stringify(body.rates), as_of: Date.parse(body.asOf), updated_on: now };
  await ctx.store.exchangeRates.put(row);
  return { ...present(row), applied: await applyHeld(ctx, actor.accountId, row) };
}

/**
 * A kind of event that may be held for its currency (Stripe's, and the other providers'), as applyHeld
 * reads, takes, applies and settles it: the one loop below serves both.
 */
interface HeldKind<E extends HeldEvent> {
  held(ctx: Ctx, accountId: number): Promise<E[]>;
  /** Takes it from `held` with what it converts to; false when another call took it first. */
  take(ctx: Ctx, campaignId: string, e: E, c: { cents: number; rate: string }): Promise<boolean>;
  /** Who it names: its linked participant, else (a provider's event) whom its code, email or link keys name. */
  participant(ctx: Ctx, campaign: CampaignRow, e: E): Promise<ParticipantRow | undefined>;
  applicable(taken: E): Applicable;
  settle(ctx: Ctx, campaignId: string, e: E, outcome: Outcome & { participant_id: number; applied_on: number }): Promise<void>;
}
type HeldEvent = { id: string; campaign_id: string; amount_cents: number | null; currency: string | null; participant_id: number | null; converted_cents: number | null; rate: string | null };

const PAYMENT_EVENTS: HeldKind<PaymentEventRow> = {
  held: (ctx, accountId) => ctx.store.exchangeRates.heldPaymentEvents(accountId, 1000),
  take: (ctx, campaignId, e, c) => ctx.store.exchangeRates.takeHeldPayment(campaignId, e.provider, e.id, c.cents, c.rate),
  participant: async (ctx, campaign, e) =>
    e.participant_id !== null ? ctx.store.findParticipant(e.participant_id) : participantNamed(ctx, campaign, { code: e.code, email: e.email, linkKeys: JSON.parse(e.link_keys) as string[] }),
  applicable: paymentApplicable,
  settle: (ctx, campaignId, e, outcome) => ctx.store.paymentEvents.settle(campaignId, e.provider, e.id, outcome),
};
const STRIPE_EVENTS: HeldKind<StripeEventRow> = {
  held: (ctx, accountId) => ctx.store.exchangeRates.heldStripeEvents(accountId, 1000),
  take: (ctx, campaignId, e, c) => ctx.store.exchangeRates.takeHeldStripe(campaignId, e.id, c.cents, c.rate),
  participant: async (ctx, _campaign, e) => (e.participant_id !== null ? ctx.store.findParticipant(e.participant_id) : undefined),
  applicable: stripeApplicable,
  settle: (ctx, campaignId, e, outcome) => ctx.store.stripe.settle(campaignId, e.id, outcome),
};

/** The events held that the rates convert now: each taken from held and applied in one transaction. */
async function applyHeld(ctx: Ctx, accountId: number, rates: ExchangeRatesRow): Promise<number> {
  const campaigns = new Map<string, CampaignRow | undefined>();
  const campaignOf = async (id: string) => (campaigns.has(id) ? campaigns.get(id) : campaigns.set(id, await ctx.store.findCampaign(id)).get(id));
  async function applyAll<E extends HeldEvent>(kind: HeldKind<E>): Promise<number> {
    let applied = 0;
    for (const e of await kind.held(ctx, accountId)) {
      const campaign = await campaignOf(e.campaign_id);
      const c = campaign && e.amount_cents !== null && e.currency ? byRates(rates, e.amount_cents, e.currency.toUpperCase(), campaign.reward_currency) : undefined;
      if (!campaign || !c) continue;
      const done = await inTransaction(ctx, async (tx) => {
        if (!(await kind.take(tx, campaign.id, e, c))) return false;
        const participant = await kind.participant(tx, campaign, e);
        if (!participant) return false;
        const outcome = await applyToParticipant(tx, campaign, kind.applicable({ ...e, converted_cents: c.cents, rate: c.rate }), participant);
        await kind.settle(tx, campaign.id, e, { ...outcome, participant_id: participant.id, applied_on: tx.now() });
        return outcome.status === 'applied';
      });
      if (done) applied++;
    }
    return applied;
  }
  return (await applyAll(PAYMENT_EVENTS)) + (await applyAll(STRIPE_EVENTS));
}
