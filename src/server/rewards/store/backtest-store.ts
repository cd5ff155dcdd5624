/**
 * The reads of the offer backtest (../domain/backtest.ts): a campaign's referral credits and its referees'
 * payments, each read for the whole campaign in a few big queries (not a query or two per referrer, nor
 * per page of them), each answered as one JSON text of columns (../../store/json-columns.ts). Nothing here writes.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import { readColumns, type Columns } from '../../store/json-columns.js';
import type { Database } from '../../store/tables.js';

interface PaymentRow {
  id: number;
  prev_id: number | null;
  participant_id: number;
  seq: number;
  amount_cents: number;
  refunded_cents: number;
  paid_on: number;
  qualifying: number;
}
type PaymentColumns = Columns<PaymentRow>;

/** A credit of a referral: the referee's own reward entry (one per credit, whatever its amount). */
export interface ReferralCreditRow {
  referrerId: number;
  refereeId: number;
  creditedOn: number;
  /** A refund of the qualifying payment cancelled it. */
  cancelled: boolean;
}

/** A referee's payment, in the shape the replay takes (../domain/backtest-replay.ts ReplayPayment), with the referrer. */
export interface RefereePaymentRow {
  referrerId: number;
  id: number;
  refereeId: number;
  seq: number;
  amountCents: number;
  refundedCents: number;
  paidOn: number;
  /** Recorded by the call that qualified the payer: its full refund can undo the referral. */
  qualifying: boolean;
}

/** Payments read by id at a time, in one parameter (a JSON array on SQLite, an array on PostgreSQL). */
const IDS = 100_000;

/**
 * Scan the whole payments table when the campaign's referees' payments are at least this share of it.
 * Without an index by payer (migration 0021) the campaign's payments are either found by walking each
 * payer's chain, a lookup by id per payment, or by reading every payment and keeping the campaign's.
 * On SQLite, 720,000 payments (the whole table) took 1.3 s walked and 0.7 s scanned (bench --backtest's
 * campaign): the scan wins from about half the table on, and the walk keeps a small campaign's backtest
 * from costing as much as the biggest one's.
 */
export const SCAN_SHARE = 0.5;

/** The ids a statement of the scan covers. */
export const SCAN_IDS = 400_000;

/** A payment's columns the replay takes; the walk reads the link to the payer's previous one too (a scan has no use for it: one value in eight less). */
const PAYMENT_COLUMNS = ['id', 'participant_id', 'seq', 'amount_cents', 'refunded_cents', 'paid_on', 'qualifying'] as const;
const WALKED_COLUMNS = [...PAYMENT_COLUMNS, 'prev_id'] as const;

