/**
 * Delivers the outbox. Each tick claims due deliveries (a lease, so a crashed process's claims run out
 * and another process retries them), sends each one signed per Standard Webhooks, and records the
 * attempt and the next step: delivered on 2xx; otherwise retried on the schedule, then failed.
 * At-least-once: the `webhook-id` header is the event id on every attempt, so receivers can dedupe.
 */
import { Webhook } from 'standardwebhooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../../kernel/context.js';
import type { DueDelivery } from '../store/webhook-store.js';
import { postTo } from './send.js';
import { PollLoop } from '../../kernel/poll-loop.js';
import { resolveWebhookTarget, systemResolver, type Resolver } from './webhook-targets.js';
import { loopFailureLog } from '../../kernel/outage-log.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export interface DispatcherOptions {
  /** Waits before each retry; when they run out the delivery is marked failed. */
  retryDelaysMs: number[];
  timeoutMs: number;
  /** How often to look for due deliveries when nobody nudges. */
  pollMs: number;
  /** How long a claim holds; longer than timeoutMs so a live sender never loses its claim. */
  leaseMs: number;
  batchSize: number;
  allowPrivate: boolean;
  /** How target host names are resolved (the system resolver; tests give names their own addresses). */
  resolve: Resolver;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  retryDelaysMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  timeoutMs: 10 * SECOND,
  pollMs: 1 * SECOND,
  leaseMs: 60 * SECOND,
  batchSize: 20,
  allowPrivate: false,
  resolve: systemResolver,
};

/** An error with its causes: fetch says only "fetch failed"; why (refused, reset, not resolved) is in `cause`. */
function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && parts.length < 4; e = e instanceof Error ? e.cause : undefined) {
    parts.push(e instanceof Error ? e.message : String(e));
  }
  return parts.join(': ');
}

export class Dispatcher extends PollLoop {
  readonly #ctx: Ctx;
  readonly #options: DispatcherOptions;
  readonly #log: FastifyBaseLogger | undefined;

  constructor(ctx: Ctx, options: Partial<DispatcherOptions> = {}, log?: FastifyBaseLogger) {
    const settings = { ...DEFAULT_DISPATCHER_OPTIONS, ...options };
    super(settings.pollMs, loopFailureLog(log, 'webhook dispatch'));
    this.#ctx = ctx;
    this.#options = settings;
    this.#log = log;
  }

  protected async tick(): Promise<void> {
    for (;;) {
      const { leaseMs, batchSize } = this.#options;
      const due = await this.#ctx.store.transaction((tx) => tx.webhooks.claimDue(this.#ctx.now(), leaseMs, batchSize));
      if (due.length === 0) return;
      await Promise.all(due.map((d) => this.#deliver(d)));
      if (this.stopped) return;
    }
  }

  async #deliver(d: DueDelivery): Promise<void> {
    const started = this.#ctx.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await this.#send(d);
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
    } catch (err) {
      error = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${this.#options.timeoutMs} ms` : describe(err);
    }
    const now = this.#ctx.now();
    const delay = this.#options.retryDelaysMs[d.attempt_count];
    const outcome =
      error === null
        ? { status: 'delivered' as const, nextAttemptOn: null }
        : delay === undefined
          ? { status: 'failed' as const, nextAttemptOn: null }
          : { status: 'pending' as const, nextAttemptOn: now + delay };
    await this.#ctx.store.webhooks.finishAttempt(
      { delivery_id: d.id, attempted_on: started, status_code: statusCode, error, duration_ms: Math.max(0, now - started) },
      outcome,
    );
    this.#ctx.metrics?.attempt('webhooks', outcome.status === 'pending' ? 'retry' : outcome.status);
    this.#log?.[error ? 'warn' : 'info']({ delivery: d.id, event: d.event_id, statusCode, error, next: outcome.status }, 'webhook attempt');
  }

  /** One signed POST to the target resolved and checked now; resolves with the status code. */
  async #send(d: DueDelivery): Promise<number> {
    const target = await resolveWebhookTarget(d.url, this.#options.allowPrivate, this.#options.resolve);
    const timestamp = new Date(this.#ctx.now());
    const signature = new Webhook(d.secret).sign(d.event_id, timestamp, d.payload);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Refkit-Webhooks/1',
      'webhook-id': d.event_id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    return postTo(target, headers, d.payload, AbortSignal.timeout(this.#options.timeoutMs));
  }
}
