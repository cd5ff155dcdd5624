/**
 * Team roles and the audit log on both databases. Walks every route the app serves (its own route rules,
 * so routes added later are covered by their declarations): a viewer's every change route answers 403
 * forbidden and changes no row; an admin's every member and key route answers 403; every change route
 * that succeeds writes exactly one audit entry (and a refused one none). Then invitations (expiry, reuse,
 * revoke, the last owner), the audit log's filters, paging and CSV, and that nothing can edit it.
 */
import assert from 'node:assert/strict';
import { RefkitClient } from '../../src/api/client.js';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createCampaign } from '../../src/server/campaigns/domain/campaigns.js';
import { holdForReview } from '../../src/server/fraud/domain/fraud-holds.js';
import { CLI_ACTOR, DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import type { Role } from '../../src/server/kernel/roles.js';
import { INVITATION_TTL_MS } from '../../src/server/accounts/domain/team.js';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { cli } from './helpers/cli.js';
import { databaseKinds } from './helpers/databases.js';
import { dumpDatabase } from './helpers/dump.js';
import { callRoute, listOperations, type Operation, validFields } from './helpers/operations.js';
import { signIn, type SignedIn } from './helpers/owner.js';
import { startService, type TestService } from './helpers/service.js';
import type { ParsedMail } from 'mailparser';
import { startMailbox, type Mailbox } from './helpers/smtp.js';

/** The join link of an invitation email, and its token. */
function invitationIn(mail: ParsedMail): { link: string; token: string } {
  const m = /https?:\/\/\S+#\/join\?token=(\S+)/.exec(mail.text ?? '');
  if (!m) throw new Error(`no link in: ${mail.text}`);
  return { link: m[0], token: decodeURIComponent(m[1]!) };
}

const PASSWORD = 'correct horse battery';
const kinds = await databaseKinds();

async function member(s: TestService, email: string, role: Role): Promise<SignedIn> {
  await createOwner(s.ctx, email, PASSWORD, DEFAULT_ACCOUNT, role);
  return signIn(s, { email, password: PASSWORD });
}


const sessionAuth = (m: SignedIn) => ({ cookie: m.cookie, 'x-csrf-token': m.csrfToken });
const auditCount = async (s: TestService) => Number((await s.ctx.store.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const newestEntry = (s: TestService) => s.ctx.store.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();

/** The world a walk's calls name: a referral with a payment, a waitlist, an endpoint and its delivery, keys, members, an invitation. */
async function world(s: TestService) {
  const id = await s.campaign();
  const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
  await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
  await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '20.00' });
  const waitlist = await s.campaign({ waitlist: { spotsPerReferral: 1, counts: 'signups' } });
  await s.admin.addParticipant({ id: waitlist, email: 'wait@example.com' });
  const endpoint = await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] });
  const doomed = await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/doomed', eventTypes: ['referrer_added'] });
  await s.admin.addParticipant({ id, email: 'cy@example.com' });
  await s.admin.addParticipant({ id, email: 'erase-me@example.com' });
  // A fraud case for resolveFraudCase: a referee of Ann's held by a rule (the real hold, as a blocklist makes it).
  await s.admin.addParticipant({ id, email: 'held@example.com', referredByCode: ann.referralCode! });
  await holdForReview(s.ctx, (await s.ctx.store.findParticipantByEmail(id, 'held@example.com'))!, { kind: 'blocklist', detail: 'held@example.com is on the blocklist' });
  const [fraudCase] = await s.ctx.store.fraudCases.listCases(id, 'open', 1);
  const [delivery] = await s.admin.listWebhookDeliveries({ endpointId: endpoint.id });
  const decoy = await s.admin.createApiKey('decoy');
  await createOwner(s.ctx, 'gone@example.com', PASSWORD, DEFAULT_ACCOUNT, 'viewer');
  await createOwner(s.ctx, 'demote@example.com', PASSWORD, DEFAULT_ACCOUNT, 'admin');
  // A test campaign, whose clock advanceClock moves (live campaigns' cannot be).
  const testCampaign = (await createCampaign(s.ctx, CLI_ACTOR, { campaignName: 'Clocked', hostURL: 'https://shop.example/clocked', test: true })).id;
  // A campaign paying cash: Dee refers Eve and Fay; Dee and Eve have a payout each waiting for approval, Fay no method yet.
  const cash = await s.campaign({ rewardType: 'credit', rewardCurrency: 'USD' });
  await s.admin.updateCampaign({ id: cash, cashPayouts: { methods: ['paypal'], minimum: 1, schedule: 'manual', approval: true } } as never);
  const dee = await s.admin.addParticipant({ id: cash, email: 'dee@example.com' });
  for (const email of ['eve@example.com', 'fay@example.com']) {
    await s.admin.addParticipant({ id: cash, email, referredByCode: dee.referralCode! });
    await s.admin.qualifyParticipant({ id: cash, email });
  }
  for (const email of ['dee@example.com', 'eve@example.com']) await s.admin.setPayoutMethod({ id: cash, email, method: 'paypal', paypalEmail: email });
  const payouts = (await s.admin.createPayouts(cash)).payouts.map((p) => p.id);
  assert.equal(payouts.length, 2);
  return { id, waitlist, testCampaign, cash, payouts, endpoint: endpoint.id, doomed: doomed.id, delivery: delivery!.id, decoy: decoy.id, fraudCase: Number(fraudCase!.id) };
}

