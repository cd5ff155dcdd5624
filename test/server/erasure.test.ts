/**
 * Exporting and erasing a person (admin exportPerson, erasePerson), on SQLite and PostgreSQL, through the
 * real service with a real SMTP server: after an erasure, no text of any row of any table (listed from the
 * database itself, so a future table is searched too) holds the address or the names; everyone else's rows
 * are exactly as they were; the same address signing up again earns no referral credit during the block;
 * getParticipant answers 404; participant_erased carries nothing personal.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { ERASED_NAME } from '../../src/api/erased.js';
import type { ParticipantErasedEvent } from '../../src/api/schemas.js';
import { loadConfig, ConfigError } from '../../src/server/config.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase } from './helpers/dump.js';
import { eachDatabase } from './helpers/suite.js';
import { existsSync, readFileSync } from 'node:fs';
import { maskEmail } from '../../src/server/kernel/email.js';
import type { TestService } from './helpers/service.js';
import { startMailbox } from './helpers/smtp.js';
import { countedRow } from '../../src/server/store/referral-count-store.js';

/** Sign-in links and lifecycle emails are written (and the links sent) only with SMTP. */
const mailbox = await startMailbox();
after(() => mailbox.close());

const ANN = { email: 'ann.q@example.com', firstName: 'Annabelle', lastName: 'Quixote' };
const NEEDLES = [ANN.email, ANN.firstName, ANN.lastName];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Every table of the database, from its own catalogue. */
async function tables(db: AnyDb, dialect: string): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows;
  return rows.map((r) => r.name);
}

