/**
 * SQL of vanity codes (../domain/vanity-codes.ts): a participant's code replaced by one they chose, the
 * replaced one kept as an alias of theirs (referral_code_aliases), so that links and codes already shared
 * keep naming them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';

export class ReferralCodeStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Whose current code or alias `code` is in the campaign, if anyone's. */
  async holder(campaignId: string, code: string): Promise<{ participantId: number; alias: boolean } | undefined> {
    const own = await this.db.selectFrom('participants').select('id').where('campaign_id', '=', campaignId).where('code', '=', code).executeTakeFirst();
    if (own) return { participantId: own.id, alias: false };
    const alias = await this.db.selectFrom('referral_code_aliases').select('participant_id').where('campaign_id', '=', campaignId).where('code', '=', code).executeTakeFirst();
    return alias && { participantId: Number(alias.participant_id), alias: true };
  }

  /** How many codes the participant has replaced since `since` (the throttle). */
  async changesSince(participantId: number, since: number): Promise<number> {
    const r = await this.db.selectFrom('referral_code_aliases').select((eb) => eb.fn.countAll<number>().as('n')).where('participant_id', '=', participantId).where('created_on', '>=', since).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Gives the participant `code` and keeps `old` as their alias, in the caller's transaction; false when the
   * participant's code is no longer `old` (a concurrent change went first). A unique violation (the code
   * taken meanwhile) is thrown to the caller.
   */
  async replace(campaignId: string, participantId: number, old: string, code: string, now: number): Promise<boolean> {
    // Taking back an earlier code of theirs: it is their code again, no longer an alias.
    await this.db.deleteFrom('referral_code_aliases').where('campaign_id', '=', campaignId).where('code', '=', code).where('participant_id', '=', participantId).execute();
    const moved = await this.db.updateTable('participants').set({ code, updated_on: now }).where('id', '=', participantId).where('code', '=', old).executeTakeFirst();
    if (moved.numUpdatedRows === 0n) return false;
    await this.db.insertInto('referral_code_aliases').values({ campaign_id: campaignId, code: old, participant_id: participantId, created_on: now }).execute();
    return true;
  }

  /** A participant's earlier codes, newest first. */
  async aliasesOf(participantId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('referral_code_aliases').select('code').where('participant_id', '=', participantId).orderBy('created_on', 'desc').execute();
    return rows.map((r) => r.code);
  }
}
