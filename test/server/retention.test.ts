/**
 * Retention (docs/privacy.md#retention), on SQLite and PostgreSQL: the account's settings and their
 * bounds, an account that keeps no IPs storing none, and the pruner: what it clears and deletes, what it
 * never touches (pending webhooks and emails, reminders, anything recent), its lease, and requests
 * answered while it works through many rows in batches.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { newPruneReport, pruneExpired, type PruneReport } from '../../src/server/privacy/domain/retention.js';
import { rejects } from './helpers/assert.js';
import { cli } from './helpers/cli.js';
import { rowCount, seedOldRows, type OldRows } from './helpers/retention-seed.js';
import { databaseKinds } from './helpers/databases.js';
import { linkIn, startMailbox, type Mailbox } from './helpers/smtp.js';
import { eachDatabase } from './helpers/suite.js';
import { startService, type TestService } from './helpers/service.js';

const DEFAULTS = { ipDays: 90, webhookDays: 30, emailDays: 90 };
/** Rows of the many-rows test: RETENTION_ROWS (default 100,000; `npm run bench -- --retention` measures 1,000,000). */
const MANY = Number(process.env.RETENTION_ROWS ?? 100_000);

async function post(s: TestService, path: string, body: unknown): Promise<{ status: number; json: { error: { code: string; message: string; field?: string } } }> {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error: { code: string; message: string; field?: string } } };
}

async function one<T>(s: TestService, query: ReturnType<typeof sql<T>>): Promise<T> {
  return (await query.execute(s.ctx.store.db)).rows[0]!;
}

const count = async (s: TestService, from: string, where = 'true') =>
  Number((await one<{ n: number | string }>(s, sql`select count(*) as n from ${sql.raw(from)} where ${sql.raw(where)}`)).n);

/** An endpoint row to hang seeded deliveries on (the dispatcher does not run in these tests). */
async function endpoint(s: TestService): Promise<string> {
  return (await s.admin.createWebhookEndpoint({ url: 'https://hooks.example/refkit', eventTypes: ['referrer_added'] })).id;
}

