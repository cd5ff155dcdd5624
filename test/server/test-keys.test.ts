/**
 * What a test key (sk_test_) can and cannot do (docs/security.md): it is an owner of test mode only. It
 * makes and sees test keys only, never reaches the account's members, invitations or settings (403), and
 * a person's export or erasure and the audit log reach only its test campaigns' rows; its test emails go
 * where test campaigns' emails go. A walk of every protected operation of the OpenAPI document with a
 * test key, naming live things, changes no live row. And Idempotency-Keys: test mode's keys are apart
 * from live mode's, so the same key in both modes runs in each, and neither is replayed the other's answer.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { TEST_MODE_KEYS } from '../../src/server/store/idempotency-store.js';
import { rejects } from './helpers/assert.js';
import { dumpDatabase, dumpTables } from './helpers/dump.js';
import { callRoute, listOperations, validFields } from './helpers/operations.js';
import { signIn } from './helpers/owner.js';
import type { TestService } from './helpers/service.js';
import { startMailbox } from './helpers/smtp.js';
import { eachDatabase } from './helpers/suite.js';


const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

// The services send their invitations and test emails here.
const mailbox = await startMailbox();
after(() => mailbox.close());

/** A live world (a campaign with a referral and a payment, a live key, a member, an invitation) and a test key with a test campaign. */
async function world(s: TestService) {
  const live = await s.campaign();
  const ann = await s.admin.addParticipant({ id: live, email: 'ann@example.com' });
  await s.admin.addParticipant({ id: live, email: 'ben@example.com', referredByCode: ann.referralCode! });
  await s.admin.qualifyParticipant({ id: live, email: 'ben@example.com', amountPaid: '20.00' });
  const liveKey = await s.admin.createApiKey('live ops');
  await createOwner(s.ctx, 'member@example.com', 'correct horse battery', DEFAULT_ACCOUNT, 'admin');
  const invitation = await s.admin.inviteMember('invited@example.com', 'viewer');
  const testKey = await s.admin.createApiKey('ci', true);
  const tester = new RefkitClient({ baseUrl: s.url, secretKey: testKey.key });
  const test = (await tester.createCampaign({ campaignName: 'CI', hostURL: 'https://shop.example/ci', referrerRewardValue: 10, refereeRewardValue: 5 })).campaignId!;
  const tina = await tester.addParticipant({ id: test, email: 'ann@example.com' });
  await tester.addParticipant({ id: test, email: 'ben@example.com', referredByCode: tina.referralCode! });
  return { live, test, liveKey, testKey, tester, invitation };
}

/** The ids of test mode's campaigns, keys and webhook endpoints. */
async function testModeIds(s: TestService): Promise<string[]> {
  const db = s.ctx.store.db;
  const ids = await Promise.all([
    db.selectFrom('campaigns').select('id').where('test', '=', 1).execute(),
    db.selectFrom('api_keys').select('id').where('test', '=', 1).execute(),
    db.selectFrom('webhook_endpoints').select('id').where('test', '=', 1).execute(),
  ]);
  return ids.flat().map((r) => r.id);
}

function difference(a: Map<string, string[]>, b: Map<string, string[]>): { removed: string[]; added: string[] } {
  const removed: string[] = [];
  const added: string[] = [];
  for (const [table, rows] of a) for (const r of rows) if (!b.get(table)?.includes(r)) removed.push(`${table}: ${r}`);
  for (const [table, rows] of b) for (const r of rows) if (!a.get(table)?.includes(r)) added.push(`${table}: ${r}`);
  return { removed, added };
}

