/**
 * SQLite with group commit: every write of the process goes through one writer connection, which keeps
 * one transaction (a batch) open while requests arrive and commits it once per turn of the event loop.
 * Each request's transaction (or single write) is a SAVEPOINT inside the batch: a failing one rolls back
 * alone, the rest commit together.
 *
 * A write resolves only once its batch is on disk: after the COMMIT, an fdatasync of the WAL file. The
 * writer runs with `synchronous=NORMAL`, so its COMMIT appends to the WAL without waiting for the disk,
 * and the sync runs on libuv's thread pool: while the disk works, the event loop goes on serving
 * requests and filling the next batch, and one sync covers every batch committed before it started.
 * (SQLite syncs the WAL itself before each checkpoint copies it into the database file.) No answer
 * reports a change a crash could lose, yet one fsync serves many requests instead of one each.
 *
 * Reads outside a transaction go to a second connection (WAL lets it read while the batch is open) and
 * so see committed data only, never a batch that might still fail. A request's own writes are visible
 * to its later reads, because a write returns only after its batch committed.
 *
 * The reads of one turn of the event loop share one read transaction, opened by the first of them and
 * ended after the turn's I/O callbacks (setImmediate), or sooner: when the writer begins a batch or
 * commits one. A statement outside a transaction takes and drops SQLite's shared locks and checks the
 * WAL index each time; within one it does not: a point read of a participant took 13.7 µs alone and
 * 6.8 µs as one of 20 in a transaction. Ending it at every COMMIT keeps the rule above (a read after a
 * write sees it), and at every BEGIN, which waits for other processes' commits, a read after a write
 * sees what that write saw (a row another process took, say). Otherwise another process's commit is
 * seen from the next turn, as a read that raced with it would have been.
 *
 * better-sqlite3 is synchronous, and its busy_timeout blocks the event loop; so nothing else in the
 * process may write to the database while a batch holds the write lock: everything above this file
 * sees one Kysely whose writes all come here. (Other processes, such as the CLI, wait on the lock.)
 */
