/**
 * SQL of fraud cases and their signals (../domain/fraud-holds.ts): one open case per referrer, joined by
 * each new signal; a signal is recorded once per participant and kind (a unique index), so a rule that
 * matches the same participant again adds nothing.
 */
import { sql, type Insertable, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Database, FraudCaseStatus, FraudCasesTable, FraudSignalsTable } from '../../store/tables.js';
import type { FraudSignalKind } from '../../../api/fraud-schemas.js';

export type FraudCaseRow = Selectable<FraudCasesTable>;
export type FraudSignalRow = Selectable<FraudSignalsTable>;

export class FraudCaseStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The open case about `participantId` (a referrer, or a participant nobody referred), made if there is none. */
  async openCase(campaignId: string, participantId: number, now: number): Promise<number> {
    const open = () =>
      this.db.selectFrom('fraud_cases').select('id').where('campaign_id', '=', campaignId).where('participant_id', '=', participantId).where('status', '=', 'open').executeTakeFirst();
    // Most signals join a case already open: read first (an insert that conflicts still uses up an id of
    // PostgreSQL's sequence, and case numbers the owner reads would skip).
    const found = await open();
    if (found) return Number(found.id);
    // The partial unique index (one open case per referrer) makes a concurrent second insert a no-op. The
    // conflict target must repeat the index's predicate as it is written (a literal, not a bound parameter),
    // or neither SQLite nor PostgreSQL takes it for that index ("no unique or exclusion constraint matching").
    await this.db
      .insertInto('fraud_cases')
      .values({ campaign_id: campaignId, participant_id: participantId, status: 'open', opened_on: now, resolved_on: null, resolved_by: null })
      .onConflict((oc) => oc.columns(['campaign_id', 'participant_id']).where(sql<SqlBool>`status = 'open'`).doNothing())
      .execute();
    return Number((await open())!.id);
  }

  /** Records a signal unless the participant has one of its kind already; true when it is new. */
  async addSignal(signal: Insertable<FraudSignalsTable>): Promise<boolean> {
    const r = await this.db
      .insertInto('fraud_signals')
      .values(signal)
      .onConflict((oc) => oc.columns(['participant_id', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Whether a rule of this kind matched this participant before. */
  async hasSignal(participantId: number, kind: FraudSignalKind): Promise<boolean> {
    const row = await this.db.selectFrom('fraud_signals').select('id').where('participant_id', '=', participantId).where('kind', '=', kind).executeTakeFirst();
    return row !== undefined;
  }

  /** How many referrals of this referrer were credited since `since` (their fixed reward's entries; ../domain/reward-limits.ts). */
  async referralsCreditedSince(referrerId: number, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('reward_entries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('participant_id', '=', referrerId)
      .where('created_on', '>=', since)
      .where('kind', '=', 'referral')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A participant's signals, oldest first. */
  signalsOf(participantId: number): Promise<FraudSignalRow[]> {
    return this.db.selectFrom('fraud_signals').selectAll().where('participant_id', '=', participantId).orderBy('id').execute();
  }

  findCase(campaignId: string, caseId: number): Promise<FraudCaseRow | undefined> {
    return this.db.selectFrom('fraud_cases').selectAll().where('campaign_id', '=', campaignId).where('id', '=', caseId).executeTakeFirst();
  }

  /** A campaign's cases, newest first (open ones by default). */
  listCases(campaignId: string, status: FraudCaseStatus | undefined, limit: number): Promise<FraudCaseRow[]> {
    return this.db
      .selectFrom('fraud_cases')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .$if(status !== undefined, (q) => q.where('status', '=', status!))
      .orderBy('id', 'desc')
      .limit(bound(limit))
      .execute();
  }

  /** The signals of these cases, oldest first. */
  signalsOfCases(caseIds: number[]): Promise<FraudSignalRow[]> {
    if (caseIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('fraud_signals').selectAll().where('case_id', 'in', caseIds).orderBy('id').execute();
  }

  /** The email and referral code of each of these participants (the people cases and signals name). */
  people(ids: number[]): Promise<{ id: number; email: string; code: string }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('participants').select(['id', 'email', 'code']).where('id', 'in', ids).execute();
  }

  /** Closes an open case with the owner's decision; false when it was not open (decided already). */
  async resolve(caseId: number, status: Exclude<FraudCaseStatus, 'open'>, by: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('fraud_cases')
      .set({ status, resolved_on: now, resolved_by: by })
      .where('id', '=', caseId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
