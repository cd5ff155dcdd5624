/**
 * The service's Prometheus metrics (prom-client): one registry per process, so each instance (and each
 * worker) reports its own and several sum. It is what the domain reports to (../../kernel/metrics.ts), what
 * the database layer tells (../../store/observer.ts) and what the HTTP hook times (../routes/metrics-route.ts); the outboxes'
 * backlogs and the schedulers' lag are read from the database at each scrape (../store/monitoring-store.ts).
 * docs/operate.md lists every series, with its labels and their cardinality.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { AttemptResult, DomainMetrics, Outbox, RateLimitName } from '../../kernel/metrics.js';
import type { Backlogs, MonitoringStore } from '../store/monitoring-store.js';
import type { DbObserver } from '../../store/observer.js';
import { PlainHistogram, RequestStats } from './request-stats.js';

/** Request and statement times, seconds: from a cached point read to a slow export. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Statements: most take tens of microseconds on SQLite. */
const QUERY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Units per SQLite batch: powers of two. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

const OUTBOXES: Outbox[] = ['webhooks', 'emails', 'stripe_payouts'];

/** Where the scrape-time readings come from, given once the database is open. */
export interface MetricSources {
  monitoring: MonitoringStore;
  /** Units of work waiting for a connection (PostgreSQL) or the writer (SQLite). */
  waiting: () => number;
  now: () => number;
}

export class ServiceMetrics implements DomainMetrics, DbObserver {
  readonly registry = new Registry();
  #sources: MetricSources | undefined;


