/**
 * What the log says while the database is away. Then every request that needs it is refused and every
 * tick of every background loop fails, the same way each time: the log says so once per
 * OUTAGE_LOG_EVERY_MS from each place, as a warning with how many it did not log since, rather than a
 * line each (hundreds a second). Any other failure is logged every time, as an error.
 */
import { isDatabaseUnavailable } from './unavailable.js';

/** At most one warning per this long from one place while the database is away. */
export const OUTAGE_LOG_EVERY_MS = 5_000;

/**
 * A throttle for one place: call it at each outage failure; it answers how many it left unlogged since
 * the last time it said to log (so: log now, with that count), or undefined (log nothing).
 */
export function outageThrottle(now: () => number = Date.now): () => number | undefined {
  let last = -Infinity;
  let unlogged = 0;
  return () => {
    const t = now();
    if (t - last < OUTAGE_LOG_EVERY_MS) {
      unlogged++;
      return undefined;
    }
    last = t;
    const skipped = unlogged;
    unlogged = 0;
    return skipped;
  };
}

/** What a background loop logs with (the service's pino logger, or a child of it). */
export interface LoopLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** How a background loop reports a failed tick (`what`: "webhook dispatch", "pruning expired data"...). */
export function loopFailureLog(log: LoopLog | undefined, what: string, now?: () => number): (err: unknown) => void {
  const outage = outageThrottle(now);
  return (err) => {
    if (!isDatabaseUnavailable(err)) return void log?.error({ err }, `${what} failed; trying again at the next tick`);
    const alsoFailed = outage();
    if (alsoFailed !== undefined) log?.warn({ err, alsoFailed }, `${what} failed: the database is unavailable; trying again at the next tick`);
  };
}
