/**
 * A bound on each record of a CSV stream, checked on the bytes before the parser sees them. csv-parse's
 * own `max_record_size` counts the characters of fields, not their delimiters: a line of a million commas
 * is a record of a million empty fields that it counts as empty, and builds in memory whole (a 100 MB
 * file of them took gigabytes and stalled the event loop for seconds).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { AppError, invalid } from './errors.js';

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/** Passes the bytes through, failing with 413 once a record (a line, quoted line breaks included) is longer than `maxBytes`. */
export function recordSizeGuard(maxBytes: number): Transform {
  let quoted = false;
  let length = 0;
  let record = 1;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        // A doubled quote inside a quoted field toggles twice: still quoted, as it should be.
        if (byte === QUOTE) quoted = !quoted;
        else if (byte === NEWLINE && !quoted) {
          length = 0;
          record++;
          continue;
        }
        if (++length > maxBytes) {
          callback(new AppError(413, 'payload_too_large', `Record ${record} of the file is longer than ${maxBytes} bytes, the most a row may have`, 'file'));
          return;
        }
      }
      callback(null, chunk);
    },
  });
}

/**
 * The records of a CSV stream, each with csv-parse's info, parsed with `options` behind a
 * recordSizeGuard of `maxBytes`: a record too long is 413, a malformed file 400. Not pipeline(): the
 * input is the caller's to close (a request's body must outlive a refusal, to carry the answer).
 */
export async function* guardedCsv<R>(input: NodeJS.ReadableStream, maxBytes: number, options: Options): AsyncIterable<{ record: R; info: { lines: number; bytes: number } }> {
  const guard = recordSizeGuard(maxBytes);
  const parser = parse({ ...options, info: true });
  // The guard's failure (or the input's) reaches the parser, and so the loop below.
  input.on('error', (err: Error) => parser.destroy(err));
  guard.on('error', (err) => parser.destroy(err));
  input.pipe(guard).pipe(parser);
  try {
    yield* parser as AsyncIterable<{ record: R; info: { lines: number; bytes: number } }>;
  } catch (err) {
    // csv-parse's errors (CSV_...) are about the file, not about us.
    if (err instanceof CsvError) throw invalid('file', `The CSV file is malformed: ${err.message}`);
    throw err;
  } finally {
    input.unpipe(guard);
    guard.destroy();
  }
}