type World = Awaited<ReturnType<typeof world>>;

/** A call of each change route that should succeed for an owner, in this world (one each; the order of the walk is the document's). */
function fieldsFor(op: Operation, w: World, invitation: string): Record<string, unknown> | string {
  const base: Record<string, unknown> = { ...validFields(op) };
  if ('id' in op.fields) base.id = w.id;
  if ('email' in op.fields) base.email = 'ben@example.com';
  const name = op.path.slice(op.path.lastIndexOf('/') + 1);
  const special: Record<string, Record<string, unknown> | string> = {
    createCampaign: { campaignName: 'Walk', hostURL: 'https://shop.example/walk', referrerRewardValue: 1, refereeRewardValue: 1 },
    updateCampaign: { id: w.id, shareHeader: 'Share it' },
    setCampaignStatus: { id: w.id, status: 'Pause' },
    grantAccess: { id: w.waitlist, count: 1 },
    advanceClock: { id: w.testCampaign, to: new Date(Date.now() + 30 * DAY_MS).toISOString() },
    redeemReward: { id: w.id, email: 'ann@example.com', kind: 'referral', amount: 1 },
    approveParticipant: { id: w.id, email: 'cy@example.com' },
    resolveFraudCase: { id: w.id, caseId: w.fraudCase, decision: 'approve' },
    createApiKey: { name: 'walk' },
    revokeApiKey: { id: w.decoy },
    createWebhookEndpoint: { url: 'http://127.0.0.1:9/walk', eventTypes: ['referee_added'] },
    deleteWebhookEndpoint: { id: w.doomed },
    redeliverWebhook: { id: w.delivery },
    refundPayment: { id: w.id, email: 'ben@example.com', amount: '1.00' },
    disputePayment: { id: w.id, email: 'ben@example.com', amount: '1.00', disputeId: 'dp_walk' },
    closeDispute: { id: w.id, disputeId: 'dp_walk', outcome: 'won' },
    addRewardCodes: { id: w.id, kind: 'referral', codes: ['WALK-1'] },
    importParticipants: 'email\nimported@example.com\n',
    importRewardCodes: 'code\nWALK-2\n',
    inviteMember: { email: 'invited@example.com', role: 'viewer' },
    revokeInvitation: { id: invitation },
    changeMemberRole: { email: 'demote@example.com', role: 'viewer' },
    removeMember: { email: 'gone@example.com' },
    updateEmailSettings: { id: w.id, welcome: false },
    sendTestEmail: { id: w.id, kind: 'welcome', locale: 'en', to: 'demote@example.com' },
    putEmailText: { id: w.id, kind: 'welcome', locale: 'en', subject: 'Hi', body: 'Welcome {{firstName}}' },
    resetEmailText: { id: w.id, kind: 'welcome', locale: 'en' },
    erasePerson: { email: 'erase-me@example.com' },
    setPayoutMethod: { id: w.cash, email: 'fay@example.com', method: 'paypal', paypalEmail: 'fay@example.com' },
    createPayouts: { id: w.cash },
    approvePayouts: { id: w.cash, payoutIds: [w.payouts[0]] },
    cancelPayouts: { id: w.cash, payoutIds: [w.payouts[1]] },
    updateAccountSettings: { retention: { ipDays: 30 } },
    setReferralCode: { id: w.id, email: 'ben@example.com', code: 'BEN-WALKS' },
    setExchangeRates: { base: 'USD', rates: { EUR: 1.1 }, asOf: '2026-12-01T00:00:00.000Z' },
  };
  return special[name] ?? base;
}

