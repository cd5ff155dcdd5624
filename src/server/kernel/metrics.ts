/**
 * What the domain reports as it happens, for the service's metrics (../operations/domain/service-metrics.ts, which
 * implements it with prom-client; the domain never imports that). `ctx.metrics` is absent unless metrics
 * are on, so each report is `ctx.metrics?.x(...)`. Reports are made once a change has committed (a
 * transaction's via `store.afterCommit`), never for work that rolled back.
 */
import type { Store } from '../store/store.js';

/** The senders whose attempts are counted by result. */
export type Outbox = 'webhooks' | 'emails' | 'stripe_payouts';

/**
 * An attempt's result: it went out (`delivered`, `sent`, `paid`), failed and will be tried again
 * (`retry`), failed for good (`failed`), was not sent (`skipped`: unsubscribed or turned off), or waits
 * for something (`waiting`: a Stripe payout with no customer yet; `deferred`: an email over its domain's limit).
 */
export type AttemptResult = 'delivered' | 'sent' | 'paid' | 'retry' | 'failed' | 'skipped' | 'waiting' | 'deferred';

/** The rate limits of ../http/rate-limit.ts, by their settings' names. */
export type RateLimitName = 'per_ip' | 'signups_per_ip' | 'signups_per_campaign' | 'key_failures_per_ip';

export interface DomainMetrics {
  /** A participant was created (a sign-up, or a confirmed pending one); `held`: fraud scoring held it for review. */
  signedUp(campaignId: string, held: boolean): void;
  /** A referee's qualifying event was recorded (the first one: a referral qualifies once). */
  qualified(campaignId: string): void;
  /** Reward entries one committed batch wrote: credits (fixed rewards, commissions, milestones) and reversals. */
  rewards(campaignId: string, credits: number, reversals: number): void;
  /** One outbox item was attempted (or put off) with this result. */
  attempt(outbox: Outbox, result: AttemptResult): void;
  /** A call was refused by a rate limit. */
  rateLimited(limit: RateLimitName): void;
}

/** Reports to `metrics`, if on, once `store`'s transaction has committed (at once outside one). */
export function report(metrics: DomainMetrics | undefined, store: Pick<Store, 'afterCommit'>, f: (m: DomainMetrics) => void): void {
  if (metrics) store.afterCommit(() => f(metrics));
}