eachDatabase('retention settings', (service) => {
  it('answers the defaults, sets only the periods given, and refuses out-of-bounds periods with 400, changing nothing', async () => {
    const s = service();
    const { retention, defaults } = await s.admin.getAccountSettings();
    assert.deepEqual({ retention, defaults }, { retention: DEFAULTS, defaults: DEFAULTS });
    assert.deepEqual((await s.admin.updateAccountSettings({ retention: { ipDays: 0 } })).retention, { ...DEFAULTS, ipDays: 0 });
    assert.deepEqual((await s.admin.updateAccountSettings({ retention: { emailDays: 365, webhookDays: 7 } })).retention, { ipDays: 0, webhookDays: 7, emailDays: 365 });
    assert.deepEqual((await s.admin.updateAccountSettings({ retention: {} })).retention, { ipDays: 0, webhookDays: 7, emailDays: 365 });
    const bad: [unknown, string][] = [
      [{ retention: { ipDays: -1 } }, 'ipDays'],
      [{ retention: { ipDays: 3651 } }, 'ipDays'],
      [{ retention: { webhookDays: 0 } }, 'webhookDays'],
      [{ retention: { emailDays: 0 } }, 'emailDays'],
      [{ retention: { emailDays: 1.5 } }, 'emailDays'],
      [{ retention: { emailDays: 'thirty' } }, 'emailDays'],
      ['{"retention":{"ipDays":1e400}}', 'ipDays'],
      [{ retention: { webhookDays: null } }, 'webhookDays'],
      [{ retention: { fingerprintDays: 1 } }, 'fingerprintDays'],
      [{}, 'retention'],
      [{ retention: null }, 'retention'],
    ];
    for (const [body, field] of bad) {
      const { status, json } = await post(s, '/api/v1/admin/updateAccountSettings', body);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(json.error.code, 'invalid_request');
      assert.match(`${json.error.field} ${json.error.message}`, new RegExp(field), JSON.stringify(body));
    }
    assert.deepEqual((await s.admin.getAccountSettings()).retention, { ipDays: 0, webhookDays: 7, emailDays: 365 });
    await rejects(() => s.browser.getAccountSettings(), 401, 'unauthorized');
  });

  it('refkit settings retention shows and changes the periods (a bad one exits 1, changing nothing); settings prune runs the pruner', async () => {
    const s = service();
    const env = { DATABASE_URL: s.database.url };
    const shown = await cli(['settings', 'retention', '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout).retention, DEFAULTS);
    const changed = await cli(['settings', 'retention', '--ip-days', '0', '--email-days', '30', '--json'], env);
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual(JSON.parse(changed.stdout).retention, { ipDays: 0, webhookDays: 30, emailDays: 30 });
    const human = await cli(['settings', 'retention'], env);
    assert.match(human.stdout, /ipDays.*0/);
    for (const args of [['--webhook-days', '0'], ['--ip-days', '3651'], ['--email-days', 'many']]) {
      const bad = await cli(['settings', 'retention', ...args], env);
      assert.equal(bad.code, 1, args.join(' '));
      assert.match(bad.stderr, /Days|days/);
    }
    assert.deepEqual((await s.admin.getAccountSettings()).retention, { ipDays: 0, webhookDays: 30, emailDays: 30 });
    const id = await s.campaign();
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, await endpoint(s), s.ctx.now() - DAY_MS, { participants: 3, webhookEvents: 0, emails: 0 }, 'c');
    const pruned = await cli(['settings', 'prune', '--json'], env);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.equal(JSON.parse(pruned.stdout).participantIps, 3);
    assert.equal(await count(s, 'participants', 'signup_ip is not null'), 0);
  });

  it('keeps the sign-up IP by default; with ipDays 0 stores none, and the network signals find nothing', async () => {
    const s = service();
    const id = await s.campaign();
    const ipOf = (email: string) => one<{ signup_ip: string | null; signup_net: string | null }>(s, sql`select signup_ip, signup_net from participants where email = ${email}`);
    // By default: the address is stored, and a referee from the referrer's own network is held.
    const ann = await s.browser.addParticipant({ id, email: 'ann@example.com' });
    await s.browser.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    assert.deepEqual(await ipOf('ann@example.com'), { signup_ip: '127.0.0.1', signup_net: '127.0.0.1' });
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).fraudScore, 'high');

    await s.admin.updateAccountSettings({ retention: { ipDays: 0 } });
    const cy = await s.browser.addParticipant({ id, email: 'cy@example.com' });
    await s.browser.addParticipant({ id, email: 'dee@example.com', referredByCode: cy.referralCode! });
    assert.deepEqual(await ipOf('cy@example.com'), { signup_ip: null, signup_net: null });
    assert.deepEqual(await ipOf('dee@example.com'), { signup_ip: null, signup_net: null });
    assert.equal((await s.admin.getParticipant(id, 'dee@example.com')).fraudScore, 'low');
    // A referee of Ann (whose network was stored before) is not compared with it either: this sign-up has none.
    await s.browser.addParticipant({ id, email: 'eve@example.com', referredByCode: ann.referralCode! });
    assert.equal((await s.admin.getParticipant(id, 'eve@example.com')).fraudScore, 'low');
    assert.deepEqual(await ipOf('eve@example.com'), { signup_ip: null, signup_net: null });
  });
});

