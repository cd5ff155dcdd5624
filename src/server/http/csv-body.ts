/**
 * CSV request bodies (Content-Type: text/csv) are handed to the route as a stream, never held whole. A
 * parser of Fastify's that takes the raw stream gets no body limit from Fastify (it counts only the
 * bodies it reads itself), so the limit is kept here: a Content-Length over it is refused before
 * anything is read, and a chunked body fails as soon as it goes past it. Both are 413 payload_too_large.
 */
import { pipeline, Transform } from 'node:stream';
import { errorCodes, type FastifyInstance } from 'fastify';

export function acceptCsvBodies(app: FastifyInstance, limit: number): void {
  app.addContentTypeParser('text/csv', (request, payload, done) => {
    if (Number(request.headers['content-length']) > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    let bytes = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        bytes += chunk.length;
        next(bytes > limit ? new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() : null, chunk);
      },
    });
    // The reader sees the upload's own failures (a client gone) as an error of this stream.
    pipeline(payload, counted, () => {});
    done(null, counted);
  });
}
