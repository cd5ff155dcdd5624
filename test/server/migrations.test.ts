/**
 * Starting on a database that is already up to date reads Kysely's own table and runs no migrator (which
 * would list the tables of every schema in the database first); a new or older database is migrated.
 * Migrations that convert rows are tested on rows written as the migration before them left them.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { Migrator, sql } from 'kysely';
import { connect } from '../../src/server/store/connect.js';
import { visitorKey } from '../../src/server/referrals/domain/impressions.js';
import { networkOf } from '../../src/server/kernel/network.js';
import { hashSecret } from '../../src/server/kernel/secrets.js';
import { ledgerTotals } from '../../src/server/rewards/domain/ledger.js';
import { DAY_MS, migrate } from '../../src/server/store/migrations.js';
import { CARRIED_OVER_LABEL } from '../../src/server/rewards/store/reward-entry-store.js';
import { Store } from '../../src/server/store/store.js';
import { databaseKinds } from './helpers/databases.js';

// Through PgBouncer too: migrations take their lock and run their transactions through the pooler.
const kinds = await databaseKinds({ pgbouncer: true });

for (const kind of kinds) {
  describe(`migrate [${kind.name}]`, { skip: kind.skip }, () => {
    it('migrates a new database, skips the migrator once it is up to date, and migrates one a migration behind', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      const runs = mock.method(Migrator.prototype, 'migrateToLatest');
      try {
        await migrate(c.db, c.dialect);
        assert.equal(runs.mock.callCount(), 1, 'a new database is migrated');
        await migrate(c.db, c.dialect);
        assert.equal(runs.mock.callCount(), 1, 'an up-to-date one is left alone');
        // As if the newest migration had not run yet: its row gone, so the migrator runs it again (over its
        // own tables, where it may or may not fail: that it runs is the point).
        const { rows } = await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(c.db);
        await sql`delete from kysely_migration where name = ${rows[0]!.name}`.execute(c.db);
        await migrate(c.db, c.dialect).catch(() => undefined);
        assert.equal(runs.mock.callCount(), 2, 'a database a migration behind is migrated');
      } finally {
        mock.restoreAll();
        await c.close();
        await db.drop();
      }
    });

    it("0009 keeps today's impressions, their visitors' hex keys turned into the 52-bit keys the service now counts by", async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0008_counter_shards');
        const now = Date.now();
        const day = Math.floor(now / DAY_MS);
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        const { id } = await c.db
          .insertInto('participants')
          .values({ campaign_id: 'c1', email: 'a@example.com', email_key: 'a@example.com', code: 'AAAA2345', created_on: now, updated_on: now, signup_source: 'api', impression_count: 1 })
          .returning('id')
          .executeTakeFirstOrThrow();
        const visitor = { ip: '203.0.113.7', userAgent: 'Firefox' };
        // As 0003 to 0008 stored it: the first 32 hex characters of the same hash.
        const hex = hashSecret(`${networkOf(visitor.ip)}|${visitor.userAgent}`).slice(0, 32);
        await sql`insert into impressions (participant_id, visitor, day) values (${id}, ${hex}, ${day})`.execute(c.db);
        await migrate(c.db, c.dialect);
        const rows = await c.db.selectFrom('impressions').selectAll().execute();
        assert.deepEqual(rows.map((r) => ({ ...r, visitor: Number(r.visitor) })), [{ day, participant_id: id, visitor: visitorKey(visitor) }]);
        // So the same visitor, counted again today by the service, is a repeat.
        const store = new Store(c.db, c.dialect);
        store.addImpression({ participantId: id, visitor: visitorKey(visitor), day });
        await store.flushImpressions();
        assert.equal((await store.findParticipant(id))!.impression_count, 1);
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0014 carries every earned and redeemed reward into the ledger: balances unchanged, entries summing to them', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0013_idempotency_keys');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        // As the counters stood before the ledger: earned and redeemed, of either kind, or nothing.
        const counters = [
          { referral_reward: 0, referral_reward_redeemed: 0, referee_reward: 0, referee_reward_redeemed: 0 },
          { referral_reward: 30, referral_reward_redeemed: 0, referee_reward: 0, referee_reward_redeemed: 0 },
          { referral_reward: 40, referral_reward_redeemed: 25, referee_reward: 5, referee_reward_redeemed: 5 },
          { referral_reward: 0, referral_reward_redeemed: 0, referee_reward: 5, referee_reward_redeemed: 2 },
          { referral_reward: 9_007_199_254, referral_reward_redeemed: 1, referee_reward: 0, referee_reward_redeemed: 0 },
        ];
        for (const [i, rewards] of counters.entries()) {
          await c.db
            .insertInto('participants')
            .values({ campaign_id: 'c1', email: `p${i}@example.com`, email_key: `p${i}@example.com`, code: `CODE${i}234`, created_on: now, updated_on: now + i, signup_source: 'api', ...rewards })
            .execute();
        }
        await migrate(c.db, c.dialect);
        const people = await c.db.selectFrom('participants').selectAll().orderBy('id').execute();
        const entries = await c.db.selectFrom('reward_entries').selectAll().execute();
        for (const [i, p] of people.entries()) {
          const { referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed } = p;
          assert.deepEqual({ referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed }, counters[i], 'the counters are unchanged');
          const own = entries.filter((e) => e.participant_id === p.id);
          assert.deepEqual(ledgerTotals(own), counters[i], `p${i}: the entries sum to the counters`);
          for (const e of own) assert.deepEqual([e.status, e.label, e.created_on], ['available', CARRIED_OVER_LABEL, p.updated_on]);
        }
        // One entry per non-zero counter: nothing for the participant with none.
        assert.equal(entries.length, 1 + 4 + 2 + 2);
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0015 adds the reward rules with every balance unchanged, counts each referrer\'s credited referrals, and leaves campaigns without rules', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0014_reward_entries');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        const person = (i: number, extra: Record<string, unknown>) =>
          c.db
            .insertInto('participants')
            .values({ campaign_id: 'c1', email: `p${i}@example.com`, email_key: `p${i}@example.com`, code: `CODE${i}234`, created_on: now, updated_on: now, signup_source: 'api', ...extra })
            .returning('id')
            .executeTakeFirstOrThrow();
        // A referrer with three referees: two credited, one qualified but held (not credited).
        const ann = await person(0, { referral_reward: 20, referral_reward_redeemed: 5, total_completed_referred: 3 });
        await person(1, { referred_by_id: ann.id, reward_event_completed: 1, reward_credited: 1, referee_reward: 5 });
        await person(2, { referred_by_id: ann.id, reward_event_completed: 1, reward_credited: 1, referee_reward: 5, referee_reward_redeemed: 5 });
        await person(3, { referred_by_id: ann.id, reward_event_completed: 1, reward_credited: 0, approval: 0 });
        const before = await c.db.selectFrom('participants').select(['id', 'referral_reward', 'referral_reward_redeemed', 'referee_reward', 'referee_reward_redeemed']).orderBy('id').execute();
        await migrate(c.db, c.dialect);
        const after = await c.db.selectFrom('participants').selectAll().orderBy('id').execute();
        assert.deepEqual(
          after.map(({ id, referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed }) => ({ id, referral_reward, referral_reward_redeemed, referee_reward, referee_reward_redeemed })),
          before,
        );
        assert.deepEqual(after.map((p) => [p.credited_referrals, p.milestones_reached, p.referral_reward_owed, p.referee_reward_owed, p.commission_remainder, p.refunded]), [
          [2, 0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0, 0],
        ]);
        const campaign = await c.db.selectFrom('campaigns').selectAll().executeTakeFirstOrThrow();
        assert.deepEqual([campaign.referrer_reward_bp, campaign.commission_payments, campaign.milestones, campaign.max_referral_reward, campaign.hold_days], [0, 0, null, null, 0]);
        assert.deepEqual(await c.db.selectFrom('payments').selectAll().execute(), []);
        assert.ok((await c.db.selectFrom('reward_entries').select('capped').execute()).every((e) => e.capped === 0));
      } finally {
        await c.close();
        await db.drop();
      }
    });
    it('0018 leaves campaigns of 0017 paying nothing into Stripe (mode off, no key), and its outbox refuses a row no payout can be', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0017_stripe');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now, stripe_webhook_secret: 'whsec_kept0123' }).execute();
        const p = await c.db
          .insertInto('participants')
          .values({ campaign_id: 'c1', email: 'p@example.com', email_key: 'p@example.com', code: 'CODE1234', created_on: now, updated_on: now, signup_source: 'api', referral_reward: 10 })
          .returning('id')
          .executeTakeFirstOrThrow();
        await migrate(c.db, c.dialect);
        const campaign = await c.db.selectFrom('campaigns').selectAll().executeTakeFirstOrThrow();
        assert.deepEqual([campaign.stripe_reward_mode, campaign.stripe_reward_key, campaign.stripe_webhook_secret], ['off', null, 'whsec_kept0123']);
        assert.deepEqual(await c.db.selectFrom('stripe_payouts').selectAll().execute(), [], 'nothing earned before is paid out');
        const row = { campaign_id: 'c1', participant_id: Number(p.id), reward_kind: 'referral' as const, currency: 'USD', mode: 'balance' as const, label: 'x', status: 'queued' as const, created_on: now, updated_on: now };
        await c.db.insertInto('stripe_payouts').values({ ...row, amount: 10, idempotency_key: 'k1' }).execute();
        await assert.rejects(c.db.insertInto('stripe_payouts').values({ ...row, amount: 0, idempotency_key: 'k2' }).execute(), 'amount > 0');
        await assert.rejects(c.db.insertInto('stripe_payouts').values({ ...row, amount: 5, idempotency_key: 'k1' }).execute(), 'one key per payout');
        await assert.rejects(c.db.insertInto('stripe_payouts').values({ ...row, amount: 5, idempotency_key: 'k3', status: 'sent' as 'paid' }).execute(), 'known statuses only');
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0021 chains each payer\'s earlier payments, newest first, and payments recorded after it join the chain', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0017_stripe');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        const person = async (i: number, referredBy: number | null) =>
          (
            await c.db
              .insertInto('participants')
              .values({ campaign_id: 'c1', email: `p${i}@example.com`, email_key: `p${i}@example.com`, code: `CODE${i}234`, created_on: now, updated_on: now, signup_source: 'api', referred_by_id: referredBy })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id;
        const ann = await person(0, null);
        const [bob, cat, dan] = [await person(1, ann), await person(2, ann), await person(3, ann)];
        // Bob's and Cat's payments interleaved, as 0015 recorded them (counters moved with each, as it did).
        const paid: Record<number, number[]> = { [bob]: [], [cat]: [] };
        for (const [payer, cents] of [[bob, 1000], [cat, 500], [bob, 2000], [bob, 3000], [cat, 700]] as const) {
          const seq = paid[payer]!.length + 1;
          const { id } = await c.db.insertInto('payments').values({ participant_id: payer, seq, amount_cents: cents, paid_on: now }).returning('id').executeTakeFirstOrThrow();
          if (c.dialect === 'postgres') await c.db.updateTable('participants').set({ payment_count: seq }).where('id', '=', payer).execute();
          paid[payer]!.push(Number(id));
        }
        await migrate(c.db, c.dialect);
        const rows = await c.db.selectFrom('payments').select(['id', 'prev_id']).orderBy('id').execute();
        const prev = new Map(rows.map((r) => [Number(r.id), r.prev_id === null ? null : Number(r.prev_id)]));
        assert.deepEqual([paid[bob]!.map((id) => prev.get(id)), paid[cat]!.map((id) => prev.get(id))], [
          [null, paid[bob]![0], paid[bob]![1]],
          [null, paid[cat]![0]],
        ]);
        const last = await c.db.selectFrom('participants').select(['id', 'last_payment_id']).orderBy('id').execute();
        assert.deepEqual(last.map((p) => (p.last_payment_id === null ? null : Number(p.last_payment_id))), [null, paid[bob]![2], paid[cat]![1], null]);

        // A payment recorded now is the newest of Bob's; Dan's first starts a chain of his own.
        const store = new Store(c.db, c.dialect);
        const added = await store.transaction(async (tx) => {
          await tx.lockParticipants([ann, bob]);
          return tx.payments.record(bob, ann, 4000, false, true, now);
        });
        const first = await store.transaction(async (tx) => {
          await tx.lockParticipants([ann, dan]);
          return tx.payments.record(dan, ann, 100, true, true, now);
        });
        assert.equal(added.seq, 4);
        assert.equal(first.seq, 1);
        assert.deepEqual((await store.payments.refundable(bob)).map((p) => [Number(p.id), p.amount_cents]), [
          [added.id, 4000],
          [paid[bob]![2], 3000],
          [paid[bob]![1], 2000],
          [paid[bob]![0], 1000],
        ]);
        assert.deepEqual((await store.payments.refundable(cat)).map((p) => p.amount_cents), [700, 500]);
        assert.deepEqual((await store.payments.refundable(dan)).map((p) => [Number(p.id), p.seq, p.prev_id]), [[first.id, 1, null]]);
        assert.deepEqual((await store.payments.undecided(bob)).map((p) => p.amount_cents), [1000, 2000, 3000]);
        // The referrer's revenue moved with both (on SQLite 0015's trigger had moved it for the five before).
        const { revenue_generated_cents: revenue } = await c.db.selectFrom('participants').select('revenue_generated_cents').where('id', '=', ann).executeTakeFirstOrThrow();
        assert.equal(Number(revenue), (c.dialect === 'sqlite' ? 7200 : 0) + 4100);
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0022 leaves campaigns of 0021 out of waitlist mode; turned on, earlier participants count as let in and new sign-ups queue', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0021_payment_chain');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        const insert = async (i: number) =>
          Number(
            (
              await c.db
                .insertInto('participants')
                .values({ campaign_id: 'c1', email: `p${i}@example.com`, email_key: `p${i}@example.com`, code: `CODE${i}234`, created_on: now, updated_on: now, signup_source: 'api' })
                .returning('id')
                .executeTakeFirstOrThrow()
            ).id,
          );
        const before = await insert(0);
        await migrate(c.db, c.dialect);
        assert.deepEqual(await c.db.selectFrom('campaigns').select('waitlist').executeTakeFirstOrThrow(), { waitlist: null });
        const store = new Store(c.db, c.dialect);
        assert.equal(await store.waitlists.standing('c1', before), undefined);
        await c.db.updateTable('campaigns').set({ waitlist: JSON.stringify({ spotsPerReferral: 3, counts: 'signups' }) }).execute();
        const after = await insert(1);
        await store.transaction((tx) => tx.waitlists.join('c1', after));
        assert.deepEqual(await store.waitlists.standing('c1', after), { position: 1, of: 1 });
        assert.equal(await store.waitlists.standing('c1', before), undefined);
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0019 puts credited referrals on the all-time board, ties in participant order, and later credits arrive after them', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0017_stripe');
        const now = Date.now();
        await c.db.insertInto('campaigns').values({ id: 'c1', account_id: 1, name: 'C', host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        const ids: number[] = [];
        for (const [i, credited] of [1, 2, 0, 1].entries()) {
          const row = await c.db
            .insertInto('participants')
            .values({ campaign_id: 'c1', email: `p${i}@example.com`, email_key: `p${i}@example.com`, code: `CODE${i}234`, created_on: now, updated_on: now, signup_source: 'api', credited_referrals: credited })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(Number(row.id));
        }
        await migrate(c.db, c.dialect);
        const campaign = await c.db.selectFrom('campaigns').select(['leaderboard', 'time_zone']).executeTakeFirstOrThrow();
        assert.deepEqual(campaign, { leaderboard: null, time_zone: 'UTC' });
        const store = new Store(c.db, c.dialect);
        const standings = async () => Promise.all(ids.map((id) => store.leaderboards.standing('c1', 'all', id)));
        assert.deepEqual(await standings(), [{ rank: 2, score: 1 }, { rank: 1, score: 2 }, undefined, { rank: 3, score: 1 }]);
        await store.transaction((tx) => tx.leaderboards.move('c1', 'all', ids[2]!, 1));
        assert.deepEqual((await standings())[2], { rank: 4, score: 1 });
      } finally {
        await c.close();
        await db.drop();
      }
    });

    it('0020 gives earlier participants English emails and every earlier campaign its own unsubscribe key, sending nothing for them', async () => {
      const db = await kind.createEmpty();
      const c = connect(db.url);
      try {
        await migrate(c.db, c.dialect, '0017_stripe');
        const now = Date.now();
        for (const id of ['c1', 'c2']) {
          await c.db.insertInto('campaigns').values({ id, account_id: 1, name: id, host_url: 'https://c.example', status: 'Active', end_on: null, allowed_origins: null, created_on: now, updated_on: now }).execute();
        }
        await c.db.insertInto('participants').values({ campaign_id: 'c1', email: 'p@example.com', email_key: 'p@example.com', code: 'CODE1234', created_on: now, updated_on: now, signup_source: 'api' }).execute();
        await migrate(c.db, c.dialect);
        assert.deepEqual(await c.db.selectFrom('participants').select('locale').execute(), [{ locale: 'en' }]);
        const campaigns = await c.db.selectFrom('campaigns').select(['email_secret', 'email_settings']).orderBy('id').execute();
        assert.ok(campaigns.every((k) => /^[0-9a-f]{64}$/.test(k.email_secret ?? '') && k.email_settings === null), JSON.stringify(campaigns));
        assert.notEqual(campaigns[0]!.email_secret, campaigns[1]!.email_secret, 'a key of its own');
        assert.deepEqual(await c.db.selectFrom('email_outbox').selectAll().execute(), []);
      } finally {
        await c.close();
        await db.drop();
      }
    });
  });
}