  /** A business counter: one series per campaign (docs/operate.md says what that costs). */
  #byCampaign(name: string, help: string): Counter<'campaign'> {
    return new Counter({ name, help, labelNames: ['campaign'] as const, registers: [this.registry] });
  }

  readonly #requests = new RequestStats(
    'refkit_http_requests_total',
    'HTTP requests answered, by route pattern (never the raw URL), method and status.',
    'refkit_http_request_duration_seconds',
    'Time from a request received to its answer sent, by route pattern and method.',
    LATENCY_BUCKETS,
  );
  readonly #queryTime = new PlainHistogram('refkit_db_query_duration_seconds', 'Time each database statement took (PostgreSQL: sent to answered; SQLite: the call).', QUERY_BUCKETS);
  readonly #poolWait = new PlainHistogram('refkit_db_pool_wait_seconds', 'Time a unit of work waited for a pool connection (PostgreSQL) or for the writer (SQLite).', LATENCY_BUCKETS);
  readonly #waiting = new Gauge({
    name: 'refkit_db_pool_waiting',
    help: 'Units of work waiting now for a pool connection (PostgreSQL) or for the writer (SQLite).',
    registers: [this.registry],
    collect: () => {
      if (this.#sources) this.#waiting.set(this.#sources.waiting());
    },
  });
  readonly #batchSize = new PlainHistogram('refkit_sqlite_group_commit_batch_units', 'Units of work (requests’ transactions and single writes) committed by each SQLite group commit.', BATCH_BUCKETS);
  readonly #pending = new Gauge({
    name: 'refkit_outbox_pending',
    help: 'Items still to send in each outbox (the database’s, the same from every instance: use max, not sum).',
    labelNames: ['outbox'] as const,
    registers: [this.registry],
  });
  readonly #oldestAge = new Gauge({
    name: 'refkit_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest item still to send in each outbox; 0 when it is empty.',
    labelNames: ['outbox'] as const,
    registers: [this.registry],
  });
  readonly #attempts = new Counter({
    name: 'refkit_outbox_attempts_total',
    help: 'Outbox items attempted by this process, by result (delivered/sent/paid, retry, failed, skipped, waiting, deferred).',
    labelNames: ['outbox', 'result'] as const,
    registers: [this.registry],
  });
  readonly #lag = new Gauge({
    name: 'refkit_scheduler_lag_seconds',
    help: 'How late the earliest due item of each scheduled job is (0 when nothing is overdue).',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  readonly #signups = this.#byCampaign('refkit_signups_total', 'Participants created, by campaign.');
  readonly #qualifications = this.#byCampaign('refkit_qualifications_total', 'Referees’ qualifying events recorded (once per referee), by campaign.');
  readonly #credits = this.#byCampaign('refkit_reward_credits_total', 'Reward credits written (fixed rewards, commissions, milestones), by campaign.');
  readonly #reversals = this.#byCampaign('refkit_reward_reversals_total', 'Reward reversals written (refunds taking credits back), by campaign.');
  readonly #holds = this.#byCampaign('refkit_fraud_holds_total', 'Sign-ups fraud scoring held for review, by campaign.');
  readonly #refusals = new Counter({
    name: 'refkit_rate_limit_refusals_total',
    help: 'Calls refused by a rate limit (429), by limit.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  constructor() {
    for (const m of [...this.#requests.metrics, this.#queryTime.metric, this.#poolWait.metric, this.#batchSize.metric]) this.registry.registerMetric(m as never);
    // The process's own: CPU, memory, event loop lag, GC, handles (prom-client's names, no prefix).
    collectDefaultMetrics({ register: this.registry });
    // Every label value that can be known in advance is there from the start, at zero: a rate() or an
    // alert on a series that has not happened yet then reads 0 instead of nothing.
    for (const outbox of OUTBOXES) {
      this.#pending.set({ outbox }, 0);
      this.#oldestAge.set({ outbox }, 0);
    }
    for (const job of [...OUTBOXES, 'reward_release']) this.#lag.set({ job }, 0);
    for (const [outbox, results] of [
      ['webhooks', ['delivered', 'retry', 'failed']],
      ['emails', ['sent', 'retry', 'failed', 'skipped', 'deferred']],
      ['stripe_payouts', ['paid', 'retry', 'failed', 'waiting']],
    ] as const) {
      for (const result of results) this.#attempts.inc({ outbox, result }, 0);
    }
    for (const limit of ['per_ip', 'signups_per_ip', 'signups_per_campaign', 'key_failures_per_ip'] as const) this.#refusals.inc({ limit }, 0);
  }

  /** Starts the scrape-time readings (outboxes, lag, waits) from this database. */
  watch(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** The Prometheus text exposition of every series, after reading the backlogs. */
  async text(): Promise<string> {
    await this.#readBacklogs();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async #readBacklogs(): Promise<void> {
    const sources = this.#sources;
    if (!sources) return;
    let backlogs: Backlogs;
    let held: number | null;
    try {
      [backlogs, held] = await Promise.all([sources.monitoring.backlogs(), sources.monitoring.earliestHeldReward()]);
    } catch (err) {
      // Stale numbers would say all is well: the series go until the database answers again.
      this.#pending.reset();
      this.#oldestAge.reset();
      this.#lag.reset();
      process.emitWarning(`Refkit: a metrics scrape could not read the outboxes: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const now = sources.now();
    const late = (at: number | null) => (at === null ? 0 : Math.max(0, now - at) / 1000);
    for (const outbox of OUTBOXES) {
      const b = backlogs[outbox];
      this.#pending.set({ outbox }, b.pending);
      this.#oldestAge.set({ outbox }, late(b.oldestCreatedOn));
      this.#lag.set({ job: outbox }, late(b.earliestDueOn));
    }
    this.#lag.set({ job: 'reward_release' }, late(held));
  }

  /** One answered request (../routes/metrics-route.ts). */
  request(route: string, method: string, status: number, seconds: number): void {
    this.#requests.observe(route, method, status, seconds);
  }

  // ---- DbObserver ----
  query(seconds: number): void {
    this.#queryTime.observe(seconds);
  }
  poolWait(seconds: number): void {
    this.#poolWait.observe(seconds);
  }
  batch(units: number): void {
    this.#batchSize.observe(units);
  }

  // ---- DomainMetrics ----
  signedUp(campaign: string, held: boolean): void {
    this.#signups.inc({ campaign });
    if (held) this.#holds.inc({ campaign });
  }
  qualified(campaign: string): void {
    this.#qualifications.inc({ campaign });
  }
  rewards(campaign: string, credits: number, reversals: number): void {
    if (credits > 0) this.#credits.inc({ campaign }, credits);
    if (reversals > 0) this.#reversals.inc({ campaign }, reversals);
  }
  attempt(outbox: Outbox, result: AttemptResult): void {
    this.#attempts.inc({ outbox, result });
  }
  rateLimited(limit: RateLimitName): void {
    this.#refusals.inc({ limit });
  }
}
