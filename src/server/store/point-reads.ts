/**
 * PostgreSQL: reads of one participant by campaign and address (getParticipant's, qualifyParticipant's,
 * getReferrals' of its referrer) that arrive while an earlier one is at the database go to it together,
 * one statement for a campaign's addresses (`email = any($2)`), as DataLoader does. Measured on 2 cores at 50 connections: one statement
 * a read, the service spent about half its main thread in node-postgres's socket write and answer parsing,
 * and getParticipant ran at 0.7x the bare one-statement read; batched, at about 2.3x (BENCHMARKS.md).
 * When reads go, and which wait together: ./batches.ts.
 *
 * What a read sees is unchanged: its statement is sent after the read was asked for, so it sees every
 * write committed before that, as its own statement would. Only the root store batches: a transaction's
 * reads run in it, one by one. A batch the database refuses (an address PostgreSQL cannot take) is read
 * again one address at a time, so that each read gets its own answer; when the database is away, every
 * read of the batch gets that error.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { Batches } from './batches.js';
import { prepare } from './prepared.js';
import type { Database } from './tables.js';
import { isDatabaseUnavailable } from '../kernel/unavailable.js';

/** The read of one address and of several, both from the same select of participants' columns. */
export interface ByEmail<R> {
  one: (db: Kysely<Database>, campaignId: string, email: string) => Promise<R[]>;
  many: (db: Kysely<Database>, campaignId: string, emails: string[]) => Promise<R[]>;
}

/** ByEmail for a select of participants (its columns; the rows' `email` tells them apart). */
export function byEmail<R extends { email: string }>(select: (db: Kysely<Database>) => SelectQueryBuilder<Database, 'participants', R>): ByEmail<R> {
  return {
    one: prepare((db, campaignId: string, email: string) => select(db).where('campaign_id', '=', campaignId).where('email', '=', email)),
    many: prepare((db, campaignId: string, emails: string[]) =>
      select(db).where('campaign_id', '=', campaignId).where('email', '=', sql<string>`any(${emails})`),
    ),
  };
}

interface Read<R> {
  campaignId: string;
  email: string;
  resolve: (row: R | undefined) => void;
  reject: (err: unknown) => void;
}

/** One campaign's reads in a statement. */
const fits = <R>(batch: readonly Read<R>[], r: Read<R>) => batch[0]!.campaignId === r.campaignId;

export class PointReads<R extends { email: string }> {
  readonly #batches: Batches<Read<R>> | undefined;

  /** `batched`: false reads each address with a statement of its own (SQLite, a transaction's store). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reads: ByEmail<R>,
    batched: boolean,
  ) {
    this.#batches = batched ? new Batches<Read<R>>(fits, (batch) => this.#run(batch)) : undefined;
  }

  /** The participant of the campaign with this (normalized) address, if any. */
  read(campaignId: string, email: string): Promise<R | undefined> {
    const batches = this.#batches;
    if (!batches) return this.#alone(campaignId, email);
    return new Promise((resolve, reject) => batches.add({ campaignId, email, resolve, reject }));
  }

  async #alone(campaignId: string, email: string): Promise<R | undefined> {
    return (await this.reads.one(this.db, campaignId, email))[0];
  }

  async #run(batch: Read<R>[]): Promise<void> {
    if (batch.length === 1) {
      const [r] = batch as [Read<R>];
      return this.#alone(r.campaignId, r.email).then(r.resolve, r.reject);
    }
    let rows: R[];
    try {
      rows = await this.reads.many(this.db, batch[0]!.campaignId, batch.map((r) => r.email));
    } catch (err) {
      if (isDatabaseUnavailable(err)) for (const r of batch) r.reject(err);
      else for (const r of batch) void this.#alone(r.campaignId, r.email).then(r.resolve, r.reject);
      return;
    }
    const byAddress = new Map(rows.map((row) => [row.email, row]));
    for (const r of batch) r.resolve(byAddress.get(r.email));
  }
}
