/**
 * SQL of what participants paid with (payment_marks, migration 0036): a card's fingerprint, a provider's
 * customer id. One row per campaign, mark and participant; ../domain/payment-marks.ts reads who else paid
 * with the same.
 */
import type { Kysely } from 'kysely';
import type { Database, PaymentMarksTable } from '../../store/tables.js';

export type PaymentMark = Pick<PaymentMarksTable, 'kind' | 'value'>;

export class PaymentMarkStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records that `participantId` paid with these (a mark kept once). */
  async add(campaignId: string, participantId: number, marks: PaymentMark[], now: number): Promise<void> {
    if (marks.length === 0) return;
    await this.db
      .insertInto('payment_marks')
      .values(marks.map((m) => ({ campaign_id: campaignId, kind: m.kind, value: m.value, participant_id: participantId, created_on: now })))
      .onConflict((oc) => oc.columns(['campaign_id', 'kind', 'value', 'participant_id']).doNothing())
      .execute();
  }

  /** The other participants of the campaign who paid with any of these, with the mark they share. */
  async sharers(campaignId: string, participantId: number, marks: PaymentMark[]): Promise<{ participant_id: number; kind: PaymentMark['kind']; value: string }[]> {
    if (marks.length === 0) return [];
    return this.db
      .selectFrom('payment_marks')
      .select(['participant_id', 'kind', 'value'])
      .where('campaign_id', '=', campaignId)
      .where('participant_id', '<>', participantId)
      .where((eb) => eb.or(marks.map((m) => eb.and([eb('kind', '=', m.kind), eb('value', '=', m.value)]))))
      .limit(100)
      .execute();
  }
}
