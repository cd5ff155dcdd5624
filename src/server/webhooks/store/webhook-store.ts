/**
 * SQL of the webhook outbox. Claiming is one statement that takes due rows nobody holds: with
 * `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several processes share the work without taking the same
 * row; SQLite has a single writer, so the plain statement is already exclusive.
 */
import { dueInCampaignTime } from '../../store/campaign-clock-store.js';
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Caches } from '../../store/caches.js';
import type { Dialect } from '../../store/connect.js';
import { prepare, preparedWrite, type Write } from '../../store/prepared.js';
import type { Database, ParticipantsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from '../../store/tables.js';
import { bound } from '../../store/bound-limit.js';

// Every event is written with its deliveries, one per endpoint that takes it: compiled once (../../store/prepared.ts).
const eventInsert = prepare((db, id: string, account_id: number, campaign_id: string, event_type: string, created_on: number, payload: string) =>
  db.insertInto('webhook_events').values({ id, account_id, campaign_id, event_type, created_on, payload }),
);
const deliveryInsert = prepare((db, id: string, event_id: string, endpoint_id: string, at: number) =>
  db.insertInto('webhook_deliveries').values({ id, event_id, endpoint_id, status: 'pending', next_attempt_on: at, created_on: at, updated_on: at }),
);

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** An event ready for the outbox but for its payload, which is made from the row of the participant it is about. */
export interface OutboxEvent {
  row: Omit<Insertable<WebhookEventsTable>, 'payload'>;
  payload: (participant: Selectable<ParticipantsTable>) => string;
  deliveries: { id: string; endpointId: string }[];
}

/** A claimed delivery with what sending it needs. */
export interface DueDelivery {
  id: string;
  event_id: string;
  attempt_count: number;
  payload: string;
  url: string;
  secret: string;
}

export interface DeliveryFilter {
  accountId: number;
  status?: DeliveryRow['status'];
  endpointId?: string;
  eventType?: string;
  /** Only deliveries to endpoints of this mode (1 test, 0 live); both when absent. */
  test?: 0 | 1;
  limit: number;
}

export class WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly caches: Caches,
    /** Tells the owning store that endpoints changed (its caches are dropped once that commits). */
    private readonly changed: () => void,
  ) {}

  async insertEndpoint(row: Insertable<WebhookEndpointsTable>): Promise<void> {
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    this.changed();
  }

  /** The account's current endpoints, from the process's cache when it has them (every event reads them). */
  listEndpoints(accountId: number): Promise<EndpointRow[]> {
    return this.caches.endpoints.get(accountId, () =>
      this.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('deleted_on', 'is', null)
        .orderBy('created_on')
        .execute(),
    ) as Promise<EndpointRow[]>;
  }

  /** Sets which event types a current endpoint receives; false when the account has no such endpoint. */
  setEventTypes(id: string, accountId: number, eventTypes: string): Promise<boolean> {
    return this.updateCurrent(id, accountId, { event_types: eventTypes });
  }

  /** Changes an account's current endpoint (the caches are told); false when it has no such endpoint. */
  private async updateCurrent(id: string, accountId: number, set: Updateable<WebhookEndpointsTable>): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_endpoints')
      .set(set)
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_on', 'is', null)
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) return false;
    this.changed();
    return true;
  }

  /**
   * Removes an endpoint and ends its pending deliveries (as failed): nothing more goes to it. Call in a
   * transaction, so both happen or neither does.
   */
  async deleteEndpoint(id: string, accountId: number, now: number): Promise<boolean> {
    if (!(await this.updateCurrent(id, accountId, { deleted_on: now }))) return false;
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_on: null, updated_on: now })
      .where('endpoint_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    return true;
  }

  /** The event and one pending delivery per endpoint; call inside the transaction of the change. */
  async insertEvent(event: Insertable<WebhookEventsTable>, deliveries: { id: string; endpointId: string }[]): Promise<void> {
    for (const w of this.eventWrites(event, deliveries)) await w.run();
  }

  /**
   * insertEvent's writes, for the caller to run (or to put in one statement, ../../store/store.ts insertSignup): a
   * prepared insert for the event and one for each delivery, so that a sign-up's one statement on
   * PostgreSQL has the same text (and name) for as many endpoints.
   */
  eventWrites(event: Insertable<WebhookEventsTable>, deliveries: { id: string; endpointId: string }[]): Write[] {
    return [
      preparedWrite(eventInsert, this.db, event.id, event.account_id, event.campaign_id, event.event_type, event.created_on, event.payload),
      ...deliveries.map((d) => preparedWrite(deliveryInsert, this.db, d.id, event.id, d.endpointId, event.created_on)),
    ];
  }

  /** Claims up to `limit` due deliveries until `now + leaseMs`; returns them with payload and target. */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<DueDelivery[]> {
    const due = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      // Due in the campaign's own time: a test campaign's clock may be ahead (../../store/campaign-clock-store.ts).
      .where(dueInCampaignTime('webhook_deliveries.next_attempt_on', sql`(select e.campaign_id from webhook_events e where e.id = webhook_deliveries.event_id)`, now))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      // Not to a removed endpoint (a sub-select, so that FOR UPDATE locks delivery rows only).
      .where('endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('id').where('deleted_on', 'is', null))
      .orderBy('next_attempt_on')
      .limit(bound(limit))
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    const claimed = await this.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: now + leaseMs })
      .where('id', 'in', due)
      .returning('id')
      .execute();
    if (claimed.length === 0) return [];
    return this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select(['d.id', 'd.event_id', 'd.attempt_count', 'e.payload', 'w.url', 'w.secret'])
      .where(
        'd.id',
        'in',
        claimed.map((c) => c.id),
      )
      .execute();
  }

  /** Records one attempt and where the delivery goes next: delivered, failed, or pending at `nextAttemptOn`. */
  async finishAttempt(
    attempt: Insertable<WebhookAttemptsTable>,
    outcome: { status: DeliveryRow['status']; nextAttemptOn: number | null },
  ): Promise<void> {
    await this.db.insertInto('webhook_attempts').values(attempt).execute();
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        // A retry leaves the status as it is: pending, unless the endpoint was removed meanwhile (failed).
        ...(outcome.status !== 'pending' && { status: outcome.status }),
        next_attempt_on: outcome.nextAttemptOn,
        attempt_count: eb('attempt_count', '+', 1),
        claimed_until: null,
        updated_on: attempt.attempted_on,
      }))
      .where('id', '=', attempt.delivery_id)
      .execute();
  }

  async listDeliveries(f: DeliveryFilter): Promise<(DeliveryRow & { event_type: string; campaign_id: string; payload: string })[]> {
    let q = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select(['e.event_type', 'e.campaign_id', 'e.payload'])
      .where('e.account_id', '=', f.accountId);
    if (f.status) q = q.where('d.status', '=', f.status);
    if (f.endpointId) q = q.where('d.endpoint_id', '=', f.endpointId);
    if (f.eventType) q = q.where('e.event_type', '=', f.eventType);
    if (f.test !== undefined) q = q.where('d.endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('id').where('test', '=', f.test!));
    return q.orderBy('d.created_on', 'desc').orderBy('d.id', 'desc').limit(bound(f.limit)).execute();
  }

  attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
  }

  /**
   * Makes a delivery of the account due now, with a fresh retry schedule; false if there is none (or its
   * endpoint has been removed, or, given `test`, is of the other mode).
   */
  async redeliver(id: string, accountId: number, now: number, test?: 0 | 1): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_on: now, attempt_count: 0, claimed_until: null, updated_on: now })
      .where('id', '=', id)
      .where('event_id', 'in', (eb) => eb.selectFrom('webhook_events').select('id').where('account_id', '=', accountId))
      .where('endpoint_id', 'in', (eb) => {
        const current = eb.selectFrom('webhook_endpoints').select('id').where('deleted_on', 'is', null);
        return test === undefined ? current : current.where('test', '=', test);
      })
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }
}
