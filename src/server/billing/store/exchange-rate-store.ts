/** SQL of the owner's exchange rates (../domain/exchange-rates.ts), and of the events held for their currency that a rate may now convert. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ExchangeRatesTable } from '../../store/tables.js';
import type { PaymentEventRow } from './payment-event-store.js';
import type { StripeEventRow } from './stripe-store.js';

export type ExchangeRatesRow = Selectable<ExchangeRatesTable>;

/** What a held event taken to apply says until it is applied: converted now, it may still name nobody (matched by hand then). */
const UNMATCHED = 'Converted by the exchange rates, but no participant of this campaign has its referral code, customer or email';

export class ExchangeRateStore {
  constructor(private readonly db: Kysely<Database>) {}

  of(accountId: number): Promise<ExchangeRatesRow | undefined> {
    return this.db.selectFrom('exchange_rates').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  }

  async put(row: ExchangeRatesRow): Promise<void> {
    await this.db
      .insertInto('exchange_rates')
      .values(row)
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ base: row.base, rates: row.rates, as_of: row.as_of, updated_on: row.updated_on }))
      .execute();
  }

  /** The account's payment events held for their currency, oldest first. */
  heldPaymentEvents(accountId: number, limit: number): Promise<PaymentEventRow[]> {
    return this.db
      .selectFrom('payment_events as e')
      .innerJoin('campaigns as c', 'c.id', 'e.campaign_id')
      .selectAll('e')
      .where('c.account_id', '=', accountId)
      .where('e.status', '=', 'held')
      .orderBy('e.created_on')
      .limit(limit)
      .execute();
  }

  heldStripeEvents(accountId: number, limit: number): Promise<StripeEventRow[]> {
    return this.db
      .selectFrom('stripe_events as e')
      .innerJoin('campaigns as c', 'c.id', 'e.campaign_id')
      .selectAll('e')
      .where('c.account_id', '=', accountId)
      .where('e.status', '=', 'held')
      .orderBy('e.created_on')
      .limit(limit)
      .execute();
  }

  /** Takes a held event to apply it, with what it converts to; false when it is no longer held (another call took it). */
  async takeHeldPayment(campaignId: string, provider: string, id: string, convertedCents: number, rate: string): Promise<boolean> {
    const r = await this.db
      .updateTable('payment_events')
      .set({ status: 'unmatched', converted_cents: convertedCents, rate, reason: UNMATCHED })
      .where('campaign_id', '=', campaignId)
      .where('provider', '=', provider)
      .where('id', '=', id)
      .where('status', '=', 'held')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async takeHeldStripe(campaignId: string, id: string, convertedCents: number, rate: string): Promise<boolean> {
    const r = await this.db
      .updateTable('stripe_events')
      .set({ status: 'unmatched', converted_cents: convertedCents, rate, reason: UNMATCHED })
      .where('campaign_id', '=', campaignId)
      .where('id', '=', id)
      .where('status', '=', 'held')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }
}
