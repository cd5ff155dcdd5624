/**
 * Impressions waiting to be written. A new visitor's code check answers without waiting for its own
 * transaction: its impression joins those of the next FLUSH_MS, written together in one transaction with
 * a few statements adding to the counts (Store.flushImpressions). Impressions are a count shown to the
 * owner, never a promise made to a client, so they are kept in memory that long: a crash loses at most the
 * last FLUSH_MS of them, and a graceful shutdown writes them first (../../runtime.ts).
 */

export interface Impression {
  participantId: number;
  /** The hashed network and user agent (../domain/impressions.ts). */
  visitor: number;
  day: number;
}

/**
 * How long an impression may wait, and how many wait at most, before they are written. Fewer, larger
 * batches cost less in all: a commit rewrites every page it touched, and new visitors of many
 * participants touch most of the participants' pages. Written alone (the benchmark's 2,000 participants,
 * one random visitor each), a batch of 1,000 cost 13 µs of CPU an impression and one of 5,000 cost 9;
 * in the service under 50 connections of new visitors, 500 ms and 8,000 answered 7% more checks a second
 * than 250 ms and 4,000 (and with 25 ms and 200 a check cost 1.5 times the CPU it cost with 100 ms and
 * 1,000). The store's batch write pauses every 256 rows so that other requests run between its parts.
 */
export const FLUSH_MS = 500;
export const MAX_WAITING = 8_000;

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
