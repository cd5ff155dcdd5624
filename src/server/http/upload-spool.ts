/**
 * An uploaded file written to a temporary file as it arrives, checked on the way, and read from there.
 *
 * An import runs in one transaction, which on SQLite holds the database's only writer: fed straight from
 * the request, a slow upload would hold every other write of the service for as long as the client takes
 * to send. Spooled, the transaction starts once the whole file is on the server and runs at disk speed.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Writes `body` through `check` (which may refuse it, e.g. a record too long) to a temporary file, then
 * calls `use` with a stream of that file; the file is removed once `use` has finished, or failed.
 */
export async function withSpooledUpload<T>(body: NodeJS.ReadableStream, check: Transform, use: (file: NodeJS.ReadableStream) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'refkit-upload-'));
  try {
    const path = join(dir, 'upload');
    // Not pipeline(body, ...): on a failure it would destroy the request, its socket with it, and the
    // answer saying why would be lost.
    body.once('error', (err: Error) => check.destroy(err));
    body.pipe(check);
    try {
      await pipeline(check, createWriteStream(path));
    } finally {
      // A refused upload: what the client still sends is read and dropped, so that the connection can
      // carry the answer and the next request.
      body.unpipe(check);
      body.resume();
    }
    const file = createReadStream(path);
    try {
      return await use(file);
    } finally {
      file.destroy();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
