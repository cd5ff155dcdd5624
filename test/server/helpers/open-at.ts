/**
 * A child process that opens the service's database exactly as `refkit serve` does (migrate, then seed
 * a new database), starting at a moment the parent sends, so that several of them collide for certain:
 * it prints `ready`, reads the start time (epoch ms) from stdin, then prints `seeded`, `up` or `error: ...`.
 * Bundled into .test-build/ with the test files (scripts/build-tests.js), so that it starts as fast as
 * `refkit`; from the sources it runs under tsx, as the test file that starts it does.
 */
import { once } from 'node:events';
import { openRuntime } from '../../../src/server/runtime.js';
import { seedIfEmpty } from '../../../src/server/seed.js';

process.stdout.write('ready\n');
const [chunk] = await once(process.stdin, 'data');
const startAt = Number((chunk as Buffer).toString().trim());
while (Date.now() < startAt) {
  // Busy-wait rather than a timer: every process should leave the barrier within a millisecond.
}
try {
  const runtime = await openRuntime({ databaseUrl: process.env.DATABASE_URL! });
  const key = await seedIfEmpty(runtime.ctx, 'http://localhost:8787');
  await runtime.close();
  process.stdout.write(key ? 'seeded' : 'up');
} catch (err) {
  process.stdout.write(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.stderr.write(`${(err as Error).stack}\n`);
}
process.stdin.destroy();