for (const kind of await databaseKinds()) {
  describe(`retention of double opt-in sign-ups [${kind.name}]`, { skip: kind.skip }, () => {
    let mailbox: Mailbox;
    let s: TestService;
    before(async () => {
      mailbox = await startMailbox();
    });
    after(async () => {
      await mailbox.close();
    });
    beforeEach(async () => {
      s = await startService(kind, { smtpUrl: mailbox.url });
    });
    afterEach(async () => {
      await s.close();
    });

    it('with ipDays 0 a pending sign-up stores no IP, nor does the participant its confirmation makes', async () => {
      const id = await s.campaign({ requireEmailConfirmation: true });
      const pendingIp = async (email: string) =>
        (await one<{ signup_ip: string | null }>(s, sql`select signup_ip from pending_signups where email = ${email}`)).signup_ip;
      // By default the pending sign-up keeps the address it was made from.
      await s.browser.addParticipant({ id, email: `kept-${kind.name}@example.com` });
      assert.equal(await pendingIp(`kept-${kind.name}@example.com`), '127.0.0.1');
      await s.admin.updateAccountSettings({ retention: { ipDays: 0 } });
      const email = `pat-${kind.name}@example.com`;
      await s.browser.addParticipant({ id, email });
      assert.equal(await pendingIp(email), null);
      const [mail] = await mailbox.to(email);
      const link = linkIn(mail!);
      await s.browser.verifyEmail(link.campaignId, link.token);
      assert.deepEqual(
        await one(s, sql`select signup_ip, signup_net from participants where email = ${email}`),
        { signup_ip: null, signup_net: null },
      );
    });
  });
}

