/**
 * PostgreSQL: repeated payments (a qualified referee paying again where no commission is to be decided,
 * ./payment-store.ts recordRepeat) that arrive together are written as one statement: each payer's
 * counters and payment, each referrer's revenue once with its payers' sum, each day's revenue once.
 * When payments go, and which wait together: ../../store/batches.ts. The sign-ups' batches
 * (../../referrals/store/signup-batch.ts) say why.
 *
 * What stays as it was, one payment at a time:
 * - a batch holds at most one payment of a payer (each payment is the next link of its payer's chain),
 *   and no payer who is another's referrer in it (one statement cannot update a row twice);
 * - the batch locks its rows with SKIP LOCKED and never waits for one, so it can be in no deadlock with
 *   the transactions that lock a referrer then a referee (lockParticipants). A payment whose payer's or
 *   referrer's row another transaction holds, or whose payer no longer qualifies once locked, is not
 *   written by the batch; it then runs alone, as the single statement (writes.repeat), which waits in
 *   that order and answers whatever it answers;
 * - a batch that fails whole has written nothing: each of its payments runs alone.
 */
import { sql, type Compilable, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import { prepare } from '../../store/prepared.js';
import { referralsExact, ROW_COLUMNS } from '../../store/referral-count-store.js';
import type { Database, ParticipantsTable } from '../../store/tables.js';
import { Batches, wroteNothing } from '../../store/batches.js';
import type { Selectable } from 'kysely';

type ParticipantRow = Selectable<ParticipantsTable>;

/** One repeated payment. */
export interface RepeatPayment {
  payerId: number;
  referrerId: number;
  campaignId: string;
  day: number;
  cents: number;
  now: number;
}

/** The payer's columns the batch writes: the answer takes them from the write, the others from the locked row. */
const WRITTEN = new Set(['amount_paid_cents', 'payment_count', 'last_payment_id', 'updated_on']);

/** A statement written as SQL, as something prepare() compiles once. */
const raw = <R>(db: Kysely<Database>, q: RawBuilder<R>): Compilable<R> & OperationNodeSource => ({ compile: () => q.compile(db), toOperationNode: () => q.toOperationNode() });

const repeatMany = prepare((db, payments: string, shard: number) =>
  raw<ParticipantRow>(
    db,
    sql`with input as materialized (
        select * from json_to_recordset(cast(${payments} as json))
          as i(payer_id bigint, referrer_id bigint, campaign_id text, day integer, cents bigint, now bigint)),
      locked as materialized (
        select ${sql.join(ROW_COLUMNS.map((c) => sql.ref(c)))} from participants
        where id in (select payer_id from input union select referrer_id from input)
        order by id
        for no key update skip locked),
      payer as (
        update participants p set
          amount_paid_cents = p.amount_paid_cents + i.cents,
          payment_count = p.payment_count + 1,
          last_payment_id = nextval(pg_get_serial_sequence('payments', 'id')),
          updated_on = i.now
        from input i
        where p.id = i.payer_id and p.referred_by_id = i.referrer_id and p.reward_event_completed = 1
          and exists (select 1 from locked l where l.id = i.payer_id and l.reward_event_completed = 1)
          and exists (select 1 from locked l where l.id = i.referrer_id)
        returning p.id, p.amount_paid_cents, p.payment_count, p.last_payment_id, p.updated_on, i.referrer_id, i.cents, i.campaign_id, i.day, i.now),
      revenue as (
        update participants r set revenue_generated_cents = r.revenue_generated_cents + s.cents, updated_on = s.now
        from (select referrer_id, sum(cents) as cents, max(now) as now from payer group by referrer_id) s
        where r.id = s.referrer_id),
      day as (
        insert into campaign_daily_stats (campaign_id, day, shard, referred_revenue_cents)
        select campaign_id, day, cast(${shard} as integer), sum(cents) from payer group by campaign_id, day
        on conflict (campaign_id, day, shard) do update
          set referred_revenue_cents = campaign_daily_stats.referred_revenue_cents + excluded.referred_revenue_cents),
      paid as (
        insert into payments (id, participant_id, prev_id, seq, amount_cents, qualifying, commission_credited, paid_on)
        select payer.last_payment_id, payer.id, l.last_payment_id, payer.payment_count, payer.cents, 0, 1, payer.now
        from payer join locked l on l.id = payer.id
        returning participant_id)
      select ${sql.join(ROW_COLUMNS.map((c) => sql`${sql.ref(`${WRITTEN.has(c) ? 'payer' : 'locked'}.${c}`)} as ${sql.ref(c)}`))},
        (select ${referralsExact('snapshot')} from participants snapshot where snapshot.id = payer.id) as total_referrals
      from locked join payer on payer.id = locked.id join paid on paid.participant_id = payer.id`,
  ),
);

interface Member {
  payment: RepeatPayment;
  /** The payment as the single statement, when the batch did not write it. */
  alone(): Promise<ParticipantRow | undefined>;
  resolve(row: ParticipantRow | undefined): void;
  reject(err: unknown): void;
}

/** No two payments of one payer in a batch, and no payer who is another's referrer there. */
const fits = (batch: readonly Member[], { payment: p }: Member): boolean =>
  batch.every(({ payment: b }) => b.payerId !== p.payerId && b.payerId !== p.referrerId && b.referrerId !== p.payerId);

export class PaymentBatches {
  readonly #batches = new Batches<Member>(fits, (batch) => this.#write(batch));

  constructor(
    private readonly db: Kysely<Database>,
    /** The shard of the day's counter a batch adds to (../../store/stats-store.ts). */
    private readonly shard: () => number,
  ) {}

  /** The payer's row once written with the others waiting with it, or what the payment answers alone. */
  add(payment: RepeatPayment, alone: () => Promise<ParticipantRow | undefined>): Promise<ParticipantRow | undefined> {
    return new Promise((resolve, reject) => this.#batches.add({ payment, alone, resolve, reject }));
  }

  /**
   * Ends once the batch's statement has: the payments it did not write run alone after, not holding up
   * the next batch (alone, a payment may wait for a row another transaction holds).
   */
  async #write(members: Member[]): Promise<void> {
    const aloneEach = (ms: Member[]) => void Promise.all(ms.map((m) => m.alone().then(m.resolve, m.reject)));
    let rows: ParticipantRow[];
    try {
      rows = await repeatMany(this.db, JSON.stringify(members.map((m) => paymentJson(m.payment))), this.shard());
    } catch (err) {
      if (!wroteNothing(err)) {
        for (const m of members) m.reject(err);
        return;
      }
      aloneEach(members);
      return;
    }
    const written = new Map(rows.map((r) => [Number(r.id), r]));
    for (const m of members) {
      const row = written.get(m.payment.payerId);
      if (row) m.resolve(row);
    }
    // Not written by the batch (a row held elsewhere, or the payer no longer qualifies): alone, which waits and decides.
    aloneEach(members.filter((m) => !written.has(m.payment.payerId)));
  }
}

const paymentJson = (p: RepeatPayment) => ({ payer_id: p.payerId, referrer_id: p.referrerId, campaign_id: p.campaignId, day: p.day, cents: p.cents, now: p.now });
