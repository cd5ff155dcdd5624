/**
 * A bound on each record of a CSV stream, checked on the bytes before the parser sees them. csv-parse's
 * own `max_record_size` counts the characters of fields, not their delimiters: a line of a million commas
 * is a record of a million empty fields that it counts as empty, and builds in memory whole (a 100 MB
 * file of them took gigabytes and stalled the event loop for seconds).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from './errors.js';

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
