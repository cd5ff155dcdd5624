/**
 * The retention pruner (docs/privacy.md#retention): clears participants' sign-up IPs and networks older
 * than each account's ipDays, and deletes delivered webhook events (with their deliveries and attempts)
 * older than webhookDays and sent, failed or skipped emails of the log older than emailDays; pending
 * webhooks and emails are never touched. Also, whatever the settings, sign-in throttle counts a day
 * after their window has ended.
 *
 * It works in batches of at most `batchSize` rows, each one short statement (webhook events: one short
 * transaction), and yields to the event loop between them, so requests go on while it runs; on SQLite
 * each batch is one unit of the group commit, between the requests' units. One process at a time prunes:
 * a run holds the `retention` lease (renewed with every batch) and one that cannot take it does nothing.
 *
 * Test campaigns run on their own clocks (../../kernel/campaign-time.ts): the loop first prunes each moved campaign
 * in its time (pruneExpired with `campaignId`, inside the campaign's time scope, as the hold releaser
 * does), and advanceClock runs that pass at each step, so a test campaign's data goes when its own days
 * have passed. Such a pass has no IP mark of its own: it scans the campaign's sign-ups from the first
 * (test campaigns are small) and clears only those that still have an IP.
 */
import { PollLoop } from '../../kernel/poll-loop.js';
import type { ScanPosition } from '../store/retention-store.js';
import type { Store } from '../../store/store.js';
import { retentionOf } from '../../accounts/domain/account-settings.js';
import { eachMovedCampaign, realNow } from '../../kernel/campaign-time.js';
import type { Ctx } from '../../kernel/context.js';
import { newSortableId } from '../../kernel/ids.js';
import { newSecret } from '../../kernel/secrets.js';
import { DAY_MS } from '../../kernel/time.js';
import { loopFailureLog, type LoopLog } from '../../kernel/outage-log.js';

/**
 * Rows per batch. SQLite has one writer, and a batch holds it (and, its statements being synchronous,
 * the event loop) while it runs: 250 rows keep sign-ups made meanwhile at their usual median (1,000 made
 * it 2.3x, bench --retention). PostgreSQL's batches lock only their own rows, so they can be larger.
 */
export const PRUNE_BATCH = { sqlite: 250, postgres: 1000 } as const;
/** Webhook events per batch: each takes its deliveries and attempts with it. */
const EVENT_BATCH_SHARE = 2;
/** How long a run's lease lasts without a batch renewing it: a process that died mid-run holds it no longer. */
export const PRUNE_LEASE_MS = 5 * 60_000;
const LEASE = 'retention';
/** Sign-in throttle counts go a day after their window ended, whatever the settings. */
const SIGNIN_FAILURES_KEPT_MS = DAY_MS;

export interface PruneOptions {
  batchSize?: number;
  leaseMs?: number;
  /** Who holds the lease (a fresh random name per run by default). */
  holder?: string;
  /** Asked between batches: true ends the run there (the service is shutting down). */
  stopped?: () => boolean;
  /** Only this campaign's data, in ctx.now() (call it in the campaign's time: a moved test campaign). */
  campaignId?: string;
}

/** What a run did, kept up to date while it runs (a caller may read it meanwhile). */
export interface PruneReport {
  /** False when another process held the lease: this run did nothing. */
  ran: boolean;
  /** Whether the run has ended (finished, lost its lease, or failed). */
  done: boolean;
  batches: number;
  participantIps: number;
  pendingSignupIps: number;
  signinFailures: number;
  /** Erased participants' tax details whose keeping period ended (docs/privacy.md#payouts-and-tax-details). */
  taxDetails: number;
  webhookEvents: number;
  emails: number;
}

export const newPruneReport = (): PruneReport => ({
  ran: false,
  done: false,
  batches: 0,
  participantIps: 0,
  pendingSignupIps: 0,
  signinFailures: 0,
  taxDetails: 0,
  webhookEvents: 0,
  emails: 0,
});

