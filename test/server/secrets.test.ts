/**
 * Secrets (src/server/kernel/secrets.ts) come from a buffer of crypto randomness refilled as it runs
 * out: each must still be unique, of full length, and URL-safe, across refills.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret, newSecret } from '../../src/server/kernel/secrets.js';

describe('secrets', () => {
  it('are 192 random bits, URL-safe, never repeated, across many refills of the buffer', () => {
    // 4 KiB a refill, 24 bytes a secret: 5,000 secrets span about 30 refills.
    const made = Array.from({ length: 5_000 }, () => newSecret('pt'));
    for (const s of made) assert.match(s, /^pt_[A-Za-z0-9_-]{32}$/);
    assert.equal(new Set(made).size, made.length);
    // Every position takes many values: no byte of the buffer is handed out zeroed or twice.
    for (let i = 3; i < 35; i++) assert.ok(new Set(made.map((s) => s[i])).size > 50, `position ${i} varies`);
  });

  it('are stored as their SHA-256', () => {
    // `printf pt_abc | sha256sum`
    assert.equal(hashSecret('pt_abc'), 'f3675bd3f1c3dc92297c2cc8a86d3795cf8492424da94011f23eb387d63611cf');
  });
});
