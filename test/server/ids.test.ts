/**
 * Identifiers (src/server/kernel/ids.ts): random ones, and the sortable ones of rows written with every
 * sign-up, which must sort by the millisecond they were made in and still never repeat.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, newSortableId } from '../../src/server/kernel/ids.js';

describe('ids', () => {
  it('random ids: the prefix, then unambiguous letters and digits', () => {
    const ids = Array.from({ length: 1000 }, () => newId('cmp'));
    for (const id of ids) assert.match(id, /^cmp_[2-9a-km-z]{12}$/);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('sortable ids sort by the millisecond they were made in, across digits and letters, and differ within one', () => {
    const times = [0, 1, 32, 33, 1_000, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 4_000_000_000_000];
    const ids = times.map((t) => newSortableId('msg', 16, t));
    for (const id of ids) assert.match(id, /^msg_[2-9a-km-z]{25}$/);
    assert.deepEqual([...ids].sort(), ids, 'byte order is time order');
    const sameMs = Array.from({ length: 1000 }, () => newSortableId('msg', 16, 1_700_000_000_000));
    assert.equal(new Set(sameMs).size, sameMs.length);
    assert.ok(sameMs.every((id) => id.slice(0, 13) === sameMs[0]!.slice(0, 13)), 'one time part for one millisecond');
  });
});
