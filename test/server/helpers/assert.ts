import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/client.js';

/** Runs `fn` expecting an ApiError with this status and code (and field, when given); returns it for more checks. */
export async function rejects(fn: () => Promise<unknown>, status: number, code: string, field?: string): Promise<ApiError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.status, status);
    if (field !== undefined) assert.equal(err.field, field);
    return err;
  }
  assert.fail(`expected ${status} ${code}, but the call succeeded`);
}
