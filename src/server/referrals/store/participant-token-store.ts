/** SQL of participant tokens beyond their insert at sign-up (../../store/store.ts): who a token proves, and revoking them. */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';

export class ParticipantTokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The participant a token proves, unless it is unknown, revoked, or was issued at or before `issuedAfter`. */
  async participantOf(hash: string, issuedAfter: number): Promise<number | undefined> {
    const r = await this.db
      .selectFrom('participant_tokens')
      .select('participant_id')
      .where('hash', '=', hash)
      .where('revoked_on', 'is', null)
      .where('created_on', '>', issuedAfter)
      .executeTakeFirst();
    return r?.participant_id;
  }

  async revoke(hash: string, now: number): Promise<boolean> {
    const r = await this.db.updateTable('participant_tokens').set({ revoked_on: now }).where('hash', '=', hash).where('revoked_on', 'is', null).executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Revokes every token of a participant; how many were live. */
  async revokeAll(participantId: number, now: number): Promise<number> {
    const r = await this.db
      .updateTable('participant_tokens')
      .set({ revoked_on: now })
      .where('participant_id', '=', participantId)
      .where('revoked_on', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Revokes every token of every participant of a campaign (its signing secret was rotated). */
  async revokeCampaign(campaignId: string, now: number): Promise<number> {
    const r = await this.db
      .updateTable('participant_tokens')
      .set({ revoked_on: now })
      .where('revoked_on', 'is', null)
      .where('participant_id', 'in', (eb) => eb.selectFrom('participants').select('id').where('campaign_id', '=', campaignId))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
