/**
 * On PostgreSQL the hot reads run as named statements, prepared once per connection. A migration by
 * another process that changes a table under them must not break the running service.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pg from 'pg';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;

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
