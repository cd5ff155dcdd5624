/**
 * On PostgreSQL a new sign-up is one short transaction: the shared counters it locks, in a fixed order
 * (so that concurrent sign-ups queue rather than deadlock), then everything else it writes (participant,
 * event, deliveries, token) as one statement.
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

  it('a new participant is one transaction: the counters, then one statement with the row and its event', async () => {
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'first@example.com' });
    const query = mock.method(pg.Client.prototype, 'query');
    try {
      await s.admin.addParticipant({ id, email: 'second@example.com' });
    } finally {
      mock.restoreAll();
    }
    const texts = query.mock.calls.map((c) => String((c.arguments[0] as { text?: string }).text ?? c.arguments[0]));
    // Is the email taken? Then the transaction.
    assert.equal(texts.length, 6, texts.join('\n'));
    assert.match(texts[0]!, /^select .* from "participants"/);
    assert.equal(texts[1], 'begin');
    assert.match(texts[2]!, /^update "campaigns" set "participant_count"/);
    assert.match(texts[3]!, /^insert into "campaign_daily_stats"/);
    assert.match(texts[4]!, /^with s0 as \(insert into "participants"/);
    assert.match(texts[4]!, /insert into "webhook_events"/);
    assert.equal(texts[5], 'commit');
    const c = await s.admin.getCampaign(id);
    assert.equal(c.participants, 2);
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').execute();
    assert.ok(events.some((e) => e.payload.includes('second@example.com')));
  });

  it('sign-ups and qualifications of one referrer at once all succeed (shared rows are locked in one order)', async () => {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const referees = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
    for (const email of referees) await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => s.browser.addParticipant({ id, email: `n${i}@example.com`, referredByCode: ann.referralCode! })),
      ...referees.flatMap((email) => [s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' }), s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' })]),
    ]);
    const after = await s.admin.getParticipant(id, 'ann@example.com');
    assert.equal(after.totalReferrals, 40);
    assert.equal((await s.admin.getCampaign(id)).participants, 41);
  });
});
