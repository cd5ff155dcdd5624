/**
 * Every few seconds, analyses PostgreSQL's `participants` when enough of it changed
 * (store/planner-statistics.ts says why and when). Every process runs one: ANALYZE (SKIP_LOCKED) and the
 * time since the last one, read from PostgreSQL's own counters, keep them from doing it twice at once.
 */
import { PollLoop } from '../../kernel/poll-loop.js';
import type { Ctx } from '../../kernel/context.js';
import { loopFailureLog, type LoopLog } from '../../kernel/outage-log.js';
import { ANALYZE_EVERY_MS } from '../../store/planner-statistics.js';

export const STATISTICS_POLL_MS = 5_000;

export class PlannerStatisticsKeeper extends PollLoop {
  constructor(
    private readonly ctx: Pick<Ctx, 'store'>,
    private readonly minIntervalMs = ANALYZE_EVERY_MS,
    pollMs = STATISTICS_POLL_MS,
    log?: LoopLog,
  ) {
    super(pollMs, loopFailureLog(log, 'analysing participants'));
  }

  protected async tick(): Promise<void> {
    await this.ctx.store.plannerStatistics.refreshIfDue(this.minIntervalMs);
  }
}
