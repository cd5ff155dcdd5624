/**
 * A node:test reporter that records the wall time each test file took in its own process, and prints
 * the ten slowest once every file has run (package.json's test:server and test:e2e add it beside the
 * usual reporter). With TEST_TIMES_DIR set (`npm test` sets it), it also writes every file's time there,
 * so that `npm test` can name the slowest files of all its suites at its very end (scripts/test-all.ts).
 * Files are what the suite's time is cut by (docs/testing.md).
 *
 * Node reports each file as a test named by its path (nesting 0), enqueued when the run starts and
 * completed when its process ends. The list is written synchronously when the last file completes:
 * `--test-force-exit` ends the process before a reporter's stream is drained.
 */
import { mkdirSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { slowestList } from './test-times.mjs';

// eslint-disable-next-line require-yield -- it writes with writeSync, for the reason above
export default async function* slowestFiles(source) {
  const enqueued = new Set();
  const times = {};
  for await (const event of source) {
    const { name, file, nesting } = event.data ?? {};
    if (nesting !== 0 || name !== file || file === undefined) continue;
    if (event.type === 'test:enqueue') enqueued.add(file);
    if (event.type !== 'test:complete') continue;
    times[relative(process.cwd(), file).replace(/^\.test-build\//, '').replace(/\.js$/, '.ts')] = event.data.details?.duration_ms ?? 0;
    if (Object.keys(times).length === enqueued.size) done(times);
  }
}

function done(times) {
  const dir = process.env.TEST_TIMES_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(times));
  }
  writeSync(1, `\n${slowestList(times, process.env.TEST_FILES_SHOWN === 'all' ? Infinity : 10)}\n`);
}
