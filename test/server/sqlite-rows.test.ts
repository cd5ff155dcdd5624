/**
 * Rows read through sqlite-rows.ts are the objects better-sqlite3 itself would have made: same keys in
 * the same order, same values, for every column type, repeated names and awkward names; streamed too;
 * and after another connection has moved a table's columns.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allRows, forgetRowShapes, iterateRows } from '../../src/server/store/sqlite-rows.js';

const db = new SQLite(':memory:');
db.exec(`create table t (id integer primary key, name text, score real, data blob, empty text);
  insert into t values (1, 'ann', 1.5, x'00ff', null), (2, 'ben', -2, x'', null);`);

const QUERIES = [
  'select * from t order by id',
  // The same name twice: the last column wins, as in better-sqlite3's own rows.
  'select id, name as id from t order by id',
  'select name as "a b", score as "constructor", data as """quoted""", empty as "x\u2028y" from t order by id',
  'select count(*) as n from t where id > ?',
];

it('rows equal the driver\'s own objects, keys in the same order', () => {
  for (const sql of QUERIES) {
    const params = sql.includes('?') ? [0] : [];
    const expected = db.prepare(sql).all(...params) as Record<string, unknown>[];
    const rows = allRows(db.prepare(sql), params);
    assert.deepStrictEqual(rows, expected, sql);
    assert.deepEqual(rows.map((r) => Object.keys(r)), expected.map((r) => Object.keys(r)), sql);
    for (const r of rows) assert.equal(Object.getPrototypeOf(r), Object.prototype, sql);
  }
});

it('a column named __proto__ is an own property, not the prototype (better-sqlite3 itself loses it)', () => {
  const [row] = allRows(db.prepare('select id as "__proto__", name from t where id = 1'), []);
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 1);
  assert.equal(row!.name, 'ann');
});

it('a statement reused keeps answering with objects, also streamed', () => {
  const statement = db.prepare('select id, name from t where id >= ? order by id');
  assert.deepStrictEqual(allRows(statement, [1]), [{ id: 1, name: 'ann' }, { id: 2, name: 'ben' }]);
  assert.deepStrictEqual(allRows(statement, [2]), [{ id: 2, name: 'ben' }]);
  assert.deepStrictEqual([...iterateRows(statement, [1])], [{ id: 1, name: 'ann' }, { id: 2, name: 'ben' }]);
  assert.deepStrictEqual(allRows(statement, [3]), []);
});

it('columns moved by another connection (a migration) are read under their new names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-rows-'));
  try {
    const writer = new SQLite(join(dir, 'db'));
    writer.pragma('journal_mode = WAL');
    writer.exec(`create table t (pid integer, visitor text, day integer); insert into t values (1, 'v', 5);`);
    const reader = new SQLite(join(dir, 'db'));
    const before = reader.prepare('select * from t');
    assert.deepEqual(allRows(before, []), [{ pid: 1, visitor: 'v', day: 5 }]);
    const recreate = (columns: string) =>
      writer.exec(`create table t2 (${columns}); insert into t2 select ${columns.replace(/ \w+(,|$)/g, '$1')} from t; drop table t; alter table t2 rename to t;`);
    recreate('day integer, pid integer, visitor text');
    // Prepared now, on a connection whose schema is out of date: SQLite prepares it again when it runs.
    assert.deepEqual(allRows(reader.prepare('select * from t'), []), [{ day: 5, pid: 1, visitor: 'v' }]);
    assert.deepEqual([...iterateRows(reader.prepare('select * from t where day = ?'), [5])], [{ day: 5, pid: 1, visitor: 'v' }]);
    // A statement that had run before the change: its shape is made again once the change is heard of.
    recreate('visitor text, day integer, pid integer');
    forgetRowShapes();
    assert.deepEqual(allRows(before, []), [{ visitor: 'v', day: 5, pid: 1 }]);
    reader.close();
    writer.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
