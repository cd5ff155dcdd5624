/**
 * Times on the wire (src/server/kernel/time.ts): `iso` computes what `new Date(ms).toISOString()` gives,
 * without a Date, so it must agree with it everywhere a time can be, and hand the rest to Date.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso } from '../../src/server/kernel/time.js';

const viaDate = (ms: number) => new Date(ms).toISOString();

describe('iso', () => {
  it('agrees with Date at the edges of days, months, leap years, centuries and eras', () => {
    const dates = [
      '1970-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2000-02-29T12:34:56.789Z', '2000-03-01T00:00:00.000Z',
      '1900-02-28T23:59:59.999Z', '1900-03-01T00:00:00.000Z', '2100-02-28T00:00:00.001Z', '2100-03-01T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z', '1600-02-29T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z', '0000-03-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z', '0999-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const text of dates) {
      const ms = Date.parse(text);
      assert.equal(iso(ms), text);
      for (const d of [-1, 1]) assert.equal(iso(ms + d), viaDate(ms + d), `${text} ${d > 0 ? '+' : '-'}1 ms`);
    }
  });

  it('agrees with Date on 200,000 times spread over 1900-2200, each millisecond field', () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const from = Date.parse('1900-01-01T00:00:00Z');
    const to = Date.parse('2200-01-01T00:00:00Z');
    for (let i = 0; i < 200_000; i++) {
      const ms = from + Math.floor(next() * (to - from));
      if (iso(ms) !== viaDate(ms)) assert.fail(`${ms}: ${iso(ms)} != ${viaDate(ms)}`);
    }
  });

  it('hands what it does not compute to Date: fractions, years beyond 0000-9999, and invalid times', () => {
    assert.equal(iso(1.5), '1970-01-01T00:00:00.001Z');
    assert.equal(iso(Date.parse('+010000-01-01T00:00:00Z')), '+010000-01-01T00:00:00.000Z');
    assert.equal(iso(Date.parse('-000001-12-31T00:00:00Z')), '-000001-12-31T00:00:00.000Z');
    assert.throws(() => iso(Number.NaN), RangeError);
  });
});
