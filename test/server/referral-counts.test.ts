/**
 * Referral counts without a hot row (src/server/store/referral-count-store.ts), on SQLite and PostgreSQL:
 * sign-ups through one link append deltas; every answer that carries a referral count adds those not yet
 * folded, so it is exact while sign-ups and folds run at once; orders by the count fold first. On
 * PostgreSQL: a sign-up through a link does not wait for a lock on the referrer's row (it did when every
 * sign-up updated that row), a fold whose connection dies between its DELETE and its UPDATE loses
 * nothing, and the folds vacuum the delta table themselves.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ReferralFolder } from '../../src/server/referrals/domain/referral-folder.js';
import { VACUUM_AFTER } from '../../src/server/store/referral-count-store.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';
import { recipientsOf } from './helpers/email-outbox.js';

const count = async (s: TestService, table: 'participants' | 'referral_count_deltas', column: 'referred_by_id' | 'referrer_id', id: number) =>
  Number(
    (await s.ctx.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where(column, '=', id).executeTakeFirstOrThrow()).n,
  );
/** How many referees name `id` as their referrer: what totalReferrals must say. */
const refereesOf = (s: TestService, id: number) => count(s, 'participants', 'referred_by_id', id);
/** How many of `id`'s referrals are still deltas, not folded into their row. */
const deltasOf = (s: TestService, id: number) => count(s, 'referral_count_deltas', 'referrer_id', id);
const storedCount = async (s: TestService, id: number) =>
  (await s.ctx.store.db.selectFrom('participants').select('total_referrals').where('id', '=', id).executeTakeFirstOrThrow()).total_referrals;

/** `n` browsers signing up through `code` at once, numbered from `from`. */
const signUps = (s: TestService, id: string, code: string, from: number, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => s.browser.signUp({ id, email: `friend${from + i}@example.com`, referredByCode: code })));

