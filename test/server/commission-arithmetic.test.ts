/**
 * The commission rule (src/server/rewards/domain/reward-rules.ts commission): computed in numbers while the total
 * is a safe integer, in BigInt beyond; both give exactly what BigInt arithmetic gives.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { commission } from '../../src/server/rewards/domain/reward-rules.js';

const exact = (cents: number, bp: number, carried: number) => {
  const total = BigInt(carried) + BigInt(cents) * BigInt(bp);
  return { units: Number(total / 1_000_000n), carry: Number(total % 1_000_000n) };
};

it('the commission is exact on both sides of the safe-integer bound', () => {
  const max = Number.MAX_SAFE_INTEGER;
  const cases: [number, number, number][] = [
    [0, 0, 0],
    [2999, 2000, 0],
    [4999, 2000, 998_000],
    [1, 1, 999_999],
    [100, 10_000, 999_999],
    // Around 2^53: the last total done in numbers, the first done in BigInt, and beyond.
    [Math.floor(max / 10_000), 10_000, max - Math.floor(max / 10_000) * 10_000],
    [Math.floor(max / 10_000), 10_000, max - Math.floor(max / 10_000) * 10_000 + 1],
    [2 ** 50 + 1, 10_000, 999_999],
    [max, 10_000, 123_456],
  ];
  let seed = 1;
  const random = (n: number) => ((seed = (seed * 48271) % 2147483647) / 2147483647) * n;
  for (let i = 0; i < 10_000; i++) cases.push([Math.floor(random(2 ** 40)), Math.floor(random(10_001)), Math.floor(random(1_000_000))]);
  for (const [cents, bp, carried] of cases) assert.deepEqual(commission(cents, bp, carried), exact(cents, bp, carried), `${cents} ${bp} ${carried}`);
});
