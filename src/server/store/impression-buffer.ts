/**
 * Impressions waiting to be written. A new visitor's code check answers without waiting for its own
 * transaction: its impression joins those of the next FLUSH_MS, written together in one transaction with
 * one count update per participant and day (Store.flushImpressions). Impressions are a count shown to the
 * owner, never a promise made to a client, so they are kept in memory that long: a crash loses at most the
 * last FLUSH_MS of them, and a graceful shutdown writes them first (../runtime.ts).
 */

export interface Impression {
  participantId: number;
  /** The hashed network and user agent (../domain/impressions.ts). */
  visitor: number;
  day: number;
}

/**
 * How long an impression may wait, and how many wait at most, before they are written. Fewer, larger
 * batches cost less in all (a commit rewrites every page it touched; with 25 ms and 200 a new visitor's
 * check cost 1.5 times the CPU it costs with these); the store's batch write pauses every few dozen
 * rows so that other requests run between the parts of a large batch.
 */
export const FLUSH_MS = 100;
export const MAX_WAITING = 1_000;

export class ImpressionBuffer {
  #waiting: Impression[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The write under way: batches are written one after another, in the order they were taken. */
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly write: (batch: Impression[]) => Promise<void>) {}

  add(impression: Impression): void {
    this.#waiting.push(impression);
    if (this.#waiting.length >= MAX_WAITING) void this.flush();
    // unref: waiting impressions never keep a process alive; shutdown flushes them itself.
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /**
   * Writes every impression added so far; resolves once they are in the database, or once a batch that
   * failed has been reported (a failed batch does not stop the next one).
   */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#waiting;
    this.#waiting = [];
    this.#writing = this.#writing.then(() => (batch.length > 0 ? this.write(batch) : undefined)).catch(reportLost);
    return this.#writing;
  }
}

/** A batch that could not be written is dropped (a count, not a promise), but never silently. */
function reportLost(err: unknown): void {
  process.emitWarning(`Refkit: a batch of impressions could not be written: ${err instanceof Error ? err.message : String(err)}`);
}
