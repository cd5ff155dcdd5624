/**
 * An online copy of a SQLite database: `VACUUM INTO`, one statement reading one snapshot (a WAL read
 * transaction), so the copy holds every transaction committed before it began and none after, while the
 * service's writes go on (readers do not block WAL writers). Chosen over the online backup API
 * (better-sqlite3's `db.backup()`), which copies pages in steps and starts again from the first page
 * whenever another process writes the database between two steps: under a steady load it may never
 * finish. VACUUM INTO also leaves the copy compacted; it costs a rebuild of each table and index (CPU),
 * which a page copy would not.
 *
 * SQLite does not fsync what VACUUM INTO writes, and a copy cut short by a crash may be corrupt: so it is
 * written under a temporary name, synced, then renamed into place (and the directory synced). A file at
 * `to` is therefore either a whole backup or absent.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';

/** The busy timeout of the copy's connection (what connect.ts's connections wait too). */
const BUSY_TIMEOUT_MS = 5000;

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies the database at `from` to the new file `to`; its size and how long it took. */
export function backupSqlite(from: string, to: string): { bytes: number; ms: number } {
  const started = Date.now();
  const partial = join(dirname(to), `.${basename(to)}.partial-${process.pid}`);
  // fileMustExist: a mistyped DATABASE_URL must not back up a new, empty database.
  const source = new SQLite(from, { fileMustExist: true });
  try {
    source.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    source.prepare('VACUUM INTO ?').run(partial);
    fsyncPath(partial);
    renameSync(partial, to);
    fsyncPath(dirname(to));
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    source.close();
  }
  return { bytes: statSync(to).size, ms: Date.now() - started };
}
