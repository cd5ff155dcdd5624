/**
 * The loop of an outbox's sender (webhooks/domain/dispatcher.ts, emails/domain/sender.ts): runs `tick` at start, again
 * when nudged (a change wrote to the outbox) or after `pollMs` without a nudge; never two ticks at once
 * (a nudge during one makes one more run right after it). A tick's failure is logged, and the next tick
 * tries again.
 */
export abstract class PollLoop {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;

  constructor(
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Sends what is due; a tick that loops checks `stopped` between rounds. */
  protected abstract tick(): Promise<void>;

  protected get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#stopped = false;
    this.nudge();
  }

  /** Looks for due work now (a tick already under way looks once more when it ends). */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#running = this.tick()
      .catch(this.onError)
      .finally(() => {
        this.#running = undefined;
        if (this.#stopped) return;
        if (this.#again) {
          this.#again = false;
          this.nudge();
        } else {
          this.#timer = setTimeout(() => this.nudge(), this.pollMs);
        }
      });
  }

  /** Stops polling and waits for the tick in flight (its attempts are recorded). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
