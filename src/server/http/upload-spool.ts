/**
 * An uploaded file written to a temporary file as it arrives, checked on the way, and read from there.
 *
 * An import runs in one transaction, which on SQLite holds the database's only writer: fed straight from
 * the request, a slow upload would hold every other write of the service for as long as the client takes
 * to send. Spooled, the transaction starts once the whole file is on the server and runs at disk speed.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stream, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Writes `body` through `check` (which may refuse it, e.g. a record too long) to a temporary file, then
 * calls `use` with a stream of that file; the file is removed once `use` has finished, or failed.
 */
export async function withSpooledUpload<T>(body: NodeJS.ReadableStream, check: Transform, use: (file: NodeJS.ReadableStream) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'refkit-upload-'));
  const files: Stream[] = [];
  try {
    const path = join(dir, 'upload');
    // Not pipeline(body, ...): on a failure it would destroy the request, its socket with it, and the
    // answer saying why would be lost.
    body.once('error', (err: Error) => check.destroy(err));
    body.pipe(check);
    const spool = createWriteStream(path);
    files.push(spool);
    try {
      await pipeline(check, spool);
    } finally {
      // A refused upload: what the client still sends is read and dropped, so that the connection can
      // carry the answer and the next request.
      body.unpipe(check);
      body.resume();
    }
    const file = createReadStream(path);
    files.push(file);
    try {
      return await use(file);
    } finally {
      file.destroy();
    }
  } finally {
    // A file stream opens its file on a later turn, even one destroyed at once (an upload cut short, an
    // import refused before reading): the folder goes only once each has closed, else that open finds it
    // gone and fails with no one left to hear it. Errors after the outcome was decided change nothing.
    await Promise.all(
      files.map((f) => {
        f.on('error', () => {});
        return (f as Stream & { closed: boolean }).closed ? undefined : once(f, 'close');
      }),
    );
    await rm(dir, { recursive: true, force: true });
  }
}