// Through PgBouncer too: the pruner's lease is a row, held across its transactions on pooled sessions.
eachDatabase('retention pruner', (service) => {
  it('clears old IPs and deletes old delivered webhooks and logged emails; keeps pending, failed, reminders and recent rows', async () => {
    const s = service();
    const id = await s.campaign();
    const hook = await endpoint(s);
    const db = s.ctx.store.db;
    const now = s.ctx.now();
    const old = now - 400 * DAY_MS;
    const recent = now - DAY_MS;
    const rows: OldRows = { participants: 30, webhookEvents: 25, emails: 20 };
    await seedOldRows(db, s.ctx.store.dialect, id, hook, old, rows, 'o');
    await seedOldRows(db, s.ctx.store.dialect, id, hook, recent, rows, 'r');
    // Old rows that must stay: a webhook still pending, one failed (undelivered), one delivered again
    // lately; an email still pending, and a reminder (its row is what keeps it once per participant).
    await sql`update webhook_deliveries set status = 'pending', next_attempt_on = ${now} where id = (select min(id) from webhook_deliveries where created_on = ${old})`.execute(db);
    await sql`update webhook_deliveries set status = 'failed' where id = (select max(id) from webhook_deliveries where created_on = ${old})`.execute(db);
    const redelivered = (await one<{ id: string }>(s, sql`select min(id) as id from webhook_deliveries where created_on = ${old} and status = 'delivered'`)).id;
    await sql`update webhook_deliveries set updated_on = ${recent} where id = ${redelivered}`.execute(db);
    await sql`update email_outbox set status = 'pending', sent_on = null where id = (select min(id) from email_outbox where created_on = ${old})`.execute(db);
    await sql`update email_outbox set kind = 'reminder', change_key = 'reminder' where id = (select max(id) from email_outbox where created_on = ${old})`.execute(db);
    // Unconfirmed sign-ups and sign-in throttle counts keep IPs too.
    await sql`insert into pending_signups (campaign_id, email, signup_ip, created_on, updated_on) values (${id}, 'old@example.com', '198.51.100.1', ${old}, ${old}), (${id}, 'new@example.com', '198.51.100.2', ${recent}, ${recent})`.execute(db);
    await sql`insert into signin_failures (key, failures, window_start, next_on) values ('ip:198.51.100.1', 3, ${old}, ${old}), ('ip:198.51.100.2', 3, ${now}, ${now})`.execute(db);

    const report = await pruneExpired(s.ctx, { batchSize: 7 });
    assert.equal(report.ran, true);
    assert.equal(report.participantIps, 30);
    assert.equal(report.pendingSignupIps, 1);
    assert.equal(report.signinFailures, 1);
    assert.equal(report.webhookEvents, 22);
    assert.equal(report.emails, 18);
    assert.ok(report.batches >= 30 / 7, `${report.batches} batches`);

    assert.equal(await count(s, 'participants', `created_on = ${old} and (signup_ip is not null or signup_net is not null)`), 0);
    assert.equal(await count(s, 'participants', `created_on = ${recent} and signup_ip = '203.0.113.7' and signup_net = '203.0.113.7'`), 30);
    assert.equal(await count(s, 'pending_signups', 'signup_ip is null'), 1);
    assert.equal((await one<{ email: string }>(s, sql`select email from pending_signups where signup_ip is not null`)).email, 'new@example.com');
    assert.deepEqual(
      (await sql<{ key: string }>`select key from signin_failures`.execute(db)).rows.map((r) => r.key),
      ['ip:198.51.100.2'],
    );
    // Old webhooks: the three kept events, with their deliveries and attempts; every recent one.
    assert.equal(await count(s, 'webhook_events', `created_on = ${old}`), 3);
    assert.equal(await count(s, 'webhook_deliveries', `created_on = ${old}`), 3);
    assert.equal(await count(s, 'webhook_attempts', `attempted_on = ${old}`), 3);
    assert.equal(await count(s, 'webhook_deliveries', `created_on = ${old} and status = 'delivered'`), 1);
    for (const table of ['webhook_events', 'webhook_deliveries']) assert.equal(await count(s, table, `created_on = ${recent}`), 25);
    assert.equal(await count(s, 'webhook_attempts', `attempted_on = ${recent}`), 25);
    // Old emails: the pending one and the reminder; every recent one.
    assert.equal(await count(s, 'email_outbox', `created_on = ${old}`), 2);
    assert.equal(await count(s, 'email_outbox', `created_on = ${old} and (status = 'pending' or kind = 'reminder')`), 2);
    assert.equal(await count(s, 'email_outbox', `created_on = ${recent}`), 20);

    // A second run finds nothing more to do.
    const again = await pruneExpired(s.ctx, { batchSize: 7 });
    assert.deepEqual({ ...again, batches: 0 }, { ...newPruneReport(), ran: true, done: true });
  });

  it("follows each account's periods: shorter ones prune recent rows, and ipDays 0 clears every stored IP", async () => {
    const s = service();
    const id = await s.campaign();
    const hook = await endpoint(s);
    const now = s.ctx.now();
    const rows: OldRows = { participants: 10, webhookEvents: 10, emails: 10 };
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, hook, now - 5 * DAY_MS, rows, 'a');
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, hook, now - 1000, rows, 'b');
    // Within the defaults: nothing goes.
    const first = await pruneExpired(s.ctx);
    assert.equal(first.participantIps + first.webhookEvents + first.emails, 0);
    await s.admin.updateAccountSettings({ retention: { webhookDays: 3, emailDays: 4 } });
    const second = await pruneExpired(s.ctx);
    assert.deepEqual([second.participantIps, second.webhookEvents, second.emails], [0, 10, 10]);
    await s.admin.updateAccountSettings({ retention: { ipDays: 0 } });
    const third = await pruneExpired(s.ctx);
    assert.equal(third.participantIps, 20);
    assert.equal(await count(s, 'participants', 'signup_ip is not null or signup_net is not null'), 0);
    assert.equal(await count(s, 'webhook_events'), 10);
    assert.equal(await count(s, 'email_outbox'), 10);
  });

  it('runs in one process at a time: a run that finds the lease held does nothing, and one whose lease is taken over stops', async () => {
    const s = service();
    const id = await s.campaign();
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, await endpoint(s), s.ctx.now() - 400 * DAY_MS, { participants: 50, webhookEvents: 0, emails: 0 }, 'o');
    const now = s.ctx.now();
    assert.equal(await s.ctx.store.retention.claimLease('retention', 'someone-else', now, now + 60_000), true);
    const blocked = await pruneExpired(s.ctx, { batchSize: 10 });
    assert.equal(blocked.ran, false);
    assert.equal(blocked.done, true);
    assert.equal(await count(s, 'participants', 'signup_ip is not null'), 50);
    // The holder's lease ran out (a process that died): the next run takes it.
    await sql`update job_leases set until = ${now - 1} where name = 'retention'`.execute(s.ctx.store.db);
    // A run that loses its lease mid-way (another process took it after it expired) stops at its next batch:
    // the thief takes it just before the run's third claim (its first and two batches' renewals).
    const retention = s.ctx.store.retention;
    const claim = retention.claimLease.bind(retention);
    let claims = 0;
    let stolen = false;
    retention.claimLease = async (...args) => {
      if (++claims === 4) {
        await sql`update job_leases set holder = 'thief', until = ${now + 60_000} where name = 'retention'`.execute(s.ctx.store.db);
        stolen = true;
      }
      return claim(...args);
    };
    const report = newPruneReport();
    try {
      await pruneExpired(s.ctx, { batchSize: 10, holder: 'me' }, report);
    } finally {
      retention.claimLease = claim;
    }
    assert.ok(stolen);
    assert.ok(report.participantIps >= 20 && report.participantIps < 50, `${report.participantIps} cleared`);
    // The thief's lease stays the thief's.
    assert.equal((await one<{ holder: string }>(s, sql`select holder from job_leases where name = 'retention'`)).holder, 'thief');
  });

  it(`prunes ${MANY.toLocaleString('en')} old rows in batches while requests are answered, and keeps the recent ones`, { timeout: 600_000 }, async () => {
    const s = service();
    const id = await s.campaign();
    const hook = await endpoint(s);
    const now = s.ctx.now();
    const rows: OldRows = { participants: Math.round(MANY * 0.4), webhookEvents: Math.round(MANY * 0.15), emails: 0 };
    rows.emails = MANY - rowCount(rows);
    const t0 = performance.now();
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, hook, now - 400 * DAY_MS, rows, 'o');
    const recent: OldRows = { participants: 100, webhookEvents: 100, emails: 100 };
    await seedOldRows(s.ctx.store.db, s.ctx.store.dialect, id, hook, now - DAY_MS, recent, 'r');
    const seeded = performance.now();

    // Sign-ups go on while the pruner works: each records how far the pruner was when it was answered.
    const report: PruneReport = newPruneReport();
    const running = pruneExpired(s.ctx, {}, report);
    const answeredAt: { batches: number; done: boolean }[] = [];
    for (let i = 0; !report.done; i++) {
      const p = await s.admin.addParticipant({ id, email: `during${i}@example.com` });
      assert.ok(p.referralCode);
      answeredAt.push({ batches: report.batches, done: report.done });
    }
    await running;
    const pruned = performance.now();
    const midway = answeredAt.filter((a) => !a.done && a.batches > 0 && a.batches < report.batches);
    assert.ok(midway.length > 0, `a sign-up answered while pruning was under way (${answeredAt.length} answered, ${report.batches} batches)`);

    assert.equal(report.participantIps, rows.participants);
    assert.equal(report.webhookEvents, rows.webhookEvents);
    assert.equal(report.emails, rows.emails);
    assert.equal(await count(s, 'participants', 'signup_ip is not null'), recent.participants);
    // What is left is the recent rows (the sign-ups meanwhile made events of their own, now).
    for (const table of ['webhook_events', 'webhook_deliveries', 'email_outbox']) assert.equal(await count(s, table, `created_on < ${now}`), 100, table);
    assert.equal(await count(s, 'webhook_attempts'), 100);
    process.stdout.write(
      `# [${s.ctx.store.dialect}] ${MANY} old rows: seeded in ${((seeded - t0) / 1000).toFixed(1)} s, pruned in ${((pruned - seeded) / 1000).toFixed(1)} s, ` +
        `${report.batches} batches, ${answeredAt.length} sign-ups answered meanwhile (${midway.length} mid-run)\n`,
    );
  });
}, { pgbouncer: true });