/** Ends a run between batches: its lease was taken over, or the service is stopping. */
class RunEnded extends Error {}

/** Lets the requests that arrived meanwhile run before the next batch. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Prunes everything past its account's periods; `report` (updated as it goes) says what it did. */
export async function pruneExpired(ctx: Ctx, options: PruneOptions = {}, report: PruneReport = newPruneReport()): Promise<PruneReport> {
  const store = ctx.store;
  const size = options.batchSize ?? PRUNE_BATCH[store.dialect];
  const leaseMs = options.leaseMs ?? PRUNE_LEASE_MS;
  const holder = options.holder ?? newSecret('prune');
  const now = ctx.now();
  // The lease is on the real time whatever campaign's time is in scope: other processes read it so.
  const real = () => realNow(ctx);
  try {
    if (!(await store.retention.claimLease(LEASE, holder, real(), real() + leaseMs))) return report;
    report.ran = true;
    /** Runs one batch, then renews the lease and yields; answers what the batch answered. */
    const batch = async <T>(work: () => Promise<T>): Promise<T> => {
      const out = await work();
      report.batches++;
      if (options.stopped?.() || !(await store.retention.claimLease(LEASE, holder, real(), real() + leaseMs))) throw new RunEnded();
      await yieldToRequests();
      return out;
    };
    try {
      if (options.campaignId !== undefined) await pruneCampaign(store, options.campaignId, now, size, batch, report);
      else {
        for (const account of await store.retention.accounts()) await pruneAccount(store, account, now, size, batch, report);
        while ((await batch(async () => count(report, 'signinFailures', await store.retention.deleteSigninFailures(now - SIGNIN_FAILURES_KEPT_MS, size)))) === size);
        while ((await batch(async () => count(report, 'taxDetails', await store.retention.deleteKeptTaxDetails(now, size)))) === size);
      }
    } catch (err) {
      // Stopping, or another process took the lease over (this one stalled past it): the next run goes on
      // from where the marks say.
      if (!(err instanceof RunEnded)) throw err;
    } finally {
      if (report.participantIps > 0) {
        // Processes cache referral codes' holders with their networks (../../store/caches.ts): they forget them.
        await store.retention.bumpCacheEpoch();
        store.changedCached();
      }
      await store.retention.releaseLease(LEASE, holder);
    }
    return report;
  } finally {
    report.done = true;
  }
}

/** What a run counts: every field of its report but whether it ran, ended, and its batches. */
type Counted = Exclude<keyof PruneReport, 'ran' | 'done' | 'batches'>;

function count(report: PruneReport, field: Counted, n: number): number {
  report[field] += n;
  return n;
}

type Batch = <T>(work: () => Promise<T>) => Promise<T>;
type Account = Awaited<ReturnType<Store['retention']['accounts']>>[number];

/** One account's campaigns, each period counted back from `now` (the real time). */
async function pruneAccount(store: Store, account: Account, now: number, size: number, batch: Batch, report: PruneReport): Promise<void> {
  const accountId = Number(account.id);
  const days = retentionOf(account);
  const campaigns = await store.retention.campaignIds(accountId);
  // IPs: ipDays 0 keeps none, so clears those stored before it was set.
  const ipsBefore = now - days.ipDays * DAY_MS;
  const ipsFrom = account.ips_cleared_before === null ? 0 : Number(account.ips_cleared_before);
  if (ipsFrom < ipsBefore) {
    for (const campaign of campaigns) await clearIps(store, campaign, ipsFrom, ipsBefore, size, batch, report);
    await store.retention.setIpsClearedBefore(accountId, ipsBefore);
  }
  for (const campaign of campaigns) await prunePendingAndEmails(store, campaign, ipsBefore, now - days.emailDays * DAY_MS, size, batch, report);
  await deleteWebhookEvents(store, accountId, undefined, now - days.webhookDays * DAY_MS, Math.max(1, Math.floor(size / EVENT_BATCH_SHARE)), batch, report);
}

