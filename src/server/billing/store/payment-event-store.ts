/** SQL of the payment providers' events (../domain/payment-sources.ts): kept once per provider event, listed, matched by hand. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Database, PaymentEventsTable } from '../../store/tables.js';

export type PaymentEventRow = Selectable<PaymentEventsTable>;

export class PaymentEventStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records an event unless this campaign has it already from this provider; true when this call recorded it (apply it then). */
  async claim(row: Insertable<PaymentEventsTable>): Promise<boolean> {
    const r = await this.db
      .insertInto('payment_events')
      .values(row)
      .onConflict((oc) => oc.columns(['campaign_id', 'provider', 'id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return r !== undefined;
  }

  find(campaignId: string, provider: string, id: string): Promise<PaymentEventRow | undefined> {
    return this.db.selectFrom('payment_events').selectAll().where('campaign_id', '=', campaignId).where('provider', '=', provider).where('id', '=', id).executeTakeFirst();
  }

  async settle(campaignId: string, provider: string, id: string, fields: Pick<PaymentEventRow, 'status' | 'participant_id' | 'reason' | 'applied_on'>): Promise<void> {
    await this.db.updateTable('payment_events').set(fields).where('campaign_id', '=', campaignId).where('provider', '=', provider).where('id', '=', id).execute();
  }

  /** A campaign's events, newest first, of one provider or status or all. */
  list(campaignId: string, provider: string | undefined, status: PaymentEventRow['status'] | undefined, limit: number): Promise<PaymentEventRow[]> {
    return this.db
      .selectFrom('payment_events')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .$if(provider !== undefined, (q) => q.where('provider', '=', provider!))
      .$if(status !== undefined, (q) => q.where('status', '=', status!))
      .orderBy('created_on', 'desc')
      .orderBy('id', 'desc')
      .limit(bound(limit))
      .execute();
  }
}
