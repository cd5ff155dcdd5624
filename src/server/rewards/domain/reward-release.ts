/**
 * The hold's end: credits written `pending` (a campaign with holdDays) become `available` once their
 * availableOn has passed. Nothing is kept in memory: the pending entries are the schedule, so a restart
 * loses nothing and picks up what fell due while the service was down. Each participant's credits are
 * released in a transaction that locks the participant's row and flips only entries still pending, so
 * several processes running this at once release each credit exactly once (one reward_unlocked each).
 * A credit an open dispute holds (held_by_dispute, ./disputes.ts) is not due until the dispute closes.
 */
import type { CampaignRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { RewardBatch } from './reward-credits.js';
import { eachMovedCampaign } from '../../kernel/campaign-time.js';
import { loopFailureLog, type LoopLog } from '../../kernel/outage-log.js';

/** Participants whose due credits one round releases, before it looks again. */
const ROUND = 100;

/**
 * Releases every credit due now; answers how many participants had credits released. `campaignId`: of
 * that campaign only, called in its time (a test campaign's, ../../kernel/campaign-time.ts).
 */
export async function releaseDueRewards(ctx: Ctx, campaignId?: string): Promise<number> {
  let released = 0;
  const campaigns = new Map<string, CampaignRow | undefined>();
  for (;;) {
    const now = ctx.now();
    const due = await ctx.store.rewardEntries.dueParticipants(now, ROUND, campaignId);
    let queued = false;
    for (const id of due) {
      const outcome = await ctx.store.transaction(async (tx) => {
        const states = await tx.lockParticipants([id]);
        const state = states.get(id) ?? (await tx.rewardState(id));
        if (!state) return undefined;
        states.set(id, state);
        const entries = await tx.rewardEntries.release(id, now);
        if (entries.length === 0) return undefined; // another process released them first
        if (!campaigns.has(state.campaign_id)) campaigns.set(state.campaign_id, await tx.findCampaign(state.campaign_id));
        const batch = new RewardBatch(tx, campaigns.get(state.campaign_id)!, now, states, ctx.metrics);
        await batch.released(entries);
        return batch.commit();
      });
      if (outcome !== undefined) released++;
      if (outcome) queued = true;
    }
    if (queued) ctx.onEventsCommitted?.();
    if (due.length < ROUND) return released;
  }
}

/**
 * What falls due in test campaigns' time first (each in its time: their credits' timestamps are theirs),
 * then everything due in the real time.
 */
export async function releaseAll(ctx: Ctx): Promise<void> {
  await eachMovedCampaign(ctx, (id) => releaseDueRewards(ctx, id));
  await releaseDueRewards(ctx);
}

/**
 * Runs releaseDueRewards at start and then every `intervalMs` (a minute by default: a hold is counted
 * in days). Errors are logged and the next tick tries again.
 */
export class RewardReleaser {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #stopped = false;
  readonly #failed: (err: unknown) => void;

  constructor(
    private readonly ctx: Ctx,
    private readonly intervalMs = 60_000,
    log: LoopLog = console,
  ) {
    this.#failed = loopFailureLog(log, 'releasing held rewards');
  }

  start(): void {
    this.#tick();
  }

  #tick(): void {
    if (this.#stopped) return;
    this.#running = releaseAll(this.ctx)
      .catch(this.#failed)
      .finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(() => this.#tick(), this.intervalMs).unref();
      });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