/** Every text column of a table, from the catalogue (SQLite: any declared type, as SQLite stores text in any). */
async function textColumns(db: AnyDb, dialect: string, table: string): Promise<string[]> {
  if (dialect === 'sqlite') return (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map((r) => r.name);
  const rows = await sql<{ name: string }>`select column_name as name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and data_type in ('text', 'character varying', 'character', 'json', 'jsonb')`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** `table.column: value` of every text value in the database holding one of the needles (any case). */
async function findAnywhere(s: TestService, needles: string[]): Promise<string[]> {
  const { db, dialect } = s.ctx.store;
  const hits: string[] = [];
  for (const table of await tables(db, dialect)) {
    for (const column of await textColumns(db, dialect, table)) {
      const text = dialect === 'sqlite' ? sql`lower(cast(${sql.ref(column)} as text))` : sql`lower(${sql.ref(column)}::text)`;
      for (const needle of needles) {
        const found = dialect === 'sqlite' ? sql`instr(${text}, ${needle.toLowerCase()}) > 0` : sql`strpos(${text}, ${needle.toLowerCase()}) > 0`;
        const rows = (await sql<{ v: string }>`select ${sql.ref(column)} as v from ${sql.table(table)} where ${found}`.execute(db)).rows;
        for (const r of rows) hits.push(`${table}.${column}: ${String(r.v).slice(0, 200)}`);
      }
    }
  }
  return hits;
}

/** Every participant row but these, in id order: what must not move. */
const othersRows = (s: TestService, but: number[]) =>
  s.ctx.store.db.selectFrom('participants').selectAll().where('id', 'not in', but).orderBy('id').execute();

eachDatabase(
  'erasing a person',
  (service) => {
    /**
     * Zed refers Ann (in campaign A, with names), Ann refers Ben, both referrals qualify (so Ann and Zed
     * are credited), and Ann leaves traces everywhere: a browser token, impressions of her link, an emailed
     * sign-in link, a sign-up pending confirmation in a double opt-in campaign, a keyed call's stored
     * answer, a Stripe event, failed dashboard sign-ins, lifecycle emails (hers and Zed's "friend joined"),
     * webhook events. She is also in campaign B.
     */
    async function world(s: TestService) {
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked', 'participant_erased'] });
      const a = await s.campaign({ leaderboard: { period: 'all', size: 10 } });
      const b = await s.campaign();
      const c = await s.campaign({ requireEmailConfirmation: true });
      const zed = await s.admin.addParticipant({ id: a, email: 'zed@example.com', firstName: 'Zed' });
      const signup = await s.browser.signUp({ id: a, ...ANN, referredByCode: zed.referralCode! });
      const ann = signup.participant!;
      const ben = await s.admin.addParticipant({ id: a, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id: a, email: 'ben@example.com', amountPaid: '20.00' });
      await s.admin.qualifyParticipant({ id: a, email: ANN.email, amountPaid: '30.00' });
      assert.equal(await s.browser.validateCode(a, ann.referralCode!), true);
      await s.ctx.store.flushImpressions();
      await s.browser.signUp({ id: a, email: ANN.email }, { sendLink: true });
      await s.browser.signUp({ id: c, email: ANN.email, firstName: ANN.firstName });
      const keyed = await fetch(`${s.url}/api/v1/addParticipant`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'ann-in-b' },
        body: JSON.stringify({ id: b, ...ANN }),
      });
      assert.equal(keyed.status, 200);
      const [annA] = await s.ctx.store.db.selectFrom('participants').select('id').where('email', '=', ANN.email).where('campaign_id', '=', a).execute();
      await s.ctx.store.db
        .insertInto('stripe_events')
        .values({ campaign_id: a, id: 'evt_1', type: 'invoice.paid', status: 'applied', action: 'payment', amount_cents: 3000, currency: 'usd', email: ANN.email, code: null, customer: 'cus_1', charge: null, payment_intent: null, participant_id: annA!.id, reason: null, created_on: Date.now(), applied_on: Date.now() })
        .execute();
      // An unmatched Shopify order with her address (another provider's event: its address goes too).
      await s.ctx.store.db
        .insertInto('payment_events')
        .values({ campaign_id: a, provider: 'shopify', id: 'order:1:paid', type: 'orders/paid', status: 'unmatched', action: 'payment', amount_cents: 1000, currency: 'USD', email: ANN.email, link_keys: '[]', created_on: Date.now() })
        .execute();
      for (let i = 0; i < 2; i++) {
        await fetch(`${s.url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ANN.email, password: 'not the password' }) });
      }
      return { a, b, c, zed, ben, token: signup.token!, annIds: (await s.ctx.store.db.selectFrom('participants').select('id').where('email', '=', ANN.email).orderBy('id').execute()).map((r) => r.id) };
    }

    it('exports everything stored about the address, with other people masked', async () => {
      const s = service();
      const { a, b, c } = await world(s);
      // A second payment; a partial refund of the first, then a dispute of the second.
      await s.admin.qualifyParticipant({ id: a, email: ANN.email, amountPaid: '12.00' });
      const paid = await s.ctx.store.db.selectFrom('payments as p').innerJoin('participants as q', 'q.id', 'p.participant_id').select('p.id').where('q.email', '=', ANN.email).where('q.campaign_id', '=', a).orderBy('p.id').execute();
      const [first, second] = paid.map((r) => Number(r.id));
      await s.admin.refundPayment({ id: a, email: ANN.email, amount: '5.00', paymentId: first! });
      await s.admin.disputePayment({ id: a, email: ANN.email, amount: '12.00', paymentId: second!, disputeId: 'dp_ann' });
      const x = await s.admin.exportPerson(` ${ANN.email.toUpperCase()} `);
      assert.equal(x.email, ANN.email);
      assert.deepEqual(x.participants.map((p) => p.campaignId), [a, b]);
      const [inA, inB] = x.participants;
      assert.equal(inA!.participant.firstName, ANN.firstName);
      assert.equal(inA!.participant.referralReward, 10);
      assert.equal(inA!.participant.refereeReward, 5);
      assert.equal(inA!.signup.source, 'browser');
      assert.equal(inA!.signup.ip, '127.0.0.1');
      assert.equal(inA!.consent.tokens.length, 1);
      assert.deepEqual(inA!.referrals.map((r) => [r.name, r.status]), [['b***@example.com', 'qualified']]);
      assert.ok(inA!.rewardEntries.some((e) => e.kind === 'referral' && e.refereeEmail === 'b***@example.com'));
      assert.ok(!JSON.stringify(x).includes('ben@example.com'), "a referee's address is never exported");
      assert.deepEqual(
        inA!.payments.map((p) => [p.id, p.amountCents, p.refundedCents, p.refunds.map((r) => r.cents)]),
        [
          [first, 3000, 500, [500]],
          [second, 1200, 0, []],
        ],
      );
      assert.ok(Date.parse(inA!.payments[0]!.refunds[0]!.refundedOn) >= Date.parse(inA!.payments[0]!.paidOn));
      assert.deepEqual(
        inA!.disputes.map((d) => [d.id, d.paymentId, d.amountCents, d.status, d.closedOn]),
        [['dp_ann', second, 1200, 'open', null]],
      );
      assert.deepEqual(inB!.payments, []);
      assert.deepEqual(inB!.disputes, []);
      assert.equal(inA!.impressions.total, 1);
      assert.equal(inA!.impressions.recent.length, 1);
      assert.ok(inA!.emails.some((m) => m.kind === 'welcome'));
      assert.equal(inB!.participant.email, ANN.email);
      assert.deepEqual(x.pendingSignups.map((p) => [p.campaignId, p.firstName]), [[c, ANN.firstName]]);
      assert.deepEqual(x.emailLinks.map((l) => [l.campaignId, l.purpose]).sort(), [[a, 'login'], [c, 'confirm']].sort());
      assert.ok(x.webhookEvents.some((e) => e.eventType === 'referee_added' && (e.payload as { data: { email: string } }).data.email === ANN.email));
      assert.deepEqual(x.stripeEvents.map((e) => [e.id, e.customer]), [['evt_1', 'cus_1']]);

      const nobody = await s.admin.exportPerson('nobody@example.com');
      assert.deepEqual([nobody.participants, nobody.pendingSignups, nobody.emailLinks, nobody.webhookEvents, nobody.stripeEvents], [[], [], [], [], []]);
      await rejects(() => s.admin.exportPerson('not an address'), 400, 'invalid_request', 'email');
      await rejects(() => s.browser.exportPerson(ANN.email), 401, 'unauthorized');
    });

    it('after erasure no text column of any table holds the address or the names; everyone else is unchanged; the referral graph and balances stay', async () => {
      const s = service();
      const { a, b, zed, annIds, token } = await world(s);
      assert.ok((await findAnywhere(s, NEEDLES)).length > 10, 'the search finds the traces before the erasure');
      const before = await othersRows(s, annIds);
      const zedReferrals = (await s.admin.getReferrals(a, 'zed@example.com')).length;

      // Who looked at their data is recorded, with their address as the target.
      await s.admin.exportPerson(ANN.email);
      const audit = () => s.ctx.store.db.selectFrom('audit_log').select(['id', 'action', 'actor_label', 'created_on', 'target']).orderBy('id').execute();
      const entries = await audit();
      assert.equal(entries.at(-1)?.action, 'exportPerson');
      assert.equal(entries.at(-1)?.target, ANN.email);
      const result = await s.admin.erasePerson(ANN.email.toUpperCase());
      assert.deepEqual(result.participants.map((p) => p.campaignId).sort(), [a, b].sort());

      assert.deepEqual(await findAnywhere(s, NEEDLES), []);
      // The audit log keeps every entry, who made it and when (only the person is taken out), and records the erasure.
      const kept = await audit();
      assert.deepEqual(kept.slice(0, entries.length), [...entries.slice(0, -1), { ...entries.at(-1)!, target: 'Deleted participant' }]);
      assert.deepEqual(kept.slice(entries.length).map((e) => [e.action, e.target]), [['erasePerson', `participants ${result.participants.map((p) => `#${p.participantId}`).join(', ')}`]]);
      assert.deepEqual(await othersRows(s, annIds), before);
      await rejects(() => s.admin.getParticipant(a, ANN.email), 404, 'participant_not_found');
      await rejects(() => s.admin.getParticipant(b, ANN.email), 404, 'participant_not_found');

      // Her rows stay for the graph and the ledger: counters, referrer and referees, nothing that names her.
      // Their referral counts as the interface reads them: the column plus deltas not yet folded.
      const rows = await s.ctx.store.db.selectFrom('participants').select(countedRow('participants')).where('id', 'in', annIds).orderBy('id').execute();
      const [row] = rows;
      assert.equal(row!.referred_by_id, zed.referralCode ? (await s.ctx.store.findParticipantByCode(a, zed.referralCode))!.id : null);
      assert.deepEqual([row!.first_name, row!.last_name, row!.signup_ip, row!.signup_net], [null, null, null, null]);
      assert.deepEqual([row!.referral_reward, row!.referee_reward, row!.total_referrals, row!.amount_paid_cents], [10, 5, 1, 3000]);
      assert.match(row!.email, /^deleted-participant-\d+@erased\.invalid$/);
      assert.match(row!.code, /^ERASED-/);
      assert.equal(new Set(rows.map((r) => r.email)).size, 2, 'the stand-in address is unique per row');
      assert.equal((await s.admin.getReferrals(a, 'zed@example.com')).length, zedReferrals);
      // Rows that were only hers are gone.
      for (const table of ['participant_tokens', 'impressions'] as const) {
        assert.deepEqual(await s.ctx.store.db.selectFrom(table).selectAll().where('participant_id', 'in', annIds).execute(), [], table);
      }
      // Her old code is no share link any more, her token proves nothing, and she is sent no more email.
      assert.equal(await s.browser.validateCode(a, (await s.ctx.store.db.selectFrom('participants').select('referred_by_code').where('email', '=', 'ben@example.com').executeTakeFirstOrThrow()).referred_by_code!), false);
      await rejects(() => s.browser.getMyReferrals(a, { token }), 401, 'unauthorized');
      assert.equal((await s.ctx.store.db.selectFrom('email_unsubscribes').select('participant_id').where('participant_id', 'in', annIds).execute()).length, 2);

      // Zed's referrals in the widget, the leaderboard and Zed's "a friend joined" email call her Deleted participant.
      const { secret } = await s.admin.getSigningSecret(a);
      const zedsOwn = await s.browser.getMyReferrals(a, { emailSignature: createHmac('sha256', secret).update('zed@example.com').digest('hex') }, 'zed@example.com');
      assert.deepEqual(zedsOwn.referrals.map((r) => r.name), [ERASED_NAME]);
      assert.deepEqual((await s.browser.getLeaderboard(a)).map((e) => e.name).sort(), [ERASED_NAME, 'Zed']);
      const friend = await s.ctx.store.db.selectFrom('email_outbox').select('data').where('change_key', '=', `friend:${annIds[0]}`).executeTakeFirstOrThrow();
      assert.equal((JSON.parse(friend.data) as { friend: string }).friend, ERASED_NAME);

      // participant_erased: one per erased participant, with nothing personal in it.
      const events = await s.ctx.store.db.selectFrom('webhook_events').select('payload').where('event_type', '=', 'participant_erased').execute();
      const bodies = events.map((e) => JSON.parse(e.payload) as ParticipantErasedEvent);
      assert.deepEqual(bodies.map((e) => e.data.participantId).sort(), [...annIds].sort());
      for (const e of bodies) assert.deepEqual(Object.keys(e.data).sort(), ['campaignId', 'erasedAt', 'participantId']);
      const deliveries = await s.admin.listWebhookDeliveries({ eventType: 'participant_erased' });
      assert.equal(deliveries.length, 2);
      assert.equal(deliveries[0]!.participantEmail, undefined);

      // Erasing again is a no-op that says so.
      const again = await s.admin.erasePerson(ANN.email);
      assert.deepEqual(again.participants, []);
      assert.deepEqual(await findAnywhere(s, NEEDLES), []);
    });

    it('the database file and its WAL keep no copy of the address after the erasure (SQLite); an export after it records it masked', async () => {
      const s = service();
      await world(s);
      await s.admin.exportPerson(ANN.email);
      const copies = () => {
        if (!s.database.url.startsWith('sqlite:')) return undefined;
        const path = s.database.url.slice('sqlite:'.length);
        const count = (file: string) => {
          if (!existsSync(file)) return 0;
          const bytes = readFileSync(file);
          let n = 0;
          for (let at = bytes.indexOf(ANN.email); at !== -1; at = bytes.indexOf(ANN.email, at + 1)) n++;
          return n;
        };
        return { file: count(path), wal: count(`${path}-wal`) };
      };
      const before = copies();
      if (before) assert.ok(before.file + before.wal > 0, 'the address is in the files before');
      await s.admin.erasePerson(ANN.email);
      const exported = await s.admin.exportPerson(ANN.email);
      assert.deepEqual(exported.participants, []);
      const [entry] = await s.ctx.store.db.selectFrom('audit_log').select(['action', 'target']).orderBy('id', 'desc').limit(1).execute();
      assert.deepEqual(entry, { action: 'exportPerson', target: maskEmail(ANN.email) });
      if (before) assert.deepEqual(copies(), { file: 0, wal: 0 });
    });

    it('the same address signing up again within the block earns nothing on either side; past ERASURE_BLOCK_DAYS it does', async () => {
      const s = service();
      const { a, zed } = await world(s);
      await s.admin.erasePerson(ANN.email);
      const zedBefore = await s.admin.getParticipant(a, 'zed@example.com');
      await s.admin.addParticipant({ id: a, email: ANN.email, referredByCode: zed.referralCode! });
      const requalified = await s.admin.qualifyParticipant({ id: a, email: ANN.email, amountPaid: '10.00' });
      assert.equal(requalified.refereeReward, 0);
      assert.equal(requalified.rewardEventCompleted, true);
      const zedAfter = await s.admin.getParticipant(a, 'zed@example.com');
      assert.equal(zedAfter.referralReward, zedBefore.referralReward);
      // Through an approval too (a held referee's referral is credited when approved): still nothing.
      await s.admin.approveParticipant(a, ANN.email);
      assert.equal((await s.admin.getParticipant(a, 'zed@example.com')).referralReward, zedBefore.referralReward);

      // A block of 0 days: a sign-up after the erasure is credited as any other.
      s.ctx.erasureBlockDays = 0;
      await s.admin.addParticipant({ id: a, email: 'cy@example.com', referredByCode: zed.referralCode! });
      await s.admin.erasePerson('cy@example.com');
      await s.admin.addParticipant({ id: a, email: 'cy@example.com', referredByCode: zed.referralCode! });
      assert.equal((await s.admin.qualifyParticipant({ id: a, email: 'cy@example.com' })).refereeReward, 5);
      assert.equal((await s.admin.getParticipant(a, 'zed@example.com')).referralReward, zedBefore.referralReward! + 10);
    });

    it('a refused erasure changes nothing; an unknown address answers 200 with no participants; the stand-in address is nobody\'s', async () => {
      const s = service();
      await world(s);
      const { db, dialect } = s.ctx.store;
      const dump = await dumpDatabase(db, dialect);
      for (const body of [{}, { email: 'not an address' }, { email: ANN.email, extra: 1 }, { email: 'deleted-participant-1@erased.invalid' }]) {
        const res = await fetch(`${s.url}/api/v1/admin/erasePerson`, { method: 'POST', headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(res.status, 400, JSON.stringify(body));
      }
      await rejects(() => s.browser.erasePerson(ANN.email), 401, 'unauthorized');
      assert.equal(await dumpDatabase(db, dialect), dump);
      assert.deepEqual((await s.admin.erasePerson('nobody@example.com')).participants, []);
    });

    it('sign-ups of the address racing its erasure: every call answers, no address is left twice, and a sign-up that survived earns nothing', async () => {
      const s = service();
      const a = await s.campaign();
      const zed = await s.admin.addParticipant({ id: a, email: 'zed@example.com' });
      for (let round = 0; round < 5; round++) {
        const email = `race${round}@example.com`;
        await s.admin.addParticipant({ id: a, email, referredByCode: zed.referralCode! });
        const calls = await Promise.allSettled([
          s.admin.addParticipant({ id: a, email, referredByCode: zed.referralCode! }),
          s.admin.erasePerson(email),
          s.browser.signUp({ id: a, email, referredByCode: zed.referralCode! }),
          s.admin.addParticipant({ id: a, email, referredByCode: zed.referralCode! }),
        ]);
        assert.deepEqual(calls.filter((c) => c.status === 'rejected'), [], `round ${round}`);
        const live = await s.ctx.store.db.selectFrom('participants').select('id').where('email', '=', email).execute();
        assert.ok(live.length <= 1, `round ${round}: one participant per address`);
        const zedBefore = (await s.admin.getParticipant(a, 'zed@example.com')).referralReward;
        if (live.length === 1) {
          assert.equal((await s.admin.qualifyParticipant({ id: a, email })).refereeReward, 0, `round ${round}: signed up again, so blocked`);
          assert.equal((await s.admin.getParticipant(a, 'zed@example.com')).referralReward, zedBefore);
        }
      }
    });

    it('a keyed erasure replays its answer, which holds no address', async () => {
      const s = service();
      const { a } = await world(s);
      const call = () =>
        fetch(`${s.url}/api/v1/admin/erasePerson`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'erase-ann' },
          body: JSON.stringify({ email: ANN.email }),
        });
      const first = await call();
      const text = await first.text();
      assert.equal(first.status, 200);
      assert.ok(!text.includes(ANN.email));
      assert.ok(text.includes(a));
      const second = await call();
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(await second.text(), text);
      assert.deepEqual(await findAnywhere(s, NEEDLES), []);
    });
  },
  { smtpUrl: mailbox.url },
);

it('ERASURE_BLOCK_DAYS: 365 by default, any whole number of days, else a clear error', () => {
  assert.equal(loadConfig({}).erasureBlockDays, 365);
  assert.equal(loadConfig({ ERASURE_BLOCK_DAYS: '30' }).erasureBlockDays, 30);
  assert.equal(loadConfig({ ERASURE_BLOCK_DAYS: '0' }).erasureBlockDays, 0);
  assert.throws(() => loadConfig({ ERASURE_BLOCK_DAYS: 'a year' }), ConfigError);
});
