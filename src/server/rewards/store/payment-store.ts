/**
 * SQL of referees' payments: each one recorded with the payer's counters it moves, refunds taken back from
 * them, and the commission each earned its referrer (../domain/reward-rules.ts decides how much).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Dialect } from '../../store/connect.js';
import { PaymentBatches } from './payment-batch.js';
import { directUnit, prepare } from '../../store/prepared.js';
import { participantById, referralsExact, ROW_COLUMNS } from '../../store/referral-count-store.js';
import { addToExisting, dayOf, type StatsStore } from '../../store/stats-store.js';
import type { Database, ParticipantsTable, PaymentsTable } from '../../store/tables.js';

export type PaymentRow = Selectable<PaymentsTable>;
type ParticipantRow = Selectable<ParticipantsTable>;

/** The payer's columns a repeated payment writes (writes.repeat): its answer takes them from the write. */
const WRITTEN = ['amount_paid_cents', 'payment_count', 'last_payment_id', 'updated_on'] as const;
type Written = (typeof WRITTEN)[number];

/** What a payment of `cents` moves on its payer's row (PostgreSQL): the sum, the count, and the end of their chain, the new payment's id, drawn here. */
const payerPaid = (cents: number, now: number) => (eb: ExpressionBuilder<Database, 'participants'>) => ({
  amount_paid_cents: eb('amount_paid_cents', '+', cents),
  payment_count: eb('payment_count', '+', 1),
  last_payment_id: sql<number>`nextval(pg_get_serial_sequence('payments', 'id'))`,
  updated_on: now,
});

/** What a payment of `cents` moves on its payer's referrer's row. */
const referrerRevenue = (cents: number, now: number) => (eb: ExpressionBuilder<Database, 'participants'>) => ({
  revenue_generated_cents: eb('revenue_generated_cents', '+', cents),
  updated_on: now,
});

/** The columns of a payment written with its link in the payer's chain (PostgreSQL), in the order `chained` gives their values. */
const CHAINED_COLUMNS = ['id', 'participant_id', 'prev_id', 'seq', 'amount_cents', 'qualifying', 'commission_credited', 'paid_on'] as const;

/**
 * A chained payment's values: its id and seq from `payer` (the payer's row as updated by payerPaid), its
 * link from `before` (the payer's row before that update: its last payment then).
 */
const chained = (before: 'previous' | 'locked', payerId: number, cents: number, qualifying: number, decided: number, now: number) => [
  sql<number>`${sql.ref('payer.last_payment_id')}`.as('id'),
  sql.val(payerId).as('participant_id'),
  sql<number | null>`${sql.ref(`${before}.last_payment_id`)}`.as('prev_id'),
  sql<number>`${sql.ref('payer.payment_count')}`.as('seq'),
  sql.val(cents).as('amount_cents'),
  sql.val(qualifying).as('qualifying'),
  sql.val(decided).as('commission_credited'),
  sql.val(now).as('paid_on'),
];

/**
 * SQLite: a payment read from its payer's row, numbered after their earlier ones and chained to the
 * latest of them; the payer's counters (and last_payment_id) and their referrer's revenue move by the
 * trigger payments_payer (migration 0021). `payerStill`: what the payer's row must hold for it to be
 * written at all.
 */
const paymentFromPayer = (
  db: Kysely<Database>,
  payerId: number,
  cents: number,
  qualifying: number,
  decided: number,
  now: number,
  payerStill: (eb: ExpressionBuilder<Database, 'participants'>) => Expression<SqlBool>[] = () => [],
) =>
  db
    .insertInto('payments')
    .columns(['participant_id', 'prev_id', 'seq', 'amount_cents', 'qualifying', 'commission_credited', 'paid_on'])
    .expression((eb) =>
      eb
        .selectFrom('participants')
        .select((eb) => [
          eb.val(payerId).as('participant_id'),
          'last_payment_id',
          eb(eb.ref('payment_count'), '+', 1).as('seq'),
          eb.val(cents).as('amount_cents'),
          eb.val(qualifying).as('qualifying'),
          eb.val(decided).as('commission_credited'),
          eb.val(now).as('paid_on'),
        ])
        .where((eb) => eb.and([eb('id', '=', payerId), ...payerStill(eb)])),
    );

