/** The CSV body limit (src/server/http/csv-body.ts) on a small limit: a streamed body past it is 413, below it is read whole. */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { after, before, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandling } from '../../src/server/http/error-handler.js';
import { acceptCsvBodies } from '../../src/server/http/csv-body.js';

const LIMIT = 1000;
let app: FastifyInstance;
let url: string;

before(async () => {
  app = Fastify();
  registerErrorHandling(app);
  acceptCsvBodies(app, LIMIT);
  // Reads the whole stream, as the import does, and tells how much it got.
  app.post('/read', async (request) => {
    let bytes = 0;
    for await (const chunk of request.body as AsyncIterable<Buffer>) bytes += chunk.length;
    return { bytes };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/read`;
});
after(() => app.close());

/** A chunked upload (no Content-Length) of this many bytes, in chunks of 100: the status and the body. */
function chunked(bytes: number): Promise<{ status: number; body: { bytes?: number; error?: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'text/csv' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as { bytes?: number } }));
    });
    // The service may answer and close before the upload ends: that is the answer, not a failure.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    for (let sent = 0; sent < bytes; sent += 100) req.write(Buffer.alloc(100, 'a'));
    req.end();
  });
}

it('a chunked body up to the limit is read whole', async () => {
  assert.deepEqual(await chunked(LIMIT), { status: 200, body: { bytes: LIMIT } });
});

it('a chunked body past the limit fails as it passes it: 413 payload_too_large', async () => {
  const res = await chunked(LIMIT * 5);
  assert.deepEqual([res.status, res.body.error?.code], [413, 'payload_too_large']);
});

it('a Content-Length past the limit is 413 before the body is read', async () => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a'.repeat(LIMIT + 1) });
  assert.equal(res.status, 413);
});