/** One (moved test) campaign, each period of its account counted back from `now`, the campaign's time. */
async function pruneCampaign(store: Store, campaignId: string, now: number, size: number, batch: Batch, report: PruneReport): Promise<void> {
  const campaign = await store.findCampaign(campaignId);
  const account = campaign && (await store.retention.accounts()).find((a) => Number(a.id) === Number(campaign.account_id));
  if (!account) return;
  const days = retentionOf(account);
  const ipsBefore = now - days.ipDays * DAY_MS;
  await clearIps(store, campaignId, 0, ipsBefore, size, batch, report);
  await prunePendingAndEmails(store, campaignId, ipsBefore, now - days.emailDays * DAY_MS, size, batch, report);
  await deleteWebhookEvents(store, Number(account.id), campaignId, now - days.webhookDays * DAY_MS, Math.max(1, Math.floor(size / EVENT_BATCH_SHARE)), batch, report);
}

/** A campaign's unconfirmed sign-ups' IPs made before `ipsBefore`, and its email log made before `emailsBefore`. */
async function prunePendingAndEmails(store: Store, campaign: string, ipsBefore: number, emailsBefore: number, size: number, batch: Batch, report: PruneReport): Promise<void> {
  while ((await batch(async () => count(report, 'pendingSignupIps', await store.retention.clearPendingSignupIps(campaign, ipsBefore, size)))) === size);
  while ((await batch(async () => count(report, 'emails', await store.retention.deleteEmails(campaign, emailsBefore, size)))) === size);
}

/** A campaign's participants who signed up in [from, before): their IPs cleared, `size` at a time in sign-up order. */
async function clearIps(store: Store, campaignId: string, from: number, before: number, size: number, batch: Batch, report: PruneReport): Promise<void> {
  let after: ScanPosition | undefined;
  for (;;) {
    const rows = await store.retention.participantsSignedUp(campaignId, from, before, after, size);
    if (rows.length === 0) return;
    await batch(async () => count(report, 'participantIps', await store.retention.clearParticipantIps(rows.map((r) => r.id))));
    const last = rows[rows.length - 1]!;
    after = { createdOn: last.created_on, id: last.id };
    if (rows.length < size) return;
  }
}

/** The account's (or only one campaign's) webhook events made before `before` whose deliveries were all delivered before it, `size` at a time. */
async function deleteWebhookEvents(store: Store, accountId: number, campaignId: string | undefined, before: number, size: number, batch: Batch, report: PruneReport): Promise<void> {
  // Event ids begin with the time they were made in (../../kernel/ids.ts newSortableId): the ids below this one are older.
  const beforeId = newSortableId('msg', 0, before);
  let after = '';
  for (;;) {
    const rows = await store.retention.webhookEventsBefore(accountId, after, beforeId, before, size, campaignId);
    if (rows.length === 0) return;
    const done = rows.filter((r) => r.done).map((r) => r.id);
    if (done.length > 0) await batch(async () => count(report, 'webhookEvents', await store.transaction((tx) => tx.retention.deleteWebhookEvents(done, before))));
    else await yieldToRequests();
    after = rows[rows.length - 1]!.id;
    if (rows.length < size) return;
  }
}

/** Runs pruneExpired at start and then every `intervalMs` (an hour by default: periods are counted in days). */
export class RetentionPruner extends PollLoop {
  constructor(
    private readonly ctx: Ctx,
    intervalMs = 60 * 60_000,
    private readonly log?: LoopLog & { info?(obj: object, msg: string): void },
  ) {
    super(intervalMs, loopFailureLog(log, 'pruning expired data'));
  }

  protected async tick(): Promise<void> {
    await eachMovedCampaign(this.ctx, (campaignId) => pruneExpired(this.ctx, { stopped: () => this.stopped, campaignId }));
    const report = await pruneExpired(this.ctx, { stopped: () => this.stopped });
    if (report.ran && report.batches > 0) this.log?.info?.({ ...report }, 'pruned expired data');
  }
}
