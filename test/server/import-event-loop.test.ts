/**
 * A large import, streamed to the service as it is generated, never holds the event loop for long: the
 * worst delay the loop saw during it (perf_hooks.monitorEventLoopDelay, in this process, which runs the
 * service) stays under 100 ms. IMPORT_TEST_MB sets the file's size (default 20; the figure for 100 MB is
 * a measurement, too slow for every run).
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { eachDatabase } from './helpers/suite.js';

const MEGABYTES = Number(process.env.IMPORT_TEST_MB ?? 20);
/** An ignored column of this many characters makes rows of about half a kilobyte, as an export with notes might have. */
const NOTE = 'n'.repeat(400);

/** About `bytes` of CSV, made a chunk at a time as the upload asks for it; `rows` counts the rows made. */
function generated(bytes: number): { body: ReadableStream<Uint8Array>; rows: () => number } {
  const encoder = new TextEncoder();
  let made = 0;
  let rows = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('email,firstName,lastName,notes\n'));
    },
    // The uploader shares the service's event loop: it makes a chunk per turn of the loop, not as many as
    // the socket takes in one go, so that the delays measured are the service's.
    async pull(controller) {
      await setImmediate();
      if (made >= bytes) return controller.close();
      let chunk = '';
      while (chunk.length < 64 * 1024) {
        chunk += `person.${rows}@example.com,Person ${rows},Sample,${NOTE}\n`;
        rows++;
      }
      made += chunk.length;
      controller.enqueue(encoder.encode(chunk));
    },
  });
  return { body, rows: () => rows };
}

eachDatabase('a large import', (service) => {
  it(`a ${MEGABYTES} MB import streamed to the service never delays its event loop 100 ms or more`, async (t) => {
    const s = service();
    const id = await s.campaign();
    // A first, small import: the route's validators and serializers are compiled at its first request
    // (src/server/http/schema-compilers.ts), once per process, whatever the file's size.
    assert.deepEqual(await s.admin.importParticipants(id, 'email\nfirst@example.com\n'), { created: 1, skipped: 0 });
    const { body, rows } = generated(MEGABYTES * 1024 * 1024);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    const started = performance.now();
    delay.enable();
    let answer: { created: number; skipped: number };
    try {
      const res = await fetch(`${s.url}/api/v1/admin/importParticipants?id=${id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'text/csv' },
        body,
        duplex: 'half',
      } as RequestInit);
      answer = (await res.json()) as typeof answer;
      assert.equal(res.status, 200, JSON.stringify(answer));
    } finally {
      delay.disable();
      clearInterval(sampler);
    }
    const worst = delay.max / 1e6;
    t.diagnostic(
      `${rows()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s; worst event-loop delay ${worst.toFixed(1)} ms, ` +
        `p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    assert.deepEqual(answer, { created: rows(), skipped: 0 });
    assert.ok(worst < 100, `the event loop was held for ${worst.toFixed(1)} ms`);
  });
});
