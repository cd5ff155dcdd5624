/**
 * SQL of reward code pools: the codes an owner uploads for a campaign, per kind, each handed to at most
 * one credit (../domain/reward-codes.ts). A code goes to a credit by one conditional statement that marks
 * the oldest free code used and answers it; on PostgreSQL its sub-select locks the row it picks and skips
 * rows other transactions picked, so parallel credits each get another code without waiting on each
 * other, and a code drawn by a transaction that rolls back is free again.
 */
import { sql, type Kysely } from 'kysely';
import { bound } from '../../store/bound-limit.js';
import type { Dialect } from '../../store/connect.js';
import type { RewardEntryRow } from './reward-entry-store.js';
import type { Database, RewardCodeKind } from '../../store/tables.js';

/** Codes inserted per statement: well under PostgreSQL's 65,535 parameters and SQLite's 32,766. */
const INSERT_CHUNK = 1000;

/** A pool's counts: codes free, codes used, and available credits waiting for a code. */
export interface PoolCounts {
  kind: RewardCodeKind;
  available: number;
  used: number;
  waiting: number;
}

/** A code a participant got, with the credit it came with. */
export interface ParticipantCode {
  code: string;
  code_kind: RewardCodeKind;
  label: string;
  created_on: number;
}

export class RewardCodeStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The kinds of pool a campaign has, its row locked until the transaction ends on PostgreSQL (FOR NO KEY
   * UPDATE: sign-ups' foreign-key checks on it do not wait), so that two refills of one campaign, which
   * both may add a kind to it, run one after the other.
   */
  async lockPoolKinds(campaignId: string): Promise<Set<RewardCodeKind>> {
    const query = this.db.selectFrom('campaigns').select('reward_code_kinds').where('id', '=', campaignId);
    const row = await (this.dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
    return new Set(row?.reward_code_kinds ? (row.reward_code_kinds.split(',') as RewardCodeKind[]) : []);
  }

  /** Creates a campaign's pool of `kind` unless it exists. */
  async ensurePool(campaignId: string, kind: RewardCodeKind, now: number): Promise<void> {
    await this.db
      .insertInto('reward_code_pools')
      .values({ campaign_id: campaignId, kind, created_on: now })
      .onConflict((oc) => oc.columns(['campaign_id', 'kind']).doNothing())
      .execute();
  }

  /**
   * Locks a pool's row until the transaction ends (PostgreSQL; SQLite's writers are one at a time). A
   * refill holds it while it adds codes and serves the credits waiting; a credit that found the pool
   * empty takes it before looking again, so it either sees the refill's codes or is among those served.
   */
  async lockPool(campaignId: string, kind: RewardCodeKind): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.db.selectFrom('reward_code_pools').select('kind').where('campaign_id', '=', campaignId).where('kind', '=', kind).forUpdate().execute();
  }

  /** Adds codes to a pool; those already in it are skipped. Answers how many were added. */
  async insertCodes(campaignId: string, kind: RewardCodeKind, codes: readonly string[], now: number): Promise<number> {
    let added = 0;
    for (let i = 0; i < codes.length; i += INSERT_CHUNK) {
      const rows = await this.db
        .insertInto('reward_codes')
        .values(codes.slice(i, i + INSERT_CHUNK).map((code) => ({ campaign_id: campaignId, kind, code, created_on: now, used_on: null })))
        .onConflict((oc) => oc.columns(['campaign_id', 'kind', 'code']).doNothing())
        .returning('id')
        .execute();
      added += rows.length;
    }
    return added;
  }

  /** Takes the oldest free code of a pool, marking it used; undefined when the pool is empty. */
  async draw(campaignId: string, kind: RewardCodeKind, now: number): Promise<string | undefined> {
    const free = this.db
      .selectFrom('reward_codes')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .where('kind', '=', kind)
      .where('used_on', 'is', null)
      .orderBy('id')
      .limit(1);
    const row = await this.db
      .updateTable('reward_codes')
      .set({ used_on: now })
      .where('id', '=', this.dialect === 'postgres' ? free.forUpdate().skipLocked() : free)
      // Re-checked on the row itself: on SQLite the same statement, on PostgreSQL after the row's lock.
      .where('used_on', 'is', null)
      .returning('code')
      .executeTakeFirst();
    return row?.code;
  }

  /** Gives an available credit its code. */
  async setEntryCode(entryId: number, kind: RewardCodeKind, code: string | null): Promise<void> {
    await this.db.updateTable('reward_entries').set({ code_kind: kind, code }).where('id', '=', entryId).execute();
  }

  /** Credits of a campaign waiting for a code of `kind`, the oldest first. */
  waiting(campaignId: string, kind: RewardCodeKind, limit: number): Promise<RewardEntryRow[]> {
    return this.db
      .selectFrom('reward_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .selectAll('e')
      .where('e.code_kind', '=', kind)
      .where('e.code', 'is', null)
      .where('p.campaign_id', '=', campaignId)
      .orderBy('e.id')
      .limit(bound(limit))
      .execute();
  }

  /** A campaign's pools with their counts, in kind order. */
  async pools(campaignId: string): Promise<PoolCounts[]> {
    // One after another: on a transaction's connection the statements would queue anyway.
    const pools = await this.db.selectFrom('reward_code_pools').select('kind').where('campaign_id', '=', campaignId).orderBy('kind').execute();
    const codes = await this.db
      .selectFrom('reward_codes')
      .select(['kind', sql<number>`case when used_on is null then 0 else 1 end`.as('used'), (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('campaign_id', '=', campaignId)
      .groupBy(['kind', sql`case when used_on is null then 0 else 1 end`])
      .execute();
    const waiting = await this.db
      .selectFrom('reward_entries as e')
      .innerJoin('participants as p', 'p.id', 'e.participant_id')
      .select(['e.code_kind', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('e.code_kind', 'is not', null)
      .where('e.code', 'is', null)
      .where('p.campaign_id', '=', campaignId)
      .groupBy('e.code_kind')
      .execute();
    return pools.map(({ kind }) => ({
      kind,
      available: Number(codes.find((c) => c.kind === kind && Number(c.used) === 0)?.n ?? 0),
      used: Number(codes.find((c) => c.kind === kind && Number(c.used) === 1)?.n ?? 0),
      waiting: Number(waiting.find((w) => w.code_kind === kind)?.n ?? 0),
    }));
  }

  /** How many free codes a pool has. */
  async available(campaignId: string, kind: RewardCodeKind): Promise<number> {
    const r = await this.db
      .selectFrom('reward_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('campaign_id', '=', campaignId)
      .where('kind', '=', kind)
      .where('used_on', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * Marks a pool low if its free codes are fewer than `threshold` and it was not low: true for the one
   * call that marked it (its low event fires once per crossing, whichever process draws the code).
   */
  async markLow(campaignId: string, kind: RewardCodeKind, threshold: number): Promise<boolean> {
    const rows = await this.db
      .updateTable('reward_code_pools')
      .set({ low: 1 })
      .where('campaign_id', '=', campaignId)
      .where('kind', '=', kind)
      .where('low', '=', 0)
      .where((eb) =>
        eb(
          eb.selectFrom('reward_codes').select((s) => s.fn.countAll().as('n')).where('campaign_id', '=', campaignId).where('kind', '=', kind).where('used_on', 'is', null),
          '<',
          threshold,
        ),
      )
      .returning('kind')
      .execute();
    return rows.length > 0;
  }

  /** A refilled pool with `threshold` free codes or more is no longer low: its next crossing fires again. */
  async clearLow(campaignId: string, kind: RewardCodeKind): Promise<void> {
    await this.db.updateTable('reward_code_pools').set({ low: 0 }).where('campaign_id', '=', campaignId).where('kind', '=', kind).where('low', '=', 1).execute();
  }

  /** The codes a participant got, newest first, and how many of their credits wait for one. */
  async ofParticipant(participantId: number, limit: number): Promise<{ given: ParticipantCode[]; waiting: number }> {
    const given = (await this.db
      .selectFrom('reward_entries')
      .select(['code', 'code_kind', 'label', 'created_on'])
      .where('participant_id', '=', participantId)
      .where('code', 'is not', null)
      .orderBy('id', 'desc')
      .limit(bound(limit))
      .execute()) as ParticipantCode[];
    const waiting = await this.db
      .selectFrom('reward_entries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('participant_id', '=', participantId)
      .where('code_kind', 'is not', null)
      .where('code', 'is', null)
      .executeTakeFirstOrThrow();
    return { given, waiting: Number(waiting.n) };
  }
}
