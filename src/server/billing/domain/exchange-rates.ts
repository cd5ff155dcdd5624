/**
 * Payments in another currency than the campaign's rewardCurrency, converted, never taken 1:1. In order:
 * the amount the provider itself settled or reported in the campaign's currency (Paddle's payout totals,
 * Shopify's shop money), else the rates the owner set for the account (setExchangeRates: units of `base`
 * per one unit of each currency, dated), else the event is held with the reason. The rate used is kept on
 * the event. Setting rates applies the account's held events that they now convert (Stripe's and the other
 * providers'), each once: it is taken from `held` by a conditional update before it is applied.
 */
import type { ExchangeRates, SetExchangeRatesBody } from '../../../api/payment-source-schemas.js';
import type { CampaignRow } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { invalid } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';
import type { ExchangeRatesRow } from '../store/exchange-rate-store.js';
import { applyToParticipant, inTransaction, participantNamed, paymentApplicable, stripeApplicable } from './payment-apply.js';

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

/** The events held that the rates convert now: each taken from held and applied in one transaction. */
async function applyHeld(ctx: Ctx, accountId: number, rates: ExchangeRatesRow): Promise<number> {
  let applied = 0;
  const campaigns = new Map<string, CampaignRow | undefined>();
  const campaignOf = async (id: string) => (campaigns.has(id) ? campaigns.get(id) : campaigns.set(id, await ctx.store.findCampaign(id)).get(id));
  for (const e of await ctx.store.exchangeRates.heldPaymentEvents(accountId, 1000)) {
    const campaign = await campaignOf(e.campaign_id);
    const c = campaign && e.amount_cents !== null && e.currency ? byRates(rates, e.amount_cents, e.currency.toUpperCase(), campaign.reward_currency) : undefined;
    if (!campaign || !c) continue;
    const done = await inTransaction(ctx, async (tx) => {
      if (!(await tx.store.exchangeRates.takeHeldPayment(campaign.id, e.provider, e.id, c.cents, c.rate))) return false;
      const taken = { ...e, converted_cents: c.cents, rate: c.rate };
      const participant = e.participant_id !== null ? await tx.store.findParticipant(e.participant_id) : await participantNamed(tx, campaign, { code: e.code, email: e.email, linkKeys: JSON.parse(e.link_keys) as string[] });
      if (!participant) return false;
      const outcome = await applyToParticipant(tx, campaign, paymentApplicable(taken), participant);
      await tx.store.paymentEvents.settle(campaign.id, e.provider, e.id, { ...outcome, participant_id: participant.id, applied_on: tx.now() });
      return outcome.status === 'applied';
    });
    if (done) applied++;
  }
  for (const e of await ctx.store.exchangeRates.heldStripeEvents(accountId, 1000)) {
    const campaign = await campaignOf(e.campaign_id);
    const c = campaign && e.amount_cents !== null && e.currency ? byRates(rates, e.amount_cents, e.currency.toUpperCase(), campaign.reward_currency) : undefined;
    if (!campaign || !c) continue;
    const done = await inTransaction(ctx, async (tx) => {
      if (!(await tx.store.exchangeRates.takeHeldStripe(campaign.id, e.id, c.cents, c.rate))) return false;
      const taken = { ...e, converted_cents: c.cents, rate: c.rate };
      const participant = e.participant_id !== null ? await tx.store.findParticipant(e.participant_id) : undefined;
      if (!participant) return false;
      const outcome = await applyToParticipant(tx, campaign, stripeApplicable(taken), participant);
      await tx.store.stripe.settle(campaign.id, e.id, { ...outcome, participant_id: participant.id, applied_on: tx.now() });
      return outcome.status === 'applied';
    });
    if (done) applied++;
  }
  return applied;
}
