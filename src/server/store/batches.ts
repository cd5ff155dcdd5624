/**
 * Calls that arrive while earlier ones of their kind are at the database wait, and go to it together:
 * the batches of sign-ups (../referrals/store/signup-batch.ts), of repeated payments (../rewards/store/payment-batch.ts) and of point
 * reads by address (./point-reads.ts). PostgreSQL's cost of a small write or read is mostly per statement
 * (and per transaction), not per row; and so is the service's (node-postgres's work and its socket write).
 *
 * A call goes at once while fewer than IN_FLIGHT batches are at the database (alone, when nothing else
 * is); otherwise it joins the oldest waiting batch that `fits` it, or starts one. When a batch ends, the
 * oldest waiting one goes.
 */

/**
 * How many batches of one kind one process has at the database at once. More would let PostgreSQL use
 * more cores on one process's calls; fewer makes larger batches. Measured on 2 cores (50 connections, one
 * process): one in flight gave repeated payments 5.3k/s against 3.7k/s with two, sign-ups 7.6k/s against
 * 6.9k/s, and getParticipant 19.1k/s against 15.8k/s with two and 13.6k/s with four. Several processes
 * (WORKERS) each have their own.
 */
export const IN_FLIGHT = 1;
/** The most calls in one batch (a bound on a statement's parameters and on one transaction's locks). */
export const BATCH_SIZE = 64;

const sqlState = (err: unknown): string => (err as { code?: string }).code ?? '';

/**
 * Whether PostgreSQL wrote nothing of a batch's statement and each of its writes alone may still succeed:
 * a constraint (class 23: an email taken), a deadlock or serialization failure it broke, a sign-up's
 * assumption that failed (RK001, ../referrals/store/signup-reads.ts). Any other error (the database away) is every
 * member's.
 */
export const wroteNothing = (err: unknown): boolean => /^(23|40P01|40001|RK001)/.test(sqlState(err));

/** Whether PostgreSQL ended the statement to break a deadlock (or a serialization failure): running it again may succeed. */
export const brokenDeadlock = (err: unknown): boolean => /^(40P01|40001)$/.test(sqlState(err));

export class Batches<M> {
  readonly #pending: M[][] = [];
  #inFlight = 0;

  /**
   * `fits(batch, m)`: whether `m` may join the waiting `batch` (never called on a full one): what one
   * statement cannot hold together. `run(batch)` sends it and settles each of its members.
   */
  constructor(
    private readonly fits: (batch: readonly M[], m: M) => boolean,
    private readonly run: (batch: M[]) => Promise<void>,
  ) {}

  add(m: M): void {
    const batch = this.#pending.find((b) => b.length < BATCH_SIZE && this.fits(b, m));
    if (batch) batch.push(m);
    else this.#pending.push([m]);
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < IN_FLIGHT && this.#pending.length > 0) {
      const batch = this.#pending.shift()!;
      this.#inFlight++;
      void this.run(batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }
}
