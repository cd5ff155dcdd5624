/**
 * A large import, streamed to the service as it is generated, hands the event loop back as it goes: other
 * requests are answered one after another while it runs (an import that parsed or wrote the file in one
 * go would answer none until it ended). The loop's worst delay and p99 (perf_hooks.monitorEventLoopDelay,
 * in this process, which runs the service) and the peak memory are reported as the test's diagnostic, a
 * measurement and not an assertion: a time depends on what else the machine is doing (docs/dashboard.md
 * gives the figures for 20 MB and 100 MB). IMPORT_TEST_MB sets the file's size (default 5 on SQLite, 2 on
 * PostgreSQL).
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { eachDatabase } from './helpers/suite.js';

/**
 * The file's size: what is checked (the service's event loop between rows, while it checks and writes the
 * file) is the same at any size past a few thousand rows, so the suite imports about 11,800 rows on SQLite
 * and 4,700 on PostgreSQL, where an import costs round trips a row (20 MB there took over ten minutes of a
 * busy machine; 5 MB, 40 s). Larger files are for IMPORT_TEST_MB and the figures in docs/dashboard.md.
 */
const megabytes = (dialect: 'sqlite' | 'postgres') => Number(process.env.IMPORT_TEST_MB ?? (dialect === 'sqlite' ? 5 : 2));
/** An ignored column of this many characters makes rows of about half a kilobyte, as an export with notes might have. */
const NOTE = 'n'.repeat(400);

/**
 * About `bytes` of CSV, made a chunk at a time as the upload asks for it; `rows` counts the rows made, and
 * `sent` tells whether the whole file has gone to the service.
 */
function generated(bytes: number): { body: ReadableStream<Uint8Array>; rows: () => number; sent: () => boolean } {
  const encoder = new TextEncoder();
  let made = 0;
  let rows = 0;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('email,firstName,lastName,notes\n'));
    },
    // The uploader shares the service's event loop: it makes a chunk per turn of the loop, not as many as
    // the socket takes in one go, so that the delays measured are the service's.
    async pull(controller) {
      await setImmediate();
      if (made >= bytes) {
        done = true;
        return controller.close();
      }
      let chunk = '';
      while (chunk.length < 64 * 1024) {
        chunk += `person.${rows}@example.com,Person ${rows},Sample,${NOTE}\n`;
        rows++;
      }
      made += chunk.length;
      controller.enqueue(encoder.encode(chunk));
    },
  });
  return { body, rows: () => rows, sent: () => done };
}

// Not through PgBouncer (pgbouncer: false below): what it checks is the service's event loop, which the
// pooler does not touch, and its PostgreSQL run alone takes minutes.
eachDatabase('a large import', (service, kind) => {
  const MEGABYTES = megabytes(kind.dialect);
  it(`a ${MEGABYTES} MB import streamed to the service: other requests are answered all the while it runs`, async (t) => {
    const s = service();
    const id = await s.campaign();
    // A first, small import: the route's validators and serializers are compiled at its first request
    // (src/server/http/schema-compilers.ts), once per process, whatever the file's size.
    assert.deepEqual(await s.admin.importParticipants(id, 'email\nfirst@example.com\n'), { created: 1, skipped: 0 });
    const { body, rows, sent } = generated(MEGABYTES * 1024 * 1024);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    const started = performance.now();
    delay.enable();
    // Health checks one after another, each sent when the last was answered, until the import ends; those
    // answered once the whole file was sent, while the service checks and writes it, are counted.
    let importing = true;
    let answeredMeanwhile = 0;
    const pinger = (async () => {
      while (importing) {
        const res = await fetch(`${s.url}/healthz`);
        await res.arrayBuffer();
        if (importing && sent() && res.ok) answeredMeanwhile++;
      }
    })();
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
      importing = false;
      delay.disable();
      clearInterval(sampler);
    }
    await pinger;
    const worst = delay.max / 1e6;
    t.diagnostic(
      `${rows()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s; worst event-loop delay ${worst.toFixed(1)} ms, ` +
        `p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB; ` +
        `${answeredMeanwhile} health checks answered between the last byte sent and the answer`,
    );
    assert.deepEqual(answer, { created: rows(), skipped: 0 });
    // An import that checked or wrote the file in one go, holding the loop, would let one through at most.
    assert.ok(answeredMeanwhile >= 10, `${answeredMeanwhile} health checks answered while the file was checked and written`);
  });
});
