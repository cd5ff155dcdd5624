/**
 * On PostgreSQL a new sign-up writes everything it changes (participant, counters, event, deliveries,
 * token) in one statement: the round trips of a sign-up are its reads plus one.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pg from 'pg';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

const postgres = (await databaseKinds()).find((k) => k.name === 'postgres')!;

describe('round trips of a sign-up [postgres]', { skip: postgres.skip }, () => {
  let s: TestService;
  beforeEach(async () => {
    s = await startService(postgres);
  });
  afterEach(() => s.close());

  it('a new participant is written in one statement, with its event and counters', async () => {
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'first@example.com' });
    const query = mock.method(pg.Client.prototype, 'query');
    try {
      await s.admin.addParticipant({ id, email: 'second@example.com' });
    } finally {
      mock.restoreAll();
    }
    const texts = query.mock.calls.map((c) => String((c.arguments[0] as { text?: string }).text ?? c.arguments[0]));
    // Is the email taken? Then the one statement.
    assert.equal(texts.length, 2, texts.join('\n'));
    assert.match(texts[1]!, /^with s0 as \(insert into "participants"/);
    const c = await s.admin.getCampaign(id);
    assert.equal(c.participants, 2);
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').execute();
    assert.ok(events.some((e) => e.payload.includes('second@example.com')));
  });
});
