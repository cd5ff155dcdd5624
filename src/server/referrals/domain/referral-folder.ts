/**
 * The referral count folder: every second, moves the referral counts sign-ups appended
 * (referrals/store/referral-count-store.ts) into their referrers' rows, so the deltas a read adds stay few. A
 * referrer's fold is one short transaction; the folds of one round run one after another and yield to
 * requests between them.
 *
 * No lease, unlike the retention pruner: every process of a database may fold at once. On PostgreSQL a
 * fold that meets another's deltas waits for it and then skips them (they are gone), so each delta is
 * added by exactly one fold; SQLite runs one write transaction at a time anyway. A lease would cost a
 * write every round to save work that is already small.
 */
import { PollLoop } from '../../kernel/poll-loop.js';
import type { Ctx } from '../../kernel/context.js';
import { loopFailureLog, type LoopLog } from '../../kernel/outage-log.js';

export const FOLD_INTERVAL_MS = 1000;

export class ReferralFolder extends PollLoop {
  constructor(
    private readonly ctx: Pick<Ctx, 'store'>,
    intervalMs = FOLD_INTERVAL_MS,
    log?: LoopLog,
  ) {
    super(intervalMs, loopFailureLog(log, 'folding referral counts'));
  }

  protected async tick(): Promise<void> {
    await this.ctx.store.referralCounts.fold(undefined, undefined, () => this.stopped);
  }
}
