/**
 * While the database is away, each place that fails because of it (the HTTP error handler, each
 * background loop) logs one warning per OUTAGE_LOG_EVERY_MS with the count it left out; any other failure
 * is logged every time (src/server/kernel/outage-log.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loopFailureLog, OUTAGE_LOG_EVERY_MS, type LoopLog } from '../../src/server/kernel/outage-log.js';

/** A logger that keeps what it was told. */
function recording() {
  const lines: { level: 'error' | 'warn'; obj: Record<string, unknown>; msg: string }[] = [];
  const log: LoopLog = {
    error: (obj, msg) => void lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    warn: (obj, msg) => void lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
  };
  return { log, lines };
}

/** PostgreSQL's admin_shutdown, as node-postgres gives it while the server restarts. */
const outage = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

describe('a background loop\'s failed ticks', () => {
  it('an outage is one warning per interval with how many ticks failed unlogged; the next interval logs again', () => {
    const { log, lines } = recording();
    let now = 1_000_000;
    const failed = loopFailureLog(log, 'webhook dispatch', () => now);
    for (let i = 0; i < 100; i++, now += 10) failed(outage());
    assert.equal(lines.length, 1);
    assert.deepEqual([lines[0]!.level, lines[0]!.msg, lines[0]!.obj.alsoFailed], ['warn', 'webhook dispatch failed: the database is unavailable; trying again at the next tick', 0]);
    now += OUTAGE_LOG_EVERY_MS;
    failed(outage());
    assert.equal(lines.length, 2);
    assert.equal(lines[1]!.obj.alsoFailed, 99, 'the ticks that failed since the last line');
  });

  it('any other failure is an error, logged every time, outage or not around it', () => {
    const { log, lines } = recording();
    const now = 5_000_000;
    const failed = loopFailureLog(log, 'pruning expired data', () => now);
    failed(outage());
    for (let i = 0; i < 3; i++) failed(new Error('a bug'));
    failed(outage());
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg]),
      [
        ['warn', 'pruning expired data failed: the database is unavailable; trying again at the next tick'],
        ...Array.from({ length: 3 }, () => ['error', 'pruning expired data failed; trying again at the next tick']),
      ],
    );
    assert.equal((lines[1]!.obj.err as Error).message, 'a bug');
  });
});
