/**
 * Migrations are expand/contract: this release's migrations, run over the schema of the previous release
 * (./helpers/previous-release.ts), drop, rename, retype and tighten nothing that release's code uses, and
 * add no NOT NULL column without a default to its tables (./helpers/schema-rules.ts). The shipped
 * migrations are kept as they were, in order. The upgrade test (./upgrade.test.ts) runs that release's
 * code on the new schema; this one names the column at fault, on SQLite as well as PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../src/server/store/connect.js';
import { migrate, migrationNames } from '../../src/server/store/migrations.js';
import { databaseKinds } from './helpers/databases.js';
import { PREVIOUS_RELEASE, previousReleaseMigrations } from './helpers/previous-release.js';
import { expandProblems, schemaShape, type ColumnShape } from './helpers/schema-rules.js';

const kinds = await databaseKinds();
const previous = previousReleaseMigrations();

describe('the expand/contract check itself', () => {
  const text: ColumnShape = { dataType: 'text', isNullable: true, hasDefaultValue: false, isAutoIncrementing: false };
  const required: ColumnShape = { ...text, isNullable: false };
  it('finds a dropped table, a dropped or renamed column, a new type, a tightened column, a NOT NULL column without a default', () => {
    const before = { people: { id: required, name: text, nick: text, age: text, note: text }, gone: { id: required } };
    const after = {
      people: { id: required, full_name: text, nick: required, age: { ...text, dataType: 'integer' }, note: text, plan: required, tier: { ...required, hasDefaultValue: true }, extra: text },
      added: { id: required },
    };
    assert.deepEqual(expandProblems(before, after), [
      'column people.name is gone (dropped or renamed): the previous release reads it',
      'column people.nick became NOT NULL: the previous release may write null',
      'column people.age changed type from text to integer',
      "new column people.plan is NOT NULL without a default: the previous release's inserts leave it out",
      'table gone is gone: the previous release uses it',
    ]);
  });
  it('finds nothing in a schema that only adds: new tables, nullable columns, NOT NULL columns with defaults', () => {
    assert.deepEqual(expandProblems({ t: { id: required } }, { t: { id: required, a: text, b: { ...required, hasDefaultValue: true } }, u: { id: required } }), []);
  });
});

describe(`migrations since the previous release (${PREVIOUS_RELEASE.slice(0, 7)})`, () => {
  it("keeps the previous release's migrations, in their order, ahead of any new one", () => {
    for (const kind of kinds) assert.deepEqual(migrationNames(kind.dialect).slice(0, previous.length), previous);
  });

  for (const kind of kinds) {
    it(`only expand the previous release's schema [${kind.name}]`, { skip: kind.skip }, async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, previous.at(-1));
        const before = await schemaShape(c.db, c.dialect);
        assert.ok(Object.keys(before).includes('participants'), "the previous release's schema was read");
        await migrate(c.db, c.dialect);
        assert.deepEqual(expandProblems(before, await schemaShape(c.db, c.dialect)), []);
      } finally {
        await c.close();
        await db.drop();
      }
    });
  }
});