eachDatabase('test keys', (service, kind) => {
  it('createApiKey: no `test` makes a test key, `test: false` is 400 on test and makes nothing; listApiKeys and revokeApiKey reach test keys only', async () => {
    const s = service();
    const w = await world(s);
    const made = await w.tester.createApiKey('another');
    assert.equal(made.test, true);
    assert.match(made.key, /^sk_test_/);
    assert.equal((await w.tester.createApiKey('asked', true)).test, true);
    const keys = () => s.ctx.store.db.selectFrom('api_keys').select(['id', 'test', 'revoked_on']).orderBy('id').execute();
    const before = await keys();
    await rejects(() => w.tester.createApiKey('live please', false), 400, 'invalid_request', 'test');
    assert.deepEqual(await keys(), before, 'the refused call made no key');
    const listed = await w.tester.listApiKeys();
    assert.ok(listed.length >= 3 && listed.every((k) => k.test), JSON.stringify(listed));
    await rejects(() => w.tester.revokeApiKey(w.liveKey.id), 404, 'api_key_not_found', 'id');
    assert.deepEqual(await keys(), before, 'the live key stands');
    // A live key still makes either kind.
    assert.equal((await s.admin.createApiKey('live default')).test, false);
    assert.equal((await s.admin.createApiKey('test asked', true)).test, true);
  });

  it('members, invitations and the account settings are 403 forbidden to a test key, and nothing changes', async () => {
    const s = service();
    const w = await world(s);
    const calls: [string, () => Promise<unknown>][] = [
      ['listMembers', () => w.tester.listMembers()],
      ['listInvitations', () => w.tester.listInvitations()],
      ['inviteMember as owner', () => w.tester.inviteMember('mallory@example.com', 'owner')],
      ['changeMemberRole', () => w.tester.changeMemberRole('member@example.com', 'viewer')],
      ['removeMember', () => w.tester.removeMember('member@example.com')],
      ['revokeInvitation', () => w.tester.revokeInvitation(w.invitation.id)],
      ['getAccountSettings', () => w.tester.getAccountSettings()],
      ['updateAccountSettings', () => w.tester.updateAccountSettings({ retention: { ipDays: 0 } })],
    ];
    const before = await dumpDatabase(s.ctx.store.db, kind.dialect);
    for (const [what, fn] of calls) {
      const err = await rejects(fn, 403, 'forbidden');
      assert.match(err.message, /test key/, what);
    }
    assert.equal(await dumpDatabase(s.ctx.store.db, kind.dialect), before);
    // The same calls with a live key go through.
    assert.equal((await s.admin.listMembers()).length, 1);
    assert.equal(typeof (await s.admin.getAccountSettings()).retention.ipDays, 'number');
  });

  it("exportPerson and erasePerson with a test key reach the test campaigns' rows only; with a live key, both modes'", async () => {
    const s = service();
    const w = await world(s);
    const exported = await w.tester.exportPerson('ann@example.com');
    assert.deepEqual(exported.participants.map((p) => p.campaignId), [w.test]);
    const both = await s.admin.exportPerson('ann@example.com');
    assert.deepEqual(both.participants.map((p) => p.campaignId).sort(), [w.live, w.test].sort());

    const erased = await w.tester.erasePerson('ben@example.com');
    assert.deepEqual(erased.participants.map((p) => p.campaignId), [w.test]);
    const liveBen = await s.ctx.store.findParticipantByEmail(w.live, 'ben@example.com');
    assert.ok(liveBen, "the live participant keeps their address");
    assert.equal(liveBen.amount_paid_cents, 2000);
    assert.equal(await s.ctx.store.findParticipantByEmail(w.test, 'ben@example.com'), undefined, 'the test one is erased');
    // No block of the address's referral credit: that holds for live sign-ups too, beyond test mode.
    assert.equal((await s.ctx.store.db.selectFrom('erased_addresses').selectAll().execute()).length, 0);
    // A live key erases them everywhere, and records the block.
    const everywhere = await s.admin.erasePerson('ann@example.com');
    assert.deepEqual(everywhere.participants.map((p) => p.campaignId).sort(), [w.live, w.test].sort());
    assert.equal((await s.ctx.store.db.selectFrom('erased_addresses').selectAll().execute()).length, 1);
  });

  it("the audit log with a test key: the test campaigns' entries only, listed and exported", async () => {
    const s = service();
    const w = await world(s);
    await s.admin.updateCampaign({ id: w.live, shareHeader: 'Live change' });
    await w.tester.updateCampaign({ id: w.test, shareHeader: 'Test change' });
    const all = await s.admin.listAuditLogPage({}, { pageSize: 100 });
    assert.ok(all.items.some((e) => e.campaignId === w.live));
    const seen = await w.tester.listAuditLogPage({}, { pageSize: 100 });
    assert.ok(seen.items.length > 0);
    assert.deepEqual([...new Set(seen.items.map((e) => e.campaignId))], [w.test]);
    const csv = await callRoute(s.url, 'GET', '/api/v1/admin/exportAuditLog', {}, bearer(w.testKey.key));
    assert.equal(csv.status, 200, csv.text);
    assert.ok(csv.text.includes(w.test));
    assert.ok(!csv.text.includes(w.live), 'no live campaign in the export');
  });

  it('every protected operation with a test key naming live things: account-wide ones 403, and no call removes or changes a live row', async () => {
    const s = service();
    const w = await world(s);
    const rules = s.app.routeRules;
    const ops = await listOperations(s.url);
    let walked = 0;
    let forbidden = 0;
    for (const op of ops) {
      const rule = rules.get(`${op.method} ${op.path}`);
      if (!rule?.permission || op.path.endsWith('/importParticipants') || op.path.endsWith('/importRewardCodes')) continue;
      const fields: Record<string, unknown> = { ...validFields(op) };
      if ('id' in op.fields) fields.id = w.live;
      if ('campaignId' in op.fields) fields.campaignId = w.live;
      if ('email' in op.fields) fields.email = 'ben@example.com';
      if (op.path.endsWith('/revokeApiKey')) fields.id = w.liveKey.id;
      if (op.path.endsWith('/revokeInvitation')) fields.id = w.invitation.id;
      if (op.path.endsWith('/createApiKey')) fields.test = false;
      const before = await dumpTables(s.ctx.store.db, kind.dialect);
      const res = await callRoute(s.url, op.method, op.path, fields, bearer(w.testKey.key));
      const what = `${op.method} ${op.path} -> ${res.status} ${res.text.slice(0, 200)}`;
      assert.ok(res.status < 500, what);
      if (rule.accountWide) {
        assert.equal(res.status, 403, what);
        assert.equal(res.body.error?.code, 'forbidden', what);
        forbidden++;
      }
      const { removed, added } = difference(before, await dumpTables(s.ctx.store.db, kind.dialect));
      // What it may add or change is test mode's: rows of a test campaign, key or endpoint (naming its id),
      // test mode's Idempotency-Keys (behind their prefix); and it adds its own audit entries. Bookkeeping
      // is no one's data: the cache counter tells every process to reread (a test campaign's change moves
      // it too), and SQLite's sequence table counts the ids it handed out.
      const testIds = await testModeIds(s);
      const testMode = (row: string) => testIds.some((id) => row.includes(id)) || (row.startsWith('idempotency_keys:') && row.includes(TEST_MODE_KEYS));
      const bookkeeping = (row: string) => /^(cache_epoch|sqlite_sequence):/.test(row);
      assert.deepEqual(removed.filter((row) => !testMode(row) && !bookkeeping(row)), [], `${what}: live rows removed or changed`);
      assert.deepEqual(added.filter((row) => !testMode(row) && !bookkeeping(row) && !row.startsWith('audit_log:')), [], `${what}: live rows added`);
      walked++;
    }
    assert.ok(walked >= 50, `operations walked: ${walked}`);
    assert.equal(forbidden, ops.filter((op) => rules.get(`${op.method} ${op.path}`)?.accountWide).length);
    assert.ok(forbidden >= 8, `account-wide operations: ${forbidden}`);
  });

  it('sendTestEmail on a test campaign: to a test domain only, marked as a test', async () => {
    const s = service();
    const w = await world(s);
    await rejects(() => w.tester.sendTestEmail({ id: w.test, kind: 'welcome', locale: 'en', to: 'someone@gmail.com' }), 400, 'invalid_request', 'to');
    await w.tester.sendTestEmail({ id: w.test, kind: 'welcome', locale: 'en', to: 'qa@example.com' });
    const [sent] = await mailbox.to('qa@example.com');
    assert.match(sent!.subject ?? '', /^\[Test\] /);
    assert.equal(sent!.headers.get('x-refkit-test'), '1');
    assert.equal((await mailbox.to('someone@gmail.com', 0)).length, 0, 'nothing went to the real address');
  });

  it('Idempotency-Key: the same key in test and live mode runs in each; neither is replayed the other\'s answer', async () => {
    const s = service();
    const w = await world(s);
    const pay = (id: string) => ({ id, email: 'ben@example.com', amountPaid: '7.00' });
    const first = await callRoute(s.url, 'POST', '/api/v1/qualifyParticipant', pay(w.test), bearer(w.testKey.key), 'order-5555');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.replayed, null);
    const live = await callRoute(s.url, 'POST', '/api/v1/qualifyParticipant', pay(w.live), bearer(s.secretKey), 'order-5555');
    assert.equal(live.status, 200, live.text);
    assert.equal(live.replayed, null, 'the live call ran');
    // Each mode's retry replays its own answer.
    assert.equal((await callRoute(s.url, 'POST', '/api/v1/qualifyParticipant', pay(w.test), bearer(w.testKey.key), 'order-5555')).replayed, 'true');
    assert.equal((await callRoute(s.url, 'POST', '/api/v1/qualifyParticipant', pay(w.live), bearer(s.secretKey), 'order-5555')).replayed, 'true');
    assert.equal((await s.ctx.store.findParticipantByEmail(w.live, 'ben@example.com'))!.amount_paid_cents, 2700);
    assert.equal((await s.ctx.store.findParticipantByEmail(w.test, 'ben@example.com'))!.amount_paid_cents, 700);
    // A dashboard session takes the campaign's mode: its call about the test campaign is test mode's key.
    await createOwner(s.ctx, 'boss@example.com', 'correct horse battery', DEFAULT_ACCOUNT, 'owner');
    const boss = await signIn(s, { email: 'boss@example.com', password: 'correct horse battery' });
    const session = { cookie: boss.cookie, 'x-csrf-token': boss.csrfToken };
    const refund = { id: w.test, email: 'ben@example.com', amount: '1.00' };
    const bySession = await callRoute(s.url, 'POST', '/api/v1/admin/refundPayment', refund, session, 'refund-1');
    assert.equal(bySession.status, 200, bySession.text);
    const byTestKey = await callRoute(s.url, 'POST', '/api/v1/admin/refundPayment', refund, bearer(w.testKey.key), 'refund-1');
    assert.equal(byTestKey.replayed, 'true', 'one mode, one key: the test key gets the same call replayed');
    const liveRefund = await callRoute(s.url, 'POST', '/api/v1/admin/refundPayment', { ...refund, id: w.live }, session, 'refund-1');
    assert.equal(liveRefund.status, 200, liveRefund.text);
    assert.equal(liveRefund.replayed, null, 'the live campaign is live mode: another key');
  });
}, { smtpUrl: mailbox.url });
