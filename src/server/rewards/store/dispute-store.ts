/**
 * SQL of disputes (../domain/disputes.ts): each one a row kept for good, and the pending credits an open
 * one holds (reward_entries.held_by_dispute), which the hold's releaser leaves pending until it closes.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Database, DisputesTable } from '../../store/tables.js';

export type DisputeRow = Selectable<DisputesTable>;

export class DisputeStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records a dispute unless the campaign has one with its id; true when this call recorded it. */
  async open(row: Insertable<DisputesTable>): Promise<boolean> {
    const r = await this.db.insertInto('disputes').values(row).onConflict((oc) => oc.columns(['campaign_id', 'id']).doNothing()).returning('id').executeTakeFirst();
    return r !== undefined;
  }

  find(campaignId: string, id: string): Promise<DisputeRow | undefined> {
    return this.db.selectFrom('disputes').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
  }

  /** The open dispute of a payment, if any (at most one: a partial unique index). */
  openOfPayment(paymentId: number): Promise<DisputeRow | undefined> {
    return this.db.selectFrom('disputes').selectAll().where('payment_id', '=', paymentId).where('status', '=', 'open').executeTakeFirst();
  }

  /** The amounts under an open dispute, by payment (a payment has at most one open). */
  async openAmounts(paymentIds: readonly number[]): Promise<Map<number, number>> {
    if (paymentIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('disputes').select(['payment_id', 'amount_cents']).where('payment_id', 'in', paymentIds).where('status', '=', 'open').execute();
    return new Map(rows.map((r) => [Number(r.payment_id), Number(r.amount_cents)]));
  }

  async setReversed(campaignId: string, id: string, reversed: number): Promise<void> {
    await this.db.updateTable('disputes').set({ reversed }).where('campaign_id', '=', campaignId).where('id', '=', id).execute();
  }

  /** Closes an open dispute; false when it was not open (another call closed it first). */
  async close(campaignId: string, id: string, outcome: 'won' | 'lost', now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('disputes')
      .set({ status: outcome, closed_on: now })
      .where('campaign_id', '=', campaignId)
      .where('id', '=', id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** A participant's disputes (as the payer), newest first. */
  ofParticipant(participantId: number, limit: number): Promise<DisputeRow[]> {
    return this.db.selectFrom('disputes').selectAll().where('participant_id', '=', participantId).orderBy('opened_on', 'desc').orderBy('id', 'desc').limit(bound(limit)).execute();
  }

  /** What a dispute holds (reward units), among these participants' entries. */
  async held(participantIds: readonly number[], disputeId: string): Promise<number> {
    const r = await this.db
      .selectFrom('reward_entries')
      .select((eb) => eb.fn.sum<number | string>('amount').as('total'))
      .where('participant_id', 'in', [...participantIds])
      .where('held_by_dispute', '=', disputeId)
      .executeTakeFirst();
    return Number(r?.total ?? 0);
  }

  /** Holds pending entries for a dispute: the releaser leaves them pending past their date. */
  async hold(entryIds: readonly number[], disputeId: string): Promise<void> {
    if (entryIds.length === 0) return;
    await this.db.updateTable('reward_entries').set({ held_by_dispute: disputeId }).where('id', 'in', [...entryIds]).where('status', '=', 'pending').execute();
  }

  /** Lets go of what a dispute held, among these participants' entries. */
  async letGo(participantIds: readonly number[], disputeId: string): Promise<void> {
    await this.db.updateTable('reward_entries').set({ held_by_dispute: null }).where('participant_id', 'in', [...participantIds]).where('held_by_dispute', '=', disputeId).execute();
  }
}
