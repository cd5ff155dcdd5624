/**
 * The reads the metrics make at each scrape (../domain/service-metrics.ts): for each outbox, how many
 * items are still to send, when the oldest of them was made and when the earliest is due; and when the
 * earliest held reward fell due. Each is one aggregate over the outbox's own index of unsent rows
 * (webhook_deliveries_due, email_outbox_due: status first; stripe_payouts_due and reward_entries_due:
 * partial on the unsent statuses), so its cost grows with the backlog, never with the rows already sent
 * (measured in test/server/metrics.test.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';

/** One outbox's backlog: items still to send, and the creation and due times (epoch ms) of the oldest and earliest. */
export interface Backlog {
  pending: number;
  oldestCreatedOn: number | null;
  earliestDueOn: number | null;
}

export interface Backlogs {
  webhooks: Backlog;
  emails: Backlog;
  stripe_payouts: Backlog;
}

interface BacklogRow {
  pending: number | string;
  oldest: number | string | null;
  due: number | string | null;
}

const backlog = (row: BacklogRow | undefined): Backlog => ({
  pending: Number(row?.pending ?? 0),
  oldestCreatedOn: row?.oldest == null ? null : Number(row.oldest),
  earliestDueOn: row?.due == null ? null : Number(row.due),
});

export class MonitoringStore {
  constructor(private readonly db: Kysely<Database>) {}

  async backlogs(): Promise<Backlogs> {
    const [webhooks, emails, payouts] = await Promise.all([
      this.db
        .selectFrom('webhook_deliveries')
        .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('created_on').as('oldest'), eb.fn.min('next_attempt_on').as('due')])
        .where('status', '=', 'pending')
        .executeTakeFirst(),
      this.db
        .selectFrom('email_outbox')
        .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('created_on').as('oldest'), eb.fn.min('next_attempt_on').as('due')])
        .where('status', '=', 'pending')
        .executeTakeFirst(),
      this.db
        .selectFrom('stripe_payouts')
        .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('created_on').as('oldest'), eb.fn.min('next_attempt_on').as('due')])
        .where('status', 'in', ['queued', 'waiting'])
        .executeTakeFirst(),
    ]);
    return { webhooks: backlog(webhooks), emails: backlog(emails), stripe_payouts: backlog(payouts) };
  }

  /** When the earliest reward still held became (or becomes) available, epoch ms; null when none is held. */
  async earliestHeldReward(): Promise<number | null> {
    const row = await this.db
      .selectFrom('reward_entries')
      .select((eb) => eb.fn.min('available_on').as('due'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.due == null ? null : Number(row.due);
  }
}
