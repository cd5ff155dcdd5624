/** SQL of the Stripe integration (../domain/stripe-events.ts): the events received, and the ids that name participants. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Database, StripeEventsTable } from '../../store/tables.js';

export type StripeEventRow = Selectable<StripeEventsTable>;

export class StripeStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records an event unless this campaign has it already; true when this call recorded it (apply it then). */
  async claim(row: Insertable<StripeEventsTable>): Promise<boolean> {
    const r = await this.db.insertInto('stripe_events').values(row).onConflict((oc) => oc.columns(['campaign_id', 'id']).doNothing()).returning('id').executeTakeFirst();
    return r !== undefined;
  }

  find(campaignId: string, id: string): Promise<StripeEventRow | undefined> {
    return this.db.selectFrom('stripe_events').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
  }

  async settle(campaignId: string, id: string, fields: Pick<StripeEventRow, 'status' | 'participant_id' | 'reason' | 'applied_on'>): Promise<void> {
    await this.db.updateTable('stripe_events').set(fields).where('campaign_id', '=', campaignId).where('id', '=', id).execute();
  }

  /** What a rate converted the event's amount to. */
  async setConverted(campaignId: string, id: string, cents: number, rate: string): Promise<void> {
    await this.db.updateTable('stripe_events').set({ converted_cents: cents, rate }).where('campaign_id', '=', campaignId).where('id', '=', id).execute();
  }

  /** A campaign's events of one status, newest first. */
  list(campaignId: string, status: StripeEventRow['status'] | undefined, limit: number): Promise<StripeEventRow[]> {
    let q = this.db.selectFrom('stripe_events').selectAll().where('campaign_id', '=', campaignId);
    if (status) q = q.where('status', '=', status);
    return q.orderBy('created_on', 'desc').orderBy('id', 'desc').limit(bound(limit)).execute();
  }

  /** The participant the first of these Stripe ids (e.g. customer:cus_..., charge:ch_...) names, if any. */
  async participantOf(campaignId: string, keys: string[]): Promise<number | undefined> {
    for (const key of keys) {
      const r = await this.db.selectFrom('stripe_links').select('participant_id').where('campaign_id', '=', campaignId).where('key', '=', key).executeTakeFirst();
      if (r) return Number(r.participant_id);
    }
    return undefined;
  }

  /** The Stripe customer a participant is linked to (the first an event named), if any. */
  async customerOf(campaignId: string, participantId: number): Promise<string | undefined> {
    const r = await this.db
      .selectFrom('stripe_links')
      .select('key')
      .where('campaign_id', '=', campaignId)
      .where('participant_id', '=', participantId)
      .where('key', 'like', 'customer:%')
      .orderBy('key')
      .executeTakeFirst();
    return r?.key.slice('customer:'.length);
  }

  /** Remembers that these ids name the participant (a first link wins: a customer stays whose they were). */
  async link(campaignId: string, keys: string[], participantId: number): Promise<void> {
    for (const key of keys) {
      await this.db.insertInto('stripe_links').values({ campaign_id: campaignId, key, participant_id: participantId }).onConflict((oc) => oc.columns(['campaign_id', 'key']).doNothing()).execute();
    }
  }

  /** What of a payment (its link key: charge:ch_..., an order's) was refunded before; 0 when unknown. */
  async refundedOf(campaignId: string, key: string): Promise<number> {
    const r = await this.db.selectFrom('stripe_links').select('refunded_cents').where('campaign_id', '=', campaignId).where('key', '=', key).executeTakeFirst();
    return Number(r?.refunded_cents ?? 0);
  }

  async setRefunded(campaignId: string, key: string, participantId: number, cents: number): Promise<void> {
    await this.db
      .insertInto('stripe_links')
      .values({ campaign_id: campaignId, key, participant_id: participantId, refunded_cents: cents })
      .onConflict((oc) => oc.columns(['campaign_id', 'key']).doUpdateSet({ refunded_cents: cents }))
      .execute();
  }
}