/** The campaign's CSV export's cell of `column` in the row of `email`. */
async function csvCell(s: TestService, id: string, email: string, column: string): Promise<string> {
  const res = await fetch(`${s.url}/api/v1/admin/exportParticipants?id=${id}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
  assert.equal(res.status, 200);
  const [header, ...rows] = (await res.text()).trim().split(/\r?\n/).map((line) => line.split(','));
  const row = rows.find((r) => r.includes(email));
  assert.ok(row, `${email} in the export`);
  return row[header!.indexOf(column)]!;
}

eachDatabase('referral counts', (service, kind) => {
  it('totalReferrals is exact in every answer while sign-ups through one link and folds run at once', async () => {
    const s = service();
    const id = await s.campaign({ referrerRewardValue: 5 });
    await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hook', eventTypes: ['reward_unlocked'] });
    const zed = await s.admin.addParticipant({ id, email: 'zed@example.com' });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com', referredByCode: zed.referralCode! });
    const annId = (await s.ctx.store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    // Added with the key, so never held back: their qualifying credits ann (browsers from one network are held).
    await s.admin.addParticipant({ id, email: 'api@example.com', referredByCode: ann.referralCode! });

    // Sign-ups in waves through ann's link, a folder folding as fast as it can and more folds besides,
    // and a reader checking every answer against the referees counted just before and just after it.
    const folder = new ReferralFolder(s.ctx, 1);
    folder.start();
    let done = false;
    let reads = 0;
    const reader = (async () => {
      while (!done) {
        const before = await refereesOf(s, annId);
        const answer = (await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals!;
        const after = await refereesOf(s, annId);
        assert.ok(before <= answer && answer <= after, `${before} <= ${answer} <= ${after}`);
        reads++;
      }
    })();
    try {
      for (let wave = 0; wave < 4; wave++) {
        await Promise.all([signUps(s, id, ann.referralCode!, wave * 10, 10), s.ctx.store.referralCounts.fold(), s.ctx.store.referralCounts.fold()]);
      }
    } finally {
      done = true;
      await reader;
      await folder.stop();
    }
    assert.ok(reads > 0);
    // A fold that ran beside a wave left the deltas committed after it began: one more, with nothing beside it.
    await s.ctx.store.referralCounts.fold();
    // All of them folded or not, five more surely not yet: each answer below adds those five to the stored count.
    await signUps(s, id, ann.referralCode!, 40, 5);
    assert.equal(await refereesOf(s, annId), 46);
    assert.equal(await deltasOf(s, annId), 5);
    assert.equal(await storedCount(s, annId), 41);

    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 46);
    assert.equal((await s.admin.getAllParticipants(id)).find((p) => p.email === 'ann@example.com')!.totalReferrals, 46);
    assert.deepEqual((await s.admin.getReferrals(id, 'zed@example.com')).map((p) => [p.email, p.totalReferrals]), [['ann@example.com', 46]]);
    assert.equal((await s.admin.exportPerson('ann@example.com')).participants[0]!.participant.totalReferrals, 46);
    assert.equal(await csvCell(s, id, 'ann@example.com', 'totalReferrals'), '46');
    // The same participant added again is answered with their row, count and all.
    assert.equal((await s.admin.addParticipant({ id, email: 'ann@example.com' })).totalReferrals, 46);
    // A webhook event about the referrer (a referee qualified: their reward) carries the count too.
    await s.admin.qualifyParticipant({ id, email: 'api@example.com' });
    const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').where('event_type', '=', 'reward_unlocked').execute();
    const about = events.map((e) => JSON.parse(e.payload) as { data: { participantId: number; totalReferred: number } }).filter((e) => e.data.participantId === annId);
    assert.deepEqual(about.map((e) => e.data.totalReferred), [46]);

    // Orders by the count fold the campaign first: the stored column then says the same.
    const sorted = await s.admin.searchParticipants({ id, sort: 'totalReferrals', order: 'desc', pageSize: 2 });
    assert.deepEqual(sorted.participants.map((p) => [p.email, p.totalReferrals]), [['ann@example.com', 46], ['zed@example.com', 1]]);
    assert.equal(await deltasOf(s, annId), 0);
    assert.equal(await storedCount(s, annId), 46);
    // Its cursor goes on from there, by the stored count.
    const next = await s.admin.searchParticipants({ id, sort: 'totalReferrals', order: 'desc', pageSize: 2, cursor: sorted.nextCursor! });
    assert.equal(next.participants.length, 2);
    assert.ok(next.participants.every((p) => p.totalReferrals === 0));
    await signUps(s, id, zed.referralCode!, 100, 2);
    const top = (await s.admin.getCampaignAnalytics(id)).topReferrers;
    assert.deepEqual(top.slice(0, 2).map((p) => [p.email, p.totalReferrals]), [['ann@example.com', 46], ['zed@example.com', 3]]);
  });

  it('reminder emails go to participants with no referral, folded or not', async () => {
    const s = service();
    const id = await s.campaign();
    const bob = await s.admin.addParticipant({ id, email: 'bob@example.com' });
    await s.admin.addParticipant({ id, email: 'cat@example.com' });
    await s.browser.signUp({ id, email: 'dan@example.com', referredByCode: bob.referralCode! });
    const bobId = (await s.ctx.store.findParticipantByEmail(id, 'bob@example.com'))!.id;
    // Bob's one referral is still a delta: his row says 0.
    assert.equal(await storedCount(s, bobId), 0);
    const now = Date.now() + 60_000;
    await s.ctx.store.emails.queueReminders(id, now, now);
    assert.deepEqual((await recipientsOf(s, 'reminder')).sort(), ['cat@example.com', 'dan@example.com']);
  });

  if (kind.name !== 'postgres') return;

  it('a sign-up through a link does not wait for a lock held on the referrer\'s row', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const annId = (await s.ctx.store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    // Another transaction holds the lock an UPDATE of ann's row takes (as a sign-up's did, until its
    // COMMIT was on disk). While the sign-ups run, PostgreSQL is asked whether any backend waits for it.
    const other = new pg.Client({ connectionString: s.database.url });
    await other.connect();
    let blocked = false;
    try {
      await other.query('begin');
      await other.query('select id from participants where id = $1 for no key update', [annId]);
      let finished = false;
      const signing = signUps(s, id, ann.referralCode!, 0, 5).finally(() => (finished = true));
      while (!finished && !blocked) {
        // pg_stat_activity is read once per transaction, and this one stays open: read it afresh each time.
        await other.query('select pg_stat_clear_snapshot()');
        const { rows } = await other.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))');
        blocked = rows[0]!.n > 0;
        if (!blocked && !finished) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // A waiting sign-up goes on once the lock is gone; either way they all end.
      if (blocked) await other.query('rollback');
      const signedUp = await signing;
      assert.equal(blocked, false, "a sign-up waited for the lock on its referrer's row");
      assert.ok(signedUp.every((a) => a.participant.totalReferrals === 0));
      assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 5);
    } finally {
      if (!blocked) await other.query('rollback');
      await other.end();
    }
  });

  it('folds vacuum the delta table themselves once VACUUM_AFTER of its rows have died (autovacuum may lag, or be off)', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const annId = (await s.ctx.store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    const vacuums = async () => {
      // The statistics are read once per transaction: afresh each time.
      await sql`select pg_stat_clear_snapshot()`.execute(s.ctx.store.db);
      const { rows } = await sql<{ n: string }>`select vacuum_count as n from pg_stat_user_tables where relname = 'referral_count_deltas' and schemaname = current_schema()`.execute(s.ctx.store.db);
      return Number(rows[0]!.n);
    };
    const addDeltas = (n: number) => sql`insert into referral_count_deltas (referrer_id, n, created_on) select ${annId}, 1, 0 from generate_series(1, ${n})`.execute(s.ctx.store.db);
    // Just short of the threshold: folded, and left for later.
    await addDeltas(VACUUM_AFTER - 1);
    assert.equal(await s.ctx.store.referralCounts.fold(), VACUUM_AFTER - 1);
    assert.equal(await vacuums(), 0);
    // One more: the fold that reaches it vacuums (the statistics are reported a moment after).
    await addDeltas(1);
    assert.equal(await s.ctx.store.referralCounts.fold(), 1);
    const until = Date.now() + 5_000;
    while ((await vacuums()) === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await vacuums(), 1);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, VACUUM_AFTER);
  });

  it('a fold whose connection dies between its DELETE and its UPDATE loses nothing', { timeout: 60_000 }, async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const annId = (await s.ctx.store.findParticipantByEmail(id, 'ann@example.com'))!.id;
    await signUps(s, id, ann.referralCode!, 0, 5);
    const other = new pg.Client({ connectionString: s.database.url });
    await other.connect();
    try {
      // Ann's row locked: the fold deletes her deltas, then waits at its UPDATE, where its backend is ended.
      await other.query('begin');
      await other.query('select id from participants where id = $1 for no key update', [annId]);
      const fold = s.ctx.store.referralCounts.foldReferrer(annId);
      // Its failure is expected from the moment its backend is ended, which may be before the terminate call
      // answers: handled from the start, so it is never an unhandled rejection.
      const failed = assert.rejects(fold);
      let pid: number | undefined;
      while (pid === undefined) {
        await other.query('select pg_stat_clear_snapshot()');
        const { rows } = await other.query<{ pid: number }>(
          `select pid from pg_stat_activity where wait_event_type = 'Lock' and query like 'update "participants"%' and pid <> pg_backend_pid()
             and datname = current_database()`,
        );
        pid = rows.find(() => true)?.pid;
        if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await other.query('select pg_terminate_backend($1)', [pid]);
      await failed;
    } finally {
      await other.query('rollback');
      await other.end();
    }
    assert.equal(await deltasOf(s, annId), 5);
    assert.equal(await storedCount(s, annId), 0);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 5);
    assert.equal(await s.ctx.store.referralCounts.foldReferrer(annId), 5);
    assert.equal(await deltasOf(s, annId), 0);
    assert.equal(await storedCount(s, annId), 5);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 5);
  });
  // Not through PgBouncer (pgbouncer: false): its PostgreSQL tests kill and block server sessions by pid,
  // which the pooler hides behind its own.
}, { pgbouncer: false });
