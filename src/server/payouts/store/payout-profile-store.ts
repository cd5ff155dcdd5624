/**
 * SQL of where money goes: a participant's payout method and tax details, and an account's payout
 * providers (PayPal and Stripe Connect credentials, live and test) and tax settings.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, PayoutCredentialsTable, PayoutMethodsTable, TaxDetailsTable, TaxSettingsTable } from '../../store/tables.js';

export type PayoutMethodRow = Selectable<PayoutMethodsTable>;
export type TaxDetailsRow = Selectable<TaxDetailsTable>;
export type PayoutCredentialsRow = Selectable<PayoutCredentialsTable>;
export type TaxSettingsRow = Selectable<TaxSettingsTable>;

export class PayoutProfileStore {
  constructor(private readonly db: Kysely<Database>) {}

  method(participantId: number): Promise<PayoutMethodRow | undefined> {
    return this.db.selectFrom('payout_methods').selectAll().where('participant_id', '=', participantId).executeTakeFirst();
  }

  methods(participantIds: readonly number[]): Promise<PayoutMethodRow[]> {
    if (participantIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('payout_methods').selectAll().where('participant_id', 'in', [...participantIds]).execute();
  }

  /** Other participants of the campaign whose payout method has this PayPal address or Stripe account (../../fraud/domain/payout-duplicates.ts). */
  sharing(campaignId: string, participantId: number, to: { method: 'paypal' | 'stripe_connect'; destination: string }): Promise<{ participant_id: number }[]> {
    return this.db
      .selectFrom('payout_methods')
      .select('participant_id')
      .where(to.method === 'paypal' ? 'paypal_email' : 'stripe_account', '=', to.destination)
      .where('campaign_id', '=', campaignId)
      .where('participant_id', '<>', participantId)
      .limit(100)
      .execute();
  }

  /** Sets the method (and the PayPal address when given); the Stripe account stays, for a switch back. */
  async setMethod(row: Omit<PayoutMethodRow, 'stripe_account' | 'stripe_payouts_enabled'>): Promise<void> {
    await this.db
      .insertInto('payout_methods')
      .values(row)
      .onConflict((oc) => oc.column('participant_id').doUpdateSet({ method: row.method, updated_on: row.updated_on, ...(row.paypal_email !== null && { paypal_email: row.paypal_email }) }))
      .execute();
  }

  /** Links the participant's Stripe Connect account (made for them on their first connectStripe). */
  async setStripeAccount(participantId: number, campaignId: string, account: string, now: number): Promise<void> {
    await this.db
      .insertInto('payout_methods')
      .values({ participant_id: participantId, campaign_id: campaignId, method: 'stripe_connect', paypal_email: null, stripe_account: account, updated_on: now })
      .onConflict((oc) => oc.column('participant_id').doUpdateSet({ stripe_account: account, updated_on: now }))
      .execute();
  }

  /** Stripe's account.updated: whether the account can be paid; only for participants of the account's campaigns. */
  async setStripePayoutsEnabled(account: string, enabled: boolean, now: number, accountId?: number): Promise<number> {
    let q = this.db.updateTable('payout_methods').set({ stripe_payouts_enabled: enabled ? 1 : 0, updated_on: now }).where('stripe_account', '=', account);
    if (accountId !== undefined) q = q.where('campaign_id', 'in', this.db.selectFrom('campaigns').select('id').where('account_id', '=', accountId));
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  taxDetails(participantId: number): Promise<TaxDetailsRow | undefined> {
    return this.db.selectFrom('tax_details').selectAll().where('participant_id', '=', participantId).executeTakeFirst();
  }

  async setTaxDetails(row: TaxDetailsRow): Promise<void> {
    const { participant_id, created_on, ...rest } = row;
    void participant_id;
    void created_on;
    await this.db
      .insertInto('tax_details')
      .values(row)
      .onConflict((oc) => oc.column('participant_id').doUpdateSet(rest))
      .execute();
  }

  /**
   * Removes a participant's payout method, and their tax details unless the law's retention keeps them
   * (`keepTaxUntil`, ../domain/payout-privacy.ts): those are marked for the retention pruner instead.
   */
  async erase(participantId: number, keepTaxUntil: number | undefined): Promise<void> {
    await this.db.deleteFrom('payout_methods').where('participant_id', '=', participantId).execute();
    if (keepTaxUntil === undefined) await this.db.deleteFrom('tax_details').where('participant_id', '=', participantId).execute();
    else await this.db.updateTable('tax_details').set({ keep_until: keepTaxUntil }).where('participant_id', '=', participantId).execute();
  }

  /** Rewrites the destination (a PayPal address) of a participant's payouts: kept only as the erased address. */
  async scrubDestinations(participantId: number, erased: string): Promise<void> {
    await this.db.updateTable('cash_payouts').set({ destination: erased }).where('participant_id', '=', participantId).where('method', '=', 'paypal').execute();
  }

  credentials(accountId: number): Promise<PayoutCredentialsRow[]> {
    return this.db.selectFrom('payout_credentials').selectAll().where('account_id', '=', accountId).execute();
  }

  credential(accountId: number, provider: 'paypal' | 'stripe', live: boolean): Promise<PayoutCredentialsRow | undefined> {
    return this.db
      .selectFrom('payout_credentials')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('provider', '=', provider)
      .where('live', '=', live ? 1 : 0)
      .executeTakeFirst();
  }

  /** Sets (or with null removes) one provider's credentials for one mode. */
  async putCredential(accountId: number, provider: 'paypal' | 'stripe', live: boolean, values: Pick<PayoutCredentialsRow, 'client_id' | 'secret' | 'webhook'> | null, now: number): Promise<void> {
    if (values === null) {
      await this.db
        .deleteFrom('payout_credentials')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .where('live', '=', live ? 1 : 0)
        .execute();
      return;
    }
    await this.db
      .insertInto('payout_credentials')
      .values({ account_id: accountId, provider, live: live ? 1 : 0, ...values, updated_on: now })
      .onConflict((oc) => oc.columns(['account_id', 'provider', 'live']).doUpdateSet({ ...values, updated_on: now }))
      .execute();
  }

  taxSettings(accountId: number): Promise<TaxSettingsRow | undefined> {
    return this.db.selectFrom('tax_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  }

  async putTaxSettings(row: TaxSettingsRow): Promise<void> {
    const { account_id, ...rest } = row;
    void account_id;
    await this.db.insertInto('tax_settings').values(row).onConflict((oc) => oc.column('account_id').doUpdateSet(rest)).execute();
  }
}