/** Where a CSV route names its campaign and pool: its query. */
const csvQuery = (name: string, w: World) => (name === 'importRewardCodes' ? `?id=${w.id}&kind=referral` : `?id=${w.id}`);

/**
 * Change routes this walk cannot make succeed without a world of their own (each has its own tests):
 * Stripe events and payouts need a Stripe account's events, rejectParticipant a participant held by fraud
 * scoring. For them the walk checks the refusal writes no entry.
 */
const NOT_REACHED = new Set(['matchStripeEvent', 'matchPaymentEvent', 'retryStripePayout', 'rejectParticipant']);

for (const kind of kinds) {
  describe(`team and audit log [${kind.name}]`, { skip: kind.skip }, () => {
    let mailbox: Mailbox;
    let s: TestService;
    let clock = Date.now();
    beforeEach(async () => {
      clock = Date.now();
      mailbox = await startMailbox();
      s = await startService(kind, { smtpUrl: mailbox.url, now: () => clock });
    });
    afterEach(async () => {
      await s.close();
      await mailbox.close();
    });

    it('every protected route declares a permission; a viewer is refused every change (403 forbidden, no row changed), an admin every member and key change', async () => {
      const w = await world(s);
      const ops = await listOperations(s.url);
      const rules = s.app.routeRules;
      for (const op of ops.filter((o) => o.secret && !o.path.startsWith('/api/v1/auth/'))) assert.ok(rules.get(`${op.method} ${op.path}`)?.permission, `${op.method} ${op.path} has a permission`);
      const viewer = await member(s, 'viewer@example.com', 'viewer');
      const admin = await member(s, 'admin@example.com', 'admin');
      let changes = 0;
      for (const op of ops) {
        const rule = rules.get(`${op.method} ${op.path}`);
        if (!rule?.permission) continue;
        const name = op.path.slice(op.path.lastIndexOf('/') + 1);
        const fields = fieldsFor(op, w, 'inv_nope');
        const path = typeof fields === 'string' ? `${op.path}${csvQuery(name, w)}` : op.path;
        for (const [who, m] of [['viewer', viewer], ['admin', admin]] as const) {
          const refused = rule.permission === 'manage' || (who === 'viewer' && rule.permission === 'change');
          const before = await dumpDatabase(s.ctx.store.db, kind.dialect);
          const res = await callRoute(s.url, op.method, path, fields, sessionAuth(m));
          if (refused) {
            assert.equal(res.status, 403, `${who}: ${op.path} -> ${res.status} ${res.text}`);
            assert.equal(res.body.error?.code, 'forbidden', `${who}: ${op.path}`);
            assert.equal(await dumpDatabase(s.ctx.store.db, kind.dialect), before, `${who}: ${op.path} changed nothing`);
            changes++;
          } else {
            assert.notEqual(res.body.error?.code, 'forbidden', `${who}: ${op.path} is allowed (${rule.permission})`);
          }
        }
      }
      assert.ok(changes >= 30, `refusals checked: ${changes}`);
      // Reads stay open to a viewer: the four campaigns of the world (a user sees test campaigns too), and the one the admin's createCampaign made.
      assert.equal((await viewer.client.listCampaigns()).length, 5);
    });

    it("bulk exports are recorded; a test campaign's entries are dated by the real time, not its moved clock", async () => {
      const testKey = new RefkitClient({ baseUrl: s.url, secretKey: (await s.admin.createApiKey('ci', true)).key });
      const id = (await testKey.createCampaign({ campaignName: 'Test', hostURL: 'https://shop.example/', test: true })).campaignId!;
      const live = await s.campaign();
      await testKey.advanceClock({ id, to: new Date(clock + 30 * 86_400_000).toISOString() });
      await testKey.updateCampaign({ id, shareHeader: 'Later' });
      for (const path of [`/api/v1/admin/exportParticipants?id=${live}`, `/api/v1/admin/exportRewardEntries?id=${live}`]) {
        const res = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${s.secretKey}` } });
        assert.equal(res.status, 200, path);
        await res.text();
      }
      const entries = (await s.admin.listAuditLogPage()).items;
      const of = (action: string) => entries.find((e) => e.action === action);
      assert.equal(of('exportParticipants')?.campaignId, live);
      assert.equal(of('exportRewardEntries')?.campaignId, live);
      for (const action of ['advanceClock', 'updateCampaign']) assert.equal(of(action)?.createdOn, new Date(clock).toISOString(), `${action} dated by the real time`);
    });

    it('every change route writes exactly one audit entry when it succeeds (as the session user, with the action, campaign and address), none when refused', async () => {
      const w = await world(s);
      const owner = await member(s, 'boss@example.com', 'owner');
      // An invitation for revokeInvitation to revoke.
      const invited = await owner.client.inviteMember('later@example.com', 'admin');
      const ops = await listOperations(s.url);
      const rules = s.app.routeRules;
      const reached = new Set<string>();
      const changeOps = ops.filter((op) => {
        const r = rules.get(`${op.method} ${op.path}`);
        return r?.audited && r.permission !== undefined;
      });
      assert.ok(changeOps.length >= 25, `change routes: ${changeOps.length}`);
      for (const op of changeOps) {
        const name = op.path.slice(op.path.lastIndexOf('/') + 1);
        const fields = fieldsFor(op, w, invited.id);
        const path = typeof fields === 'string' ? `${op.path}${csvQuery(name, w)}` : op.path;
        const before = await auditCount(s);
        const res = await callRoute(s.url, op.method, path, fields, sessionAuth(owner));
        const after = await auditCount(s);
        if (res.status < 300) {
          reached.add(name);
          assert.equal(after, before + 1, `${name}: one entry`);
          const e = await newestEntry(s);
          assert.equal(e.action, name);
          assert.equal(e.actor_label, 'boss@example.com');
          assert.equal(e.actor_kind, 'user');
          assert.equal(e.actor_role, 'owner');
          assert.equal(e.ip, '127.0.0.1');
          assert.doesNotMatch(`${e.before} ${e.after}`, /sk_[A-Za-z0-9]{10}|whsec_|"secret":"[^[]/, `${name}: no secret in the entry`);
        } else {
          assert.equal(after, before, `${name}: refused (${res.status} ${res.text}), no entry`);
        }
      }
      const missed = changeOps.map((op) => op.path.slice(op.path.lastIndexOf('/') + 1)).filter((n) => !reached.has(n) && !NOT_REACHED.has(n));
      assert.deepEqual(missed, [], 'every change route was made to succeed once');
      // A secret key is recorded as itself; a replayed Idempotency-Key answer writes nothing more.
      const before = await auditCount(s);
      const body = JSON.stringify({ id: w.id, shareHeader: 'Again' });
      for (let i = 0; i < 2; i++) {
        await fetch(`${s.url}/api/v1/admin/updateCampaign`, { method: 'POST', headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'k1' }, body });
      }
      assert.equal(await auditCount(s), before + 1);
      const e = await newestEntry(s);
      assert.equal(e.actor_kind, 'key');
      assert.equal(e.actor_label, s.secretKey.slice(0, 13));
      assert.equal(JSON.parse(e.before!).shareHeader, 'Share it');
      assert.equal(JSON.parse(e.after!).shareHeader, 'Again');
      assert.equal(e.campaign_id, w.id);
    });

    it('invitations: emailed, single use, expire, can be revoked, replaced by a newer one; the invitee joins with the role and is signed in', async () => {
      const owner = await member(s, 'boss@example.com', 'owner');
      const invite = (email: string, role: Role) => callRoute(s.url, 'POST', '/api/v1/admin/inviteMember', { email, role }, sessionAuth(owner));
      const first = await invite('Vi@Example.com', 'viewer');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.email, 'vi@example.com');
      assert.equal(first.body.invitedBy, 'boss@example.com');
      const [mail] = await mailbox.to('vi@example.com', 1);
      const { link, token } = invitationIn(mail!);
      assert.match(link, /\/admin\/#\/join\?token=/);
      const accept = (t: string, password = 'a long new passphrase') => callRoute(s.url, 'POST', '/api/v1/auth/acceptInvitation', { token: t, password }, {});
      assert.equal((await accept(token, 'short')).status, 400, 'a short password is refused, and the invitation stays open');
      const joined = await accept(token);
      assert.equal(joined.status, 200, joined.text);
      assert.equal(joined.body.email, 'vi@example.com');
      assert.equal(joined.body.role, 'viewer', 'the new session says the role joined with');
      const again = await accept(token);
      assert.equal(again.status, 404);
      assert.equal(again.body.error?.code, 'link_not_found');
      const members = await callRoute(s.url, 'GET', '/api/v1/admin/listMembers', {}, sessionAuth(owner));
      assert.deepEqual((members.body as unknown as { email: string; role: string }[]).map((m) => [m.email, m.role]), [['boss@example.com', 'owner'], ['vi@example.com', 'viewer']]);
      const joinedEntry = await newestEntry(s);
      assert.deepEqual([joinedEntry.action, joinedEntry.actor_label, joinedEntry.actor_role, joinedEntry.target], ['acceptInvitation', 'vi@example.com', 'viewer', 'vi@example.com']);
      assert.doesNotMatch(joinedEntry.after!, /csrf.*[A-Za-z0-9_-]{20}/, 'the session token is redacted');
      // Inviting someone who can already sign in: 409.
      assert.equal((await invite('vi@example.com', 'admin')).body.error?.code, 'owner_exists');

      // Revoked: the link stops working. A newer invitation replaces an open one.
      const second = await invite('ad@example.com', 'admin');
      const [m2] = await mailbox.to('ad@example.com', 1);
      const t2 = invitationIn(m2!).token;
      const third = await invite('ad@example.com', 'admin');
      const [, m3] = await mailbox.to('ad@example.com', 2);
      const t3 = invitationIn(m3!).token;
      assert.equal((await accept(t2)).status, 404, 'replaced by the newer invitation');
      const open = await callRoute(s.url, 'GET', '/api/v1/admin/listInvitations', {}, sessionAuth(owner));
      assert.deepEqual((open.body as unknown as { id: string }[]).map((i) => i.id), [third.body.id]);
      assert.notEqual(second.body.id, third.body.id);
      const revoked = await callRoute(s.url, 'POST', '/api/v1/admin/revokeInvitation', { id: third.body.id }, sessionAuth(owner));
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal((await callRoute(s.url, 'POST', '/api/v1/admin/revokeInvitation', { id: third.body.id }, sessionAuth(owner))).body.error?.code, 'invitation_not_found');
      assert.equal((await accept(t3)).status, 404, 'revoked');

      // Expired after 7 days.
      await invite('late@example.com', 'viewer');
      const [m4] = await mailbox.to('late@example.com', 1);
      clock += INVITATION_TTL_MS;
      assert.equal((await accept(invitationIn(m4!).token)).status, 404, 'expired');
      assert.deepEqual(await s.admin.listInvitations(), [], 'expired ones are not listed');
    });

    it('the last owner can be neither demoted nor removed; a demoted member loses the right at once; a removed one is signed out', async () => {
      const owner = await member(s, 'boss@example.com', 'owner');
      const other = await member(s, 'second@example.com', 'owner');
      const post = (m: SignedIn, route: string, body: unknown) => callRoute(s.url, 'POST', `/api/v1/admin/${route}`, body as Record<string, unknown>, sessionAuth(m));
      const roleOf = async (m: SignedIn) => (await m.client.getSession()).role;
      assert.equal(await roleOf(other), 'owner');
      assert.equal((await post(owner, 'changeMemberRole', { email: 'second@example.com', role: 'admin' })).status, 200);
      // The session says the role as it is now (the dashboard shows a member the controls of their role only).
      assert.equal(await roleOf(other), 'admin');
      const viewer = await member(s, 'reader@example.com', 'viewer');
      const signedInAs = await fetch(`${s.url}/api/v1/auth/signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'reader@example.com', password: PASSWORD }) });
      assert.equal(((await signedInAs.json()) as { role: string }).role, 'viewer');
      assert.equal(await roleOf(viewer), 'viewer');
      // second is an admin now: refused member changes from their very next request.
      assert.equal((await post(other, 'changeMemberRole', { email: 'boss@example.com', role: 'viewer' })).body.error?.code, 'forbidden');
      const demote = await post(owner, 'changeMemberRole', { email: 'boss@example.com', role: 'admin' });
      assert.equal(demote.status, 409);
      assert.equal(demote.body.error?.code, 'last_owner');
      const remove = await post(owner, 'removeMember', { email: 'boss@example.com' });
      assert.equal(remove.body.error?.code, 'last_owner');
      assert.equal((await post(owner, 'removeMember', { email: 'nobody@example.com' })).body.error?.code, 'owner_not_found');
      // Two owners: one may step down, then remove the other (an owner no more).
      assert.equal((await post(owner, 'changeMemberRole', { email: 'second@example.com', role: 'owner' })).status, 200);
      assert.equal((await post(owner, 'changeMemberRole', { email: 'boss@example.com', role: 'viewer' })).status, 200);
      assert.equal((await post(owner, 'listMembers', {})).status, 404, 'not a POST route');
      assert.equal((await post(other, 'removeMember', { email: 'boss@example.com' })).status, 200);
      assert.equal((await fetch(`${s.url}/api/v1/auth/session`, { headers: { cookie: owner.cookie } })).status, 401, 'signed out');
      // The CLI is bound by the same rule.
      const env = { DATABASE_URL: s.database.url };
      const r = await cli(['team', 'remove', '--email', 'second@example.com'], env);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /last_owner/);
    });

    it('the log: filtered by actor, action, campaign and time, paged by cursor, exported as CSV; nothing edits it (no route, and the database refuses)', async () => {
      const owner = await member(s, 'boss@example.com', 'owner');
      const a = await s.campaign();
      const b = await s.campaign();
      for (let i = 0; i < 3; i++) {
        clock += 1000;
        await owner.client.updateCampaign({ id: a, shareHeader: `=HYPERLINK("x") ${i}` });
      }
      clock += 1000;
      const mark = new Date(clock).toISOString();
      await s.admin.updateCampaign({ id: b, shareHeader: 'b' });
      const list = async (q: Record<string, string>) => {
        const res = await callRoute(s.url, 'GET', '/api/v1/admin/listAuditLog', q, sessionAuth(owner));
        assert.equal(res.status, 200, res.text);
        return res.body as unknown as { id: number; action: string; actor: string; campaignId?: string; createdOn: string }[];
      };
      const all = await list({});
      assert.deepEqual(all.map((e) => e.action), ['updateCampaign', 'updateCampaign', 'updateCampaign', 'updateCampaign', 'createCampaign', 'createCampaign']);
      assert.equal((await list({ actor: 'boss@example.com' })).length, 3);
      assert.equal((await list({ campaignId: b })).length, 2);
      assert.equal((await list({ action: 'createCampaign' })).length, 2);
      assert.deepEqual((await list({ from: mark })).map((e) => e.campaignId), [b]);
      assert.equal((await list({ to: mark })).length, 5);
      const bad = await callRoute(s.url, 'GET', '/api/v1/admin/listAuditLog', { from: mark, to: '2000-01-01T00:00:00Z' }, sessionAuth(owner));
      assert.equal(bad.status, 400);
      // Cursor paging: two pages of 4 and 2, newest first, no entry twice.
      const first = await fetch(`${s.url}/api/v1/admin/listAuditLog?pageSize=4`, { headers: sessionAuth(owner) });
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
      assert.ok(next);
      const second = (await (await fetch(next, { headers: sessionAuth(owner) })).json()) as { id: number }[];
      assert.deepEqual([...((await first.json()) as { id: number }[]), ...second].map((e) => e.id), all.map((e) => e.id));

      const csv = await callRoute(s.url, 'GET', '/api/v1/admin/exportAuditLog', { campaignId: a }, sessionAuth(owner));
      assert.equal(csv.status, 200);
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      assert.deepEqual(rows.map((r) => r.action), ['createCampaign', 'updateCampaign', 'updateCampaign', 'updateCampaign']);
      assert.equal(rows[1]!.actor, 'boss@example.com');
      assert.equal(JSON.parse(rows[1]!.after!).shareHeader, '=HYPERLINK("x") 0', 'JSON cells are kept whole');
      assert.ok(!csv.text.split('\n').some((line) => line.startsWith('=')), 'no cell starts a formula');

      // No route changes an entry: every route of the app that is not a GET is tried by the walks above; here, the database itself.
      await assert.rejects(s.ctx.store.db.updateTable('audit_log').set({ actor_label: 'someone else' }).execute(), /append-only/);
      await assert.rejects(s.ctx.store.db.deleteFrom('audit_log').execute(), /append-only/);
      assert.equal((await list({})).length, 6);
      const auditRoutes = [...s.app.routeRules.keys()].filter((k) => /audit/i.test(k) && !k.startsWith('HEAD '));
      assert.deepEqual(auditRoutes.sort(), ['GET /api/v1/admin/exportAuditLog', 'GET /api/v1/admin/listAuditLog'], 'the only audit routes read');
    });

    it('the CLI is recorded as cli: admin commands through their routes, local commands (user create, team invite) on their own; invite prints the link', async () => {
      const env = { DATABASE_URL: s.database.url, PUBLIC_URL: 'https://refkit.example' };
      const id = await s.campaign();
      assert.equal((await cli(['campaign', 'update', '--id', id, '--share-header', 'From the CLI'], env)).code, 0);
      let e = await newestEntry(s);
      assert.deepEqual([e.action, e.actor_kind, e.actor_label, e.ip, e.campaign_id], ['updateCampaign', 'cli', 'cli', null, id]);
      const made = await cli(['user', 'create', 'ops@example.com', '--role', 'admin', '--password-stdin'], env, 'a long passphrase');
      assert.equal(made.code, 0, made.stderr);
      e = await newestEntry(s);
      assert.deepEqual([e.action, e.actor_label, e.target], ['user create', 'cli', 'ops@example.com']);
      const invited = await cli(['team', 'invite', '--email', 'new@example.com', '--role', 'viewer', '--json'], env);
      assert.equal(invited.code, 0, invited.stderr);
      assert.match(JSON.parse(invited.stdout).link, /^https:\/\/refkit\.example\/admin\/#\/join\?token=inv_/);
      e = await newestEntry(s);
      assert.deepEqual([e.action, e.target], ['team invite', 'new@example.com']);
      assert.doesNotMatch(e.after!, /token|link/);
      const listed = await cli(['audit', 'list', '--actor', 'cli', '--json'], env);
      assert.deepEqual((JSON.parse(listed.stdout) as { action: string }[]).map((x) => x.action), ['team invite', 'user create', 'updateCampaign']);
      const team = JSON.parse((await cli(['team', 'list', '--json'], env)).stdout) as { email: string; role: string }[];
      assert.deepEqual(team.map((m) => [m.email, m.role]), [['ops@example.com', 'admin']]);
      const exported = await cli(['audit', 'export', '--action', 'user create'], env);
      assert.equal((parse(exported.stdout, { columns: true }) as unknown[]).length, 1);
    });
  });
}
