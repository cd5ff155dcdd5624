/**
 * On PostgreSQL the hot reads run as named statements, prepared once per connection. A migration by
 * another process that changes a table under them must not break the running service.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { connect } from '../../src/server/store/connect.js';
import { prepare } from '../../src/server/store/prepared.js';
import { behindTransactionPooler, driverUrl } from '../../src/server/store/transaction-pooling.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

// Through PgBouncer too: nothing may be sent named through a transaction pooler.
const postgres = (await databaseKinds({ pgbouncer: true })).find((k) => k.name === 'postgres')!;

describe('named statements [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    s = await startService(postgres);
  });
  afterEach(() => s.close());

  it('a hot read is sent as a named statement', async () => {
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const query = mock.method(pg.Client.prototype, 'query');
    try {
      await s.admin.getParticipant(id, 'ann@example.com');
    } finally {
      mock.restoreAll();
    }
    const named = query.mock.calls.map((c) => c.arguments[0] as { name?: string; text?: string }).filter((q) => q.name !== undefined);
    assert.equal(named.length, 1, 'the participant read');
    // The row's columns and its exact referral count (src/server/store/referral-count-store.ts).
    assert.match(named[0]!.text!, /^select "participants"\."id", .* as "total_referrals" from "participants" where "campaign_id" = \$1 and "email" = \$2$/);
  });

  it('reads keep working after another process adds a column under a prepared statement', async () => {
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    // Prepare the read on every pooled connection, so the next call certainly meets a stale one.
    await Promise.all(Array.from({ length: 20 }, () => s.admin.getParticipant(id, 'ann@example.com')));
    const other = new pg.Client({ connectionString: s.database.url });
    await other.connect();
    await other.query('alter table participants add column added_by_a_later_migration text');
    await other.end();
    const reads = await Promise.all(Array.from({ length: 20 }, () => s.admin.getParticipant(id, 'ann@example.com')));
    for (const p of reads) assert.equal(p.email, 'ann@example.com');
  });
});

/**
 * Behind a transaction-pooling PgBouncer (DATABASE_URL with pgbouncer=true) nothing may be named: each
 * call may run on another server session than the one that prepared the statement.
 */
const pgbouncer = (await databaseKinds({ pgbouncer: true })).find((k) => k.name === 'pgbouncer')!;

describe('named statements [pgbouncer]', { skip: pgbouncer.skip }, () => {
  const participantRead = prepare((db, email: string) => db.selectFrom('participants').select('email').where('email', '=', email));

  it('with pgbouncer=true, every query is sent unnamed', async () => {
    const s = await startService(pgbouncer);
    try {
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'ann@example.com' });
      const query = mock.method(pg.Client.prototype, 'query');
      try {
        await s.admin.getParticipant(id, 'ann@example.com');
        await s.admin.addParticipant({ id, email: 'ben@example.com' });
      } finally {
        mock.restoreAll();
      }
      const sent = query.mock.calls.map((c) => c.arguments[0] as string | { name?: string });
      assert.ok(sent.length >= 2, 'the reads and the sign-up reached the driver');
      assert.deepEqual(sent.filter((q) => typeof q === 'object' && q.name !== undefined), []);
    } finally {
      await s.close();
    }
  });

  it('without it, a named statement that meets another session fails saying to add pgbouncer=true', async () => {
    const database = await pgbouncer.create();
    const url = new URL(database.url);
    url.searchParams.delete('pgbouncer');
    const { db, close } = connect(url.href);
    try {
      await db.connection().execute(async (one) => {
        // Prepared on the session PgBouncer lent this connection for that statement, then given back.
        assert.deepEqual(await participantRead(one, 'nobody@example.com'), []);
        // Another connection's transaction takes that session (PgBouncer lends the last one given back),
        // so this connection's next call runs on another, which never saw the statement.
        await db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await assert.rejects(participantRead(one, 'nobody@example.com'), /prepared statement "refkit_\d+" does not exist: .*Add \?pgbouncer=true to it/);
        });
      });
    } finally {
      await close();
      await database.drop();
    }
  });

  it('pgbouncer= takes true or false only, and is never passed on to PostgreSQL', () => {
    assert.equal(behindTransactionPooler('postgres://u@h:6432/refkit?pgbouncer=true'), true);
    assert.equal(behindTransactionPooler('postgres://u@h:6432/refkit?pgbouncer=false'), false);
    assert.equal(behindTransactionPooler('postgres://u@h:5432/refkit'), false);
    assert.throws(() => behindTransactionPooler('postgres://u@h/refkit?pgbouncer=yes'), /pgbouncer= must be true or false, not "yes"/);
    assert.equal(driverUrl('postgres://u@h:6432/refkit?sslmode=require&pgbouncer=true'), 'postgres://u@h:6432/refkit?sslmode=require');
  });
});