export class BacktestStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** The ids a statement of the scan covers (SCAN_IDS; tests give fewer, to read in several). */
    private readonly scanIds = SCAN_IDS,
  ) {}

  /** Each credit of a referral of the campaign made before `before`, in the order they were made. */
  async referralCredits(campaignId: string, before: number): Promise<ReferralCreditRow[]> {
    const query = this.db
      .selectFrom('participants as p')
      .innerJoin('reward_entries as e', 'e.participant_id', 'p.id')
      .select(['e.id', 'p.referred_by_id', 'e.participant_id', 'e.created_on', 'e.status'])
      .where('p.campaign_id', '=', campaignId)
      .where('p.referred_by_id', 'is not', null)
      .where('e.kind', '=', 'referee')
      .where('e.created_on', '<', before);
    const c = await readColumns(this.db, this.dialect, query, ['id', 'referred_by_id', 'participant_id', 'created_on', 'status']);
    const out = c.id.map((id, i): ReferralCreditRow & { id: number } => ({
      id,
      referrerId: c.referred_by_id[i]!,
      refereeId: c.participant_id[i]!,
      creditedOn: c.created_on[i]!,
      cancelled: c.status[i] === 'cancelled',
    }));
    // Put in order here: an aggregate keeps no order of its own (and SQLite sorted the rows slower than this).
    out.sort((a, b) => a.creditedOn - b.creditedOn || a.id - b.id);
    return out.map(({ id: _, ...row }) => row);
  }

  /**
   * The payments made before `before` by the campaign's referees, in no order (the replay orders each
   * referrer's). Payments have no index by payer (migration 0021): a campaign holding much of the table
   * reads it all (SCAN_SHARE), a smaller one walks each referee's chain from their latest payment, a link
   * at a time for the whole campaign (a recursive query walking the same chains took twice as long on SQLite).
   */
  async refereePayments(campaignId: string, before: number): Promise<RefereePaymentRow[]> {
    const referees = await readColumns(
      this.db,
      this.dialect,
      this.db
        .selectFrom('participants')
        .select(['id', 'referred_by_id', 'last_payment_id', 'payment_count'])
        .where('campaign_id', '=', campaignId)
        .where('referred_by_id', 'is not', null)
        .where('last_payment_id', 'is not', null),
      ['id', 'referred_by_id', 'last_payment_id', 'payment_count'],
    );
    const referrerOf = new Map<number, number>();
    let theirs = 0;
    referees.id.forEach((id, i) => {
      referrerOf.set(id, referees.referred_by_id[i]!);
      theirs += referees.payment_count[i]!;
    });
    const out: RefereePaymentRow[] = [];
    /** Keeps the payments made before `before` of the campaign's referees; pushes each one's link to `prev`. */
    const keep = (c: Omit<PaymentColumns, 'prev_id'> & { prev_id?: (number | null)[] }, prev: number[] = []): void => {
      for (let i = 0; i < c.id.length; i++) {
        if (c.prev_id && c.prev_id[i] !== null) prev.push(c.prev_id[i]!);
        const refereeId = c.participant_id[i]!;
        const referrerId = referrerOf.get(refereeId);
        if (referrerId === undefined || c.paid_on[i]! >= before) continue;
        out.push({
          referrerId,
          id: c.id[i]!,
          refereeId,
          seq: c.seq[i]!,
          amountCents: c.amount_cents[i]!,
          refundedCents: c.refunded_cents[i]!,
          paidOn: c.paid_on[i]!,
          qualifying: c.qualifying[i] === 1,
        });
      }
    };
    const span = await this.#paymentIds();
    if (span && theirs >= SCAN_SHARE * (span.last - span.first + 1)) {
      // A range of ids a statement: each answer's text stays some tens of MB, far under V8's longest string
      // (about 2^29 characters) whatever the table's size, and on PostgreSQL two ranges run at once (its
      // json_agg is most of the read, on one core a statement).
      const ranges: [number, number][] = [];
      for (let from = span.first; from <= span.last; from += this.scanIds) ranges.push([from, Math.min(span.last, from + this.scanIds - 1)]);
      const read = ([from, to]: [number, number]) =>
        this.#payments(PAYMENT_COLUMNS, (q) =>
          q
            .innerJoin('participants as p', 'p.id', 'payments.participant_id')
            .where('payments.id', '>=', from)
            .where('payments.id', '<=', to)
            .where('p.campaign_id', '=', campaignId)
            .where('p.referred_by_id', 'is not', null)
            .where('payments.paid_on', '<', before),
        );
      for (let i = 0; i < ranges.length; i += 2) for (const c of await Promise.all(ranges.slice(i, i + 2).map(read))) keep(c);
      return out;
    }
    for (let ids = referees.last_payment_id as number[]; ids.length > 0; ) {
      const prev: number[] = [];
      for (let i = 0; i < ids.length; i += IDS) keep(await this.#payments(WALKED_COLUMNS, (q) => q.where(this.#idIn(ids.slice(i, i + IDS)))), prev);
      ids = prev;
    }
    return out;
  }

  /** The table's first and last payment ids (undefined when it has none): its ids are given in order, so their span is about how many payments it holds. */
  async #paymentIds(): Promise<{ first: number; last: number } | undefined> {
    const [row] = await this.db.selectFrom('payments').select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')]).execute();
    return row?.first == null ? undefined : { first: Number(row.first), last: Number(row.last) };
  }

  /** These columns of the payments `where` picks. */
  #payments<C extends keyof PaymentRow & string>(
    columns: readonly C[],
    where: (q: SelectQueryBuilder<Database, 'payments', object>) => SelectQueryBuilder<Database, 'payments', object>,
  ): Promise<Columns<Pick<PaymentRow, C>>> {
    const query = where(this.db.selectFrom('payments')).select(columns.map((c) => `payments.${c}` as const));
    return readColumns(this.db, this.dialect, query as never, columns) as Promise<Columns<Pick<PaymentRow, C>>>;
  }

  /** The payment's id is one of `ids`, given as one parameter: 10,000 bound parameters a statement cost more to build and bind than to run. */
  #idIn(ids: number[]) {
    return this.dialect === 'postgres'
      ? sql<boolean>`payments.id = any(${ids}::bigint[])`
      : sql<boolean>`payments.id in (select value from json_each(${JSON.stringify(ids)}))`;
  }
}