import { closeSync, fdatasync, openSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import {
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';
import type { Checkpointer } from './checkpointer.js';
import { secondsSince, type DbObserver } from './observer.js';
import { allRows, iterateRows } from './sqlite-rows.js';

/** A FIFO lock: units of work take the writer in the order they asked for it. */
class Mutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];
  /** Units waiting for the writer. */
  get waiting(): number {
    return this.#waiters.length;
  }
  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

interface Batch {
  /** Resolves once the batch's COMMIT has returned (on disk), rejects if it failed. */
  durable: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
  units: number;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const durable = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Units that rolled back (or writes that do not wait) never await it; a failed commit must not crash the process.
  durable.catch(() => undefined);
  return { durable, resolve, reject, units: 0 };
}

/** What the writer has done so far, for tests and the benchmark's notes. */
export interface GroupCommitStats {
  batches: number;
  units: number;
  largestBatch: number;
  syncs: number;
  /** Checkpoints run on the worker thread (./checkpointer.ts), and how many of them held the writer. */
  checkpoints: number;
  catchUps: number;
}

/**
 * At most one checkpoint per this long: each syncs the database file as well as the WAL, and the disk
 * is the WAL syncs' that answer requests.
 */
export const CHECKPOINT_INTERVAL_MS = 250;
/**
 * A WAL longer than this many pages (SQLite's own default checkpoint size) is caught up with the writer
 * held. A checkpoint copies only what was committed when it started, and SQLite starts the WAL over only
 * at a write that finds all of it copied; under a steady write load the writer always stays a little
 * ahead, and the WAL would grow without end.
 */
export const CATCH_UP_PAGES = 1000;

function execute(statements: SqliteDatabase, query: CompiledQuery): QueryResult<unknown> {
  const stmt = statements.prepare(query.sql);
  if (stmt.reader) return { rows: allRows(stmt as SQLite.Statement, query.parameters) };
  const { changes, lastInsertRowid } = stmt.run(query.parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * The two connections of one SQLite database and the batching writer. `statements` wraps a connection
 * in a prepared-statement cache (./connect.ts).
 */
export class GroupCommit {
  readonly #writer: SQLite.Database;
  readonly #writes: SqliteDatabase;
  readonly #reads: SqliteDatabase;
  readonly #closeReader: () => void;
  readonly #mutex = new Mutex();
  #batch: Batch | undefined;
  #commitScheduled = false;
  #closed = false;
  /** Committed batches waiting for the next fdatasync of the WAL. */
  #unsynced: Batch[] = [];
  /** The sync under way, if any. */
  #syncing: Promise<void> | undefined;
  /** The WAL file, opened at the first sync (SQLite creates it with the first write); -1 for `:memory:`. */
  #walFd: number | undefined;
  readonly #checkpointer: Checkpointer | undefined;
  /** The checkpoint under way, if any, and when the last one started. */
  #checkpointing: Promise<void> | undefined;
  #lastCheckpoint = 0;
  #checkpointTimer: NodeJS.Timeout | undefined;
  /** Set once the checkpoint worker has failed and the writer checkpoints again. */
  #withoutWorker = false;
  /** Whether the read connection holds this turn's read transaction, and whether a stream is reading (outside one). */
  #readOpen = false;
  #streaming = false;
  readonly stats: GroupCommitStats = { batches: 0, units: 0, largestBatch: 0, syncs: 0, checkpoints: 0, catchUps: 0 };
  readonly #observer: DbObserver | undefined;

  /**
   * `checkpointer`: runs the WAL's checkpoints off the event loop (without one, SQLite runs them in COMMIT).
   * `observer`: told each statement's time, each wait for the writer and each batch's size (metrics).
   */
  constructor(writer: SQLite.Database, reader: SQLite.Database, statements: (db: SQLite.Database) => SqliteDatabase, checkpointer?: Checkpointer, observer?: DbObserver) {
    this.#writer = writer;
    this.#observer = observer;
    // The durability FULL would give at each COMMIT comes from #sync below, off the event loop.
    writer.pragma('synchronous = NORMAL');
    // Each unit's savepoint keeps the original of every page it changes in a sub-journal, which SQLite
    // spills to a temporary file past 64 KiB, and a sign-up changes about that much (a page of each of
    // several indexes). In memory: 1.23x and 1.27x the sign-ups a second, each order of starting the two
    // services (CPU 745 -> 617 and 872 -> 721 µs a sign-up). The writer only writes and reads back what
    // it wrote, so its temporary data stays small; the reads that sort much run on the read connection.
    writer.pragma('temp_store = MEMORY');
    this.#checkpointer = checkpointer;
    if (checkpointer) writer.pragma('wal_autocheckpoint = 0');
    this.#writes = statements(writer);
    // `:memory:` has no second connection to the same data: it reads on the writer (and so sees open batches).
    this.#reads = reader === writer ? this.#writes : statements(reader);
    this.#closeReader = reader === writer ? () => undefined : () => reader.close();
  }

  /** BEGIN, SAVEPOINT, RELEASE, COMMIT...: prepared once, like every other statement. */
  #control(sql: string): void {
    this.#writes.prepare(sql).run([]);
  }

  /** A read outside any transaction: committed data only. */
  read(query: CompiledQuery): QueryResult<unknown> {
    this.#openRead();
    return this.#observer ? this.#timed(this.#reads, query, this.#observer) : execute(this.#reads, query);
  }

  #timed(statements: SqliteDatabase, query: CompiledQuery, observer: DbObserver): QueryResult<unknown> {
    const start = performance.now();
    try {
      return execute(statements, query);
    } finally {
      observer.query(secondsSince(start));
    }
  }

  /** Units of work waiting for the writer now. */
  get waiting(): number {
    return this.#mutex.waiting;
  }

  /** Rows one at a time across awaits: in a read transaction of their own, as the turn's would end under them. */
  *iterate(query: CompiledQuery): Iterable<unknown> {
    this.#endRead();
    this.#streaming = true;
    try {
      yield* iterateRows(this.#reads.prepare(query.sql) as SQLite.Statement, query.parameters);
    } finally {
      this.#streaming = false;
    }
  }

  /** Begins the turn's read transaction, unless one is open (or reads share the writer, as with `:memory:`). */
  #openRead(): void {
    if (this.#readOpen || this.#streaming || this.#reads === this.#writes || this.#closed) return;
    this.#reads.prepare('begin').run([]);
    this.#readOpen = true;
    setImmediate(this.#endRead);
  }

  /** Ends the turn's read transaction, so that the next read sees every commit made until then. */
  readonly #endRead = (): void => {
    if (!this.#readOpen) return;
    this.#readOpen = false;
    this.#reads.prepare('commit').run([]);
  };

  /** A statement inside the unit that holds the writer. */
  write(query: CompiledQuery): QueryResult<unknown> {
    return this.#observer ? this.#timed(this.#writes, query, this.#observer) : execute(this.#writes, query);
  }

  /**
   * One unit of work whose statements run without awaiting between them: `work` runs at once with the
   * writer held, in a savepoint of its own; if it throws, its changes are rolled back. Resolves with what
   * it returned once its batch is on disk. (A Kysely transaction does the same with an await per
   * statement and its own begin and commit: a sign-up run that way took 1.09x-1.13x the CPU.)
   */
  async unit<T>(work: (write: (query: CompiledQuery) => QueryResult<unknown>) => T): Promise<T> {
    await this.begin();
    let result: T;
    try {
      result = work((query) => this.write(query));
    } catch (err) {
      void this.end(false);
      throw err;
    }
    await this.end(true);
    return result;
  }

  /** Takes the writer and opens a savepoint for one unit of work (a transaction or a single write). */
  async begin(): Promise<void> {
    if (this.#observer) {
      const start = performance.now();
      await this.#mutex.lock();
      this.#observer.poolWait(secondsSince(start));
    } else {
      await this.#mutex.lock();
    }
    try {
      if (this.#closed) throw new Error('The database has been closed');
      if (!this.#batch) {
        this.#control('begin immediate');
        this.#batch = newBatch();
        // The writer now sees every commit of other processes; later reads must too (a unit that finds
        // a row taken may read it next).
        this.#endRead();
      }
      this.#control('savepoint unit');
    } catch (err) {
      this.#mutex.unlock();
      throw err;
    }
  }

  /**
   * Ends the unit that holds the writer: keeps its changes (`ok`) or rolls them back alone. Returns
   * the promise that its batch is on disk.
   */
  end(ok: boolean): Promise<void> {
    const batch = this.#batch!;
    try {
      if (ok) {
        this.#control('release unit');
        batch.units++;
      } else {
        this.#control('rollback to unit');
        this.#control('release unit');
      }
    } catch (err) {
      // A RELEASE that fails (it should not) leaves the unit's changes undecided: undo them.
      if (this.#writer.inTransaction) this.#abandonBatch(err);
      throw err;
    } finally {
      // SQLite rolls the whole transaction back itself on some errors (I/O, full disk): the batch is lost.
      if (this.#batch === batch && !this.#writer.inTransaction) {
        this.#batch = undefined;
        batch.reject(new Error('SQLite rolled the batch back'));
      }
      this.#mutex.unlock();
      this.#scheduleCommit();
    }
    return batch.durable;
  }

  #abandonBatch(err: unknown): void {
    const batch = this.#batch!;
    this.#batch = undefined;
    try {
      this.#control('rollback');
    } catch {
      // already rolled back
    }
    batch.reject(err);
  }

  /**
   * Commits once the units that are ready in this turn of the event loop have joined: setImmediate runs
   * after the I/O callbacks of the turn, so every request that arrived with it is in the batch. While the
   * COMMIT waits for the disk, new requests queue in the kernel and form the next batch. (Holding the
   * batch open until the running sync ends, so that it grows larger, was measured: no gain in sign-ups
   * per second or CPU per sign-up.)
   */
  #scheduleCommit(): void {
    if (this.#commitScheduled || !this.#batch) return;
    this.#commitScheduled = true;
    setImmediate(() => void this.#commit());
  }

  async #commit(): Promise<void> {
    await this.#mutex.lock();
    this.#commitScheduled = false;
    try {
      this.#commitNow();
    } finally {
      this.#mutex.unlock();
    }
  }

  /** Commits the open batch, if any; call with the writer held. */
  #commitNow(): void {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = undefined;
    try {
      this.#control('commit');
    } catch (err) {
      this.#batch = batch;
      this.#abandonBatch(err);
      return;
    }
    // Its writers hear of it after the sync; whatever they read then must see it.
    this.#endRead();
    this.stats.batches++;
    this.stats.units += batch.units;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.units);
    this.#observer?.batch(batch.units);
    this.#unsynced.push(batch);
    this.#sync();
    this.#scheduleCheckpoint();
  }

  /** After a commit: a checkpoint on the worker, unless one is under way or the last was too recent. */
  #scheduleCheckpoint(): void {
    if (!this.#checkpointer || this.#withoutWorker || this.#checkpointing || this.#checkpointTimer || this.#closed) return;
    if (this.#checkpointer.failure) return this.#checkpointOnWriter(this.#checkpointer.failure);
    const wait = this.#lastCheckpoint + CHECKPOINT_INTERVAL_MS - Date.now();
    if (wait > 0) {
      this.#checkpointTimer = setTimeout(() => {
        this.#checkpointTimer = undefined;
        this.#scheduleCheckpoint();
      }, wait);
      this.#checkpointTimer.unref();
      return;
    }
    this.#lastCheckpoint = Date.now();
    this.#checkpointing = this.#checkpoint(this.#checkpointer).finally(() => (this.#checkpointing = undefined));
  }

  /**
   * Copies the WAL into the database while writes go on; then, if the WAL has grown long, once more with
   * the writer held (requests still read meanwhile), so that the next write starts the WAL over.
   */
  async #checkpoint(checkpointer: Checkpointer): Promise<void> {
    try {
      const { log } = await checkpointer.checkpoint();
      this.stats.checkpoints++;
      if (log < CATCH_UP_PAGES) return;
      await this.#mutex.lock();
      try {
        if (this.#closed) return;
        this.#commitNow();
        await checkpointer.checkpoint();
        this.stats.checkpoints++;
        this.stats.catchUps++;
      } finally {
        this.#mutex.unlock();
      }
    } catch (err) {
      if (checkpointer.failure) this.#checkpointOnWriter(checkpointer.failure);
      else process.emitWarning(`Refkit: a WAL checkpoint failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The worker has failed (it could not open the file, say): the writer checkpoints as SQLite would by itself. */
  #checkpointOnWriter(failure: Error): void {
    if (this.#withoutWorker || this.#closed) return;
    this.#withoutWorker = true;
    this.#writer.pragma('wal_autocheckpoint = 1000');
    process.emitWarning(`Refkit: WAL checkpoints run in COMMIT again, as their worker thread failed: ${failure.message}`);
  }

  /** The WAL file to sync; -1 when there is none (`:memory:`, or a journal mode other than WAL, whose COMMIT syncs itself). */
  #openWal(): number {
    if (this.#writer.memory) return -1;
    try {
      return openSync(`${this.#writer.name}-wal`, 'r');
    } catch {
      this.#writer.pragma('synchronous = FULL');
      return -1;
    }
  }

  /** Makes committed batches durable: one fdatasync at a time, each covering all batches committed before it. */
  #sync(): void {
    if (this.#syncing || this.#unsynced.length === 0) return;
    const batches = this.#unsynced;
    this.#unsynced = [];
    if (this.#walFd === undefined) this.#walFd = this.#openWal();
    const fd = this.#walFd;
    this.#syncing = new Promise<void>((resolve) => {
      const done = (err: Error | null) => {
        this.stats.syncs++;
        for (const b of batches) {
          if (err) b.reject(err);
          else b.resolve();
        }
        this.#syncing = undefined;
        resolve();
        this.#sync();
      };
      // Never synchronously: #syncing must be set before done clears it.
      if (fd === -1) queueMicrotask(() => done(null));
      else fdatasync(fd, done);
    });
  }

  /**
   * Copies the whole WAL into the database file and truncates the WAL to nothing, so that no page a
   * deleted row was on stays in it (an erasure: ../privacy/domain/erasure.ts). Holds the writer meanwhile;
   * reads go on, and the checkpoint waits (on the worker) for those under way. False when readers kept it
   * from truncating within the busy timeout.
   */
  async truncateWal(): Promise<boolean> {
    // Before the writer is held: a checkpoint under way may be waiting for it.
    await this.#checkpointing;
    await this.#mutex.lock();
    try {
      if (this.#closed || this.#reads === this.#writes) return true;
      this.#commitNow();
      while (this.#syncing) await this.#syncing;
      this.#endRead();
      const worker = this.#checkpointer && !this.#withoutWorker ? this.#checkpointer : undefined;
      const result = worker ? await worker.truncate() : (this.#writer.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]!;
      return result.busy === 0;
    } finally {
      this.#mutex.unlock();
    }
  }

  /** Commits what is open and waits for it to be on disk, then closes both connections; later writes fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#checkpointTimer);
    // Before the writer is held: a checkpoint under way may be waiting for it.
    await this.#checkpointing;
    await this.#mutex.lock();
    try {
      // First, so that this last commit starts no checkpoint.
      this.#closed = true;
      this.#commitNow();
      while (this.#syncing) await this.#syncing;
      if (this.#walFd !== undefined && this.#walFd !== -1) closeSync(this.#walFd);
      await this.#checkpointer?.close();
      this.#endRead();
      this.#closeReader();
      this.#writer.close();
    } finally {
      this.#mutex.unlock();
    }
  }
}

/** Each SQLite Kysely's way to truncate its WAL (GroupCommit.truncateWal); PostgreSQL has none. */
const walTruncation = new WeakMap<object, () => Promise<boolean>>();
export const truncatesWal = (db: object, truncate: () => Promise<boolean>): void => void walTruncation.set(db, truncate);
/** Truncates the WAL of `db` if it has one (SQLite outside a transaction); true when it did, or there is none. */
export const truncateWal = (db: object): Promise<boolean> => walTruncation.get(db)?.() ?? Promise.resolve(true);

/**
 * One Kysely connection. Outside a transaction a select reads on the read connection, and anything else
 * is a unit of its own in the batch; inside a transaction every statement runs on the writer.
 */
class Session implements DatabaseConnection {
  inTransaction = false;
  constructor(private readonly group: GroupCommit) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.group.write(query) as QueryResult<R>;
    if (SelectQueryNode.is(query.query)) return this.group.read(query) as QueryResult<R>;
    return this.group.unit((write) => write(query)) as Promise<QueryResult<R>>;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (this.inTransaction || !SelectQueryNode.is(query.query)) throw new Error('Only selects outside a transaction can be streamed');
    for (const row of this.group.iterate(query)) yield { rows: [row as R] };
  }
}

class GroupCommitDriver implements Driver {
  constructor(private readonly group: GroupCommit) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Session(this.group);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.group.begin();
    (connection as Session).inTransaction = true;
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Session).inTransaction = false;
    await this.group.end(true);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Session).inTransaction = false;
    void this.group.end(false);
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.group.close();
  }
}

/**
 * The Kysely dialect over a GroupCommit: every write resolves once its batch is on disk. Destroying the
 * Kysely closes the connections.
 */
export class GroupCommitDialect extends SqliteDialect {
  constructor(private readonly group: GroupCommit) {
    // The base class wants a database for its own driver, which createDriver below replaces.
    super({ database: {} as SqliteDatabase });
  }
  override createDriver(): Driver {
    return new GroupCommitDriver(this.group);
  }
  /**
   * SQLite's DDL is transactional, though Kysely's adapter does not say so (and its SQLite migration lock
   * does nothing). Saying so makes the migrator run in one transaction, whose BEGIN IMMEDIATE is the
   * lock: processes migrating a new file at once wait for the first, then find nothing left to do.
   */
  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