const writes = {
  /** SQLite: a payment (paymentFromPayer). */
  insert: prepare((db, payerId: number, cents: number, qualifying: number, decided: number, now: number) =>
    paymentFromPayer(db, payerId, cents, qualifying, decided, now).returning(['id', 'seq']),
  ),
  /**
   * SQLite: a repeated payment (PaymentStore.recordRepeat), written only while the payer is still
   * `referrerId`'s qualified referee (a refund may have undone it since the call read the row): no row
   * is inserted, and so the trigger moves nothing, otherwise.
   */
  insertRepeat: prepare((db, payerId: number, referrerId: number, cents: number, now: number) =>
    paymentFromPayer(db, payerId, cents, 0, 1, now, (eb) => [eb('referred_by_id', '=', referrerId), eb('reward_event_completed', '=', 1)]),
  ),
  /**
   * PostgreSQL: the payer's counters, their referrer's revenue and the payment in one statement, the
   * updates CTEs. The payment's id is drawn first, so that the payer's row can point at it; `previous`
   * reads the payer's row as the statement's snapshot has it, which is its latest: the transaction locked
   * that row before (lockParticipants), so nobody else can have changed it since.
   */
  payerAndInsert: prepare((db, payerId: number, referrerId: number, cents: number, qualifying: number, decided: number, now: number) =>
    db
      .with('previous', (db) => db.selectFrom('participants').select('last_payment_id').where('id', '=', payerId))
      .with('revenue', (db) =>
        db
          .updateTable('participants')
          .set(referrerRevenue(cents, now))
          .where('id', '=', referrerId),
      )
      .with('payer', (db) =>
        db
          .updateTable('participants')
          .set(payerPaid(cents, now))
          .where('id', '=', payerId)
          .returning(['payment_count', 'last_payment_id']),
      )
      .insertInto('payments')
      .columns(CHAINED_COLUMNS)
      .expression((eb) => eb.selectFrom(['payer', 'previous']).select(chained('previous', payerId, cents, qualifying, decided, now)))
      .returning(['id', 'seq']),
  ),
  /**
   * PostgreSQL: a payment that credits nothing (PaymentStore.recordRepeat), whole in one statement, with no
   * transaction around it. `locked` takes the referrer's row and then the payer's, in that order (the
   * order of every crediting transaction, lockParticipants: no deadlock with them), and answers the
   * payer's as it is once locked, not as the statement's snapshot has it: its `last_payment_id` is the
   * new payment's `prev_id`, and whether the payer is still qualified (a refund may just have undone it)
   * decides whether anything is written. Every write below reads `payer`, so none runs before the locks
   * are held, and none writes anything when the payer no longer qualifies.
   */
  repeat: prepare((db, payerId: number, referrerId: number, campaignId: string, day: number, shard: number, cents: number, now: number) =>
    db
      .with(
        (cte) => cte('locked').materialized(),
        (db) =>
          db
            .selectFrom('participants')
            .select(ROW_COLUMNS)
            .where('id', 'in', [referrerId, payerId])
            .orderBy(sql`${sql.ref('id')} = ${referrerId}`, 'desc')
            .forNoKeyUpdate(),
      )
      .with('payer', (db) =>
        db
          .updateTable('participants')
          .set(payerPaid(cents, now))
          .where('id', '=', payerId)
          .where('referred_by_id', '=', referrerId)
          .where('reward_event_completed', '=', 1)
          .where((eb) => eb.exists(eb.selectFrom('locked').select('locked.id').where('locked.id', '=', payerId).where('locked.reward_event_completed', '=', 1)))
          .returning(WRITTEN),
      )
      .with('revenue', (db) =>
        db
          .updateTable('participants')
          .set(referrerRevenue(cents, now))
          .where('id', '=', referrerId)
          .where((eb) => eb.exists(eb.selectFrom('payer').select('payer.payment_count'))),
      )
      .with('day', (db) =>
        db
          .insertInto('campaign_daily_stats')
          .columns(['campaign_id', 'day', 'shard', 'referred_revenue_cents'])
          .expression((eb) =>
            eb
              .selectFrom('payer')
              // Typed, since PostgreSQL cannot infer a parameter's type in a select list.
              .select([
                sql<string>`cast(${campaignId} as text)`.as('campaign_id'),
                sql<number>`cast(${day} as integer)`.as('day'),
                sql<number>`cast(${shard} as integer)`.as('shard'),
                sql<number>`cast(${cents} as bigint)`.as('referred_revenue_cents'),
              ]),
          )
          .onConflict(addToExisting('referred_revenue_cents', cents)),
      )
      .with('paid', (db) =>
        db
          .insertInto('payments')
          .columns(CHAINED_COLUMNS)
          .expression((eb) => eb.selectFrom(['payer', 'locked']).select(chained('locked', payerId, cents, 0, 1, now)).where('locked.id', '=', payerId))
          .returning('id'),
      )
      // The payer's row as the call answers it: as locked, with what this statement wrote. Its referral
      // count is the statement snapshot's, column and deltas alike (a fold that committed while this waited
      // for the lock would otherwise be counted twice: once in the locked column, once in the deltas).
      .selectFrom(['locked', 'payer', 'paid'])
      .select(ROW_COLUMNS.map((c) => sql.ref(`${WRITTEN.includes(c as Written) ? 'payer' : 'locked'}.${c}`).as(c)))
      .select((eb) => eb.selectFrom('participants as snapshot').select(referralsExact('snapshot').as('n')).where('snapshot.id', '=', payerId).as('total_referrals'))
      .where('locked.id', '=', payerId),
  ),
  revenue: prepare((db, referrerId: number, cents: number, now: number) =>
    db
      .updateTable('participants')
      .set(referrerRevenue(cents, now))
      .where('id', '=', referrerId),
  ),
};

