/**
 * Checkpoints of a SQLite WAL, run by a connection of their own on a worker thread.
 *
 * Left to SQLite, the COMMIT that takes the WAL past 1,000 pages copies them into the database file and
 * syncs it, on the connection that committed: the event loop, for a process on better-sqlite3. Under a
 * write load that stalled every request for 10-25 ms a few times a second (a new visitor's code checks
 * at 9k a second: p99 28 ms with those checkpoints, 12 ms without). A worker thread does the copying and
 * the syncing instead; the writer only appends to the WAL (./group-commit.ts decides when to call it).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What `PRAGMA wal_checkpoint` answers: frames in the WAL, and how many of them are now in the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * The worker, as source: it has nothing to share with the bundle but the driver, which it loads from the
 * path the main thread resolved. PASSIVE never waits for a lock: it copies what no reader still needs,
 * and a later checkpoint copies the rest. The connection's default `synchronous` (FULL) makes each
 * checkpoint sync the WAL before copying from it and the database after.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// Rethrown as a plain Error: better-sqlite3's SqliteError reaches the main thread without its message.
let db;
try {
  db = new Database(workerData.path, { fileMustExist: true });
} catch (err) {
  throw new Error('cannot open ' + workerData.path + ': ' + (err instanceof Error ? err.message : String(err)));
}
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ ok: db.pragma(message === 'truncate' ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(PASSIVE)')[0] });
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
`;

type Reply = { ok: CheckpointResult } | { error: string };

export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  /** The checkpoint under way: one at a time. */
  #running: Promise<CheckpointResult> | undefined;
  #failure: Error | undefined;

  /** Starts the worker for the database file at `path` (not `:memory:`: it has no WAL). */
  constructor(path: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path } });
    // Idle, the worker never keeps a process alive; closing the database ends it.
    this.#worker.unref();
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.on('error', (err) => (this.#failure = err));
  }

  /** Set once the worker has failed (it could not open the file, say): checkpoints are then the writer's again. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Runs one PASSIVE checkpoint, after the one under way if any. */
  checkpoint(): Promise<CheckpointResult> {
    return this.#queue('checkpoint');
  }

  /**
   * Copies the whole WAL into the database and truncates it to nothing (after an erasure: no old page
   * stays in it), waiting on the worker for readers to move on. The caller holds the writer.
   */
  truncate(): Promise<CheckpointResult> {
    return this.#queue('truncate');
  }

  /** Runs `what` after the checkpoint under way, if any: one at a time. */
  #queue(what: 'checkpoint' | 'truncate'): Promise<CheckpointResult> {
    const previous = this.#running ?? Promise.resolve(undefined);
    const next = previous.catch(() => undefined).then(() => this.#ask(what));
    this.#running = next;
    void next.catch(() => undefined).then(() => {
      if (this.#running === next) this.#running = undefined;
    });
    return next;
  }

  #ask(what: 'checkpoint' | 'truncate'): Promise<CheckpointResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      // Referenced while a checkpoint is under way: something (a write waiting for the writer) may wait for it.
      this.#worker.ref();
      const onExit = () => reject(this.#failure ?? new Error('The checkpoint worker has stopped'));
      this.#worker.once('exit', onExit);
      this.#worker.once('message', (reply: Reply) => {
        this.#worker.off('exit', onExit);
        this.#worker.unref();
        if ('ok' in reply) resolve(reply.ok);
        else reject(new Error(reply.error));
      });
      this.#worker.postMessage(what);
    });
  }

  /** Waits for the checkpoint under way, then closes the worker's connection and ends the worker. */
  async close(): Promise<void> {
    await this.#running?.catch(() => undefined);
    // Referenced until it has exited, which the caller waits for.
    this.#worker.ref();
    if (!this.#failure) this.#worker.postMessage('close');
    else await this.#worker.terminate();
    await this.#exited;
  }
}