export class PaymentStore {
  /** PostgreSQL, outside a transaction: repeated payments written together (./payment-batch.ts). */
  readonly #batches: PaymentBatches | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly stats: StatsStore,
  ) {
    this.#batches = dialect === 'postgres' && !db.isTransaction ? new PaymentBatches(db, () => stats.shard()) : undefined;
  }

  /**
   * Records a payment of `cents` by `payerId` (a referee of `referrerId`) with the payer's counters
   * (amountPaid, paymentCount) and the revenue it brings the referrer, in one statement.
   * `qualifying`: the call that recorded it qualified the payer. `decided`: no commission is due on it.
   */
  async record(payerId: number, referrerId: number, cents: number, qualifying: boolean, decided: boolean, now: number): Promise<{ id: number; seq: number }> {
    const q = qualifying ? 1 : 0;
    const d = decided ? 1 : 0;
    if (this.dialect === 'postgres') {
      const [row] = await writes.payerAndInsert(this.db, payerId, referrerId, cents, q, d, now);
      return { id: Number(row!.id), seq: Number(row!.seq) };
    }
    const [row] = await writes.insert(this.db, payerId, cents, q, d, now);
    return { id: Number(row!.id), seq: Number(row!.seq) };
  }

  /**
   * A payment of a payer who has qualified already, in a campaign without commission (so it credits
   * nothing: no commission, and no referral or milestone, which only qualifying credits), recorded as
   * record() with its day's revenue would in a transaction of their own: on PostgreSQL in one statement
   * (one round trip where the transaction took seven), on SQLite in one unit of the group commit.
   * Undefined, having written nothing, when the payer no longer qualifies where it writes (a refund
   * undid it), is not `referrerId`'s referee, or (SQLite) in a transaction: the caller then takes the
   * whole path. Otherwise the payer's row as it is once written, which the call answers with. On
   * PostgreSQL outside a transaction, written with the others that arrive at the same time
   * (./payment-batch.ts).
   */
  async recordRepeat(payerId: number, referrerId: number, campaignId: string, cents: number, now: number): Promise<ParticipantRow | undefined> {
    const day = dayOf(now);
    if (this.dialect !== 'postgres') return this.#recordRepeatSqlite(payerId, referrerId, campaignId, day, cents, now);
    const alone = async () => (await writes.repeat(this.db, payerId, referrerId, campaignId, day, this.stats.shard(), cents, now))[0] as ParticipantRow | undefined;
    return this.#batches ? this.#batches.add({ payerId, referrerId, campaignId, day, cents, now }, alone) : alone();
  }

  /**
   * SQLite: recordRepeat as one unit of the group commit (../../store/group-commit.ts): the payment (its
   * trigger moves the payer's counters and the referrer's revenue), the day's revenue, and the payer's
   * row as written, read back in the unit. The whole path took a transaction of five statements and a
   * read after it, through Kysely's awaited calls: 74.2 µs of the main thread a call in a profile, where
   * this takes 54.4 (docs/benchmarks.md, "Repeated qualify on SQLite"). In a transaction (no unit of its
   * own), the caller takes the whole path.
   */
  async #recordRepeatSqlite(payerId: number, referrerId: number, campaignId: string, day: number, cents: number, now: number): Promise<ParticipantRow | undefined> {
    const unit = directUnit(this.db);
    if (!unit) return undefined;
    return unit((write) => {
      if (write(writes.insertRepeat.compile(this.db, payerId, referrerId, cents, now)).numAffectedRows !== 1n) return undefined;
      write(this.stats.onDayWrite(campaignId, 'referred_revenue_cents', cents, day).compile());
      return write(participantById.compile(this.db, payerId)).rows[0] as ParticipantRow;
    });
  }

  /** Says what a payment was converted from (another currency, and the rate). */
  async setConvertedFrom(paymentId: number, note: string): Promise<void> {
    await this.db.updateTable('payments').set({ converted_from: note }).where('id', '=', paymentId).execute();
  }

  /** Takes back (negative `cents`) revenue a referrer's referee brought: a refund. */
  async addRevenue(referrerId: number, cents: number, now: number): Promise<void> {
    await writes.revenue(this.db, referrerId, cents, now);
  }

  /**
   * A payer's payments, newest first: the chain from their row (migration 0021 says why a chain). The walk
   * reads every payment of theirs; a payer has tens, not thousands.
   */
  #chain(payerId: number) {
    return this.db
      .withRecursive('chain', (db) =>
        db
          .selectFrom('payments')
          .selectAll()
          .where('id', '=', (eb) => eb.selectFrom('participants').select('last_payment_id').where('id', '=', payerId))
          .unionAll((db) => db.selectFrom('payments').innerJoin('chain', 'chain.prev_id', 'payments.id').selectAll('payments')),
      )
      .selectFrom('chain')
      .selectAll();
  }

  /** Payments of a payer whose commission is not decided yet (they paid while their referral waited for review). */
  undecided(payerId: number): Promise<PaymentRow[]> {
    return this.#chain(payerId).where('commission_credited', '=', 0).orderBy('id').execute();
  }

  /** The commission a payment earned is decided: `units` (0 when none was due). */
  /** Records a payment's commission: `units` credited, computed at `bp` (0 when none was due). */
  async decide(paymentId: number, units: number, bp: number): Promise<void> {
    await this.db.updateTable('payments').set({ commission_credited: 1, commission: units, commission_bp: bp }).where('id', '=', paymentId).execute();
  }

  /** A payer's payments with something left to refund, newest first; only `paymentId` when given. */
  refundable(payerId: number, paymentId?: number): Promise<PaymentRow[]> {
    if (paymentId !== undefined) {
      return this.db.selectFrom('payments').selectAll().where('id', '=', paymentId).where('participant_id', '=', payerId).whereRef('refunded_cents', '<', 'amount_cents').execute();
    }
    return this.#chain(payerId).whereRef('refunded_cents', '<', 'amount_cents').orderBy('id', 'desc').execute();
  }

  async find(payerId: number, paymentId: number): Promise<PaymentRow | undefined> {
    return this.db.selectFrom('payments').selectAll().where('participant_id', '=', payerId).where('id', '=', paymentId).executeTakeFirst();
  }

  /** Takes `cents` of a payment back, and the commission it reverses; with the payer's amountPaid. */
  async refund(payment: PaymentRow, cents: number, commissionReversed: number, now: number): Promise<void> {
    await this.db
      .updateTable('payments')
      .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', cents), commission_reversed: eb('commission_reversed', '+', commissionReversed) }))
      .where('id', '=', payment.id)
      .execute();
    await this.db
      .updateTable('participants')
      .set((eb) => ({ amount_paid_cents: eb('amount_paid_cents', '-', cents), updated_on: now }))
      .where('id', '=', payment.participant_id)
      .execute();
  }

  /** Adds `units` (signed) to what was taken back of a payment's commission: a dispute opened (or won, negative). */
  async reverseCommission(paymentId: number, units: number): Promise<void> {
    await this.db.updateTable('payments').set((eb) => ({ commission_reversed: eb('commission_reversed', '+', units) })).where('id', '=', paymentId).execute();
  }

  /**
   * A full refund of the qualifying payment undid a referral: the referee is no longer qualified nor
   * credited (and shows as refunded), and the referrer's counts of it go.
   */
  async unqualify(refereeId: number, referrerId: number, wasCredited: boolean, now: number): Promise<void> {
    await this.db
      .updateTable('participants')
      .set({ reward_event_completed: 0, reward_event_completed_on: null, reward_credited: 0, refunded: 1, updated_on: now })
      .where('id', '=', refereeId)
      .execute();
    await this.db
      .updateTable('participants')
      .set((eb) => ({
        total_completed_referred: eb('total_completed_referred', '-', 1),
        credited_referrals: eb('credited_referrals', '-', wasCredited ? 1 : 0),
        updated_on: now,
      }))
      .where('id', '=', referrerId)
      .execute();
  }

  /** Lowers a referrer's highest milestone credited (one was cancelled with the referral that reached it). */
  async lowerMilestones(referrerId: number, reached: number): Promise<void> {
    await this.db.updateTable('participants').set({ milestones_reached: reached }).where('id', '=', referrerId).execute();
  }
}
