/**
 * Fraud cases on both databases (src/server/fraud/domain/fraud-cases.ts): participants held by the real
 * hold (holdForReview, as the fraud controls call it) are grouped per referrer; listFraudCases filters by
 * status and limit; approving a case credits what its participants earned exactly once (both sides, the
 * referral counts), rejecting leaves them unapproved, uncredited and out of the review queue; of two
 * decisions at once one wins and the other is 409; another account sees nothing; bad input is 400 naming
 * the field; each decision is in the audit log; and a participant the case approved is not held again
 * by the same rule.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RefkitClient, type KeyedParticipant } from '../../src/api/client.js';
import type { FraudSignalKind } from '../../src/api/fraud-schemas.js';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { holdForReview } from '../../src/server/fraud/domain/fraud-holds.js';
import { rejects } from './helpers/assert.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Holds `email` for review with a signal of `kind`, through the real hold. */
async function hold(s: TestService, id: string, email: string, kind: FraudSignalKind = 'blocklist'): Promise<boolean> {
  const p = await s.ctx.store.findParticipantByEmail(id, email);
  assert.ok(p, email);
  return holdForReview(s.ctx, p, { kind, detail: `${email} matched ${kind}` });
}

/** Rita refers Ann and Ben, both held by a rule and then qualified (paying 20.00): the referral waits for the owner. */
async function heldReferrals(s: TestService) {
  const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5 });
  const rita = await s.admin.addParticipant({ id, email: 'rita@example.com' });
  for (const email of ['ann@example.com', 'ben@example.com']) {
    await s.admin.addParticipant({ id, email, referredByCode: rita.referralCode! });
    assert.equal(await hold(s, id, email), true);
    const q = await s.admin.qualifyParticipant({ id, email, amountPaid: '20.00' });
    assert.equal(q.refereeReward, 0, `${email} earns nothing while held`);
    assert.equal(q.held, true);
  }
  const [only] = (await s.admin.listFraudCases(id)).cases;
  assert.ok(only);
  return { id, rita, caseId: only.caseId };
}

const row = (s: TestService, id: string, email: string) => s.ctx.store.findParticipantByEmail(id, email).then((p) => p!);
const ledger = async (s: TestService, id: string, email: string) => (await s.admin.listRewardEntries(id, email)).map((e) => `${e.kind} ${e.amount}`).sort();
const auditEntries = async (s: TestService) => (await s.admin.listAuditLogPage({ action: 'resolveFraudCase' })).items;

/** A raw call with the secret key: status and JSON body. */
async function call(s: TestService, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${s.url}/api/v1/admin/${path}`, {
    method,
    headers: { authorization: `Bearer ${s.secretKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; field?: string; message: string } } };
}

/** The state of everything a decision moves: the three participants' rows, ledgers and the cases. */
async function snapshot(s: TestService, id: string) {
  const people = [];
  for (const email of ['rita@example.com', 'ann@example.com', 'ben@example.com']) {
    const p = await row(s, id, email);
    people.push({ email, approval: p.approval, credited: p.reward_credited, creditedReferrals: p.credited_referrals, referral: p.referral_reward, referee: p.referee_reward, ledger: await ledger(s, id, email) });
  }
  const cases = await Promise.all((['open', 'approved', 'rejected'] as const).map((status) => s.admin.listFraudCases(id, { status })));
  return { people, cases };
}

eachDatabase('fraud cases', (service) => {
  it('groups the signals per referrer (the participant themself when nobody referred them); lists by status, newest first, up to limit', async () => {
    const s = service();
    const { id, rita, caseId } = await heldReferrals(s);
    // Another referrer's referee, and a participant nobody referred.
    const sam = await s.admin.addParticipant({ id, email: 'sam@example.com' });
    await s.admin.addParticipant({ id, email: 'cy@example.com', referredByCode: sam.referralCode! });
    await hold(s, id, 'cy@example.com', 'limit_per_day');
    await s.admin.addParticipant({ id, email: 'dee@example.com' });
    await hold(s, id, 'dee@example.com', 'self_referral_payment');
    // A second rule on Ann joins Rita's case; the same rule again adds nothing.
    assert.equal(await hold(s, id, 'ann@example.com', 'duplicate_payout_method'), true);
    assert.equal(await hold(s, id, 'ann@example.com', 'blocklist'), false);

    const { cases } = await s.admin.listFraudCases(id);
    assert.deepEqual(
      cases.map((c) => [c.referrer.email, c.signals.map((g) => `${g.participant.email} ${g.kind}`)]),
      [
        ['dee@example.com', ['dee@example.com self_referral_payment']],
        ['sam@example.com', ['cy@example.com limit_per_day']],
        ['rita@example.com', ['ann@example.com blocklist', 'ben@example.com blocklist', 'ann@example.com duplicate_payout_method']],
      ],
    );
    const ritas = cases[2]!;
    assert.equal(ritas.caseId, caseId);
    assert.equal(ritas.status, 'open');
    assert.deepEqual(ritas.referrer, { email: 'rita@example.com', referralCode: rita.referralCode });
    assert.equal(ritas.signals[0]!.detail, 'ann@example.com matched blocklist');
    assert.equal(ritas.signals[0]!.participant.referralCode, (await s.admin.getParticipant(id, 'ann@example.com')).referralCode);
    assert.match(ritas.openedOn, ISO);
    assert.match(ritas.signals[0]!.createdOn, ISO);
    assert.equal('resolvedOn' in ritas, false);
    assert.equal('resolvedBy' in ritas, false);

    assert.deepEqual((await s.admin.listFraudCases(id, { limit: 2 })).cases.map((c) => c.referrer.email), ['dee@example.com', 'sam@example.com']);
    assert.deepEqual((await s.admin.listFraudCases(id, { status: 'approved' })).cases, []);
    await s.admin.resolveFraudCase({ id, caseId, decision: 'reject' });
    assert.deepEqual((await s.admin.listFraudCases(id, { status: 'open' })).cases.map((c) => c.referrer.email), ['dee@example.com', 'sam@example.com']);
    const [rejected] = (await s.admin.listFraudCases(id, { status: 'rejected' })).cases;
    assert.equal(rejected?.caseId, caseId);
    assert.match(rejected!.resolvedOn!, ISO);
    assert.match(rejected!.resolvedBy!, /^sk_/);
    // Another campaign's cases are its own.
    assert.deepEqual((await s.admin.listFraudCases(await s.campaign())).cases, []);
  });

  it('approving credits what the held referrals earned, exactly once; a second decision is 409 and changes nothing', async () => {
    const s = service();
    const { id, caseId } = await heldReferrals(s);
    assert.equal((await row(s, id, 'rita@example.com')).credited_referrals, 0);
    const decided = await s.admin.resolveFraudCase({ id, caseId, decision: 'approve' });
    assert.equal(decided.caseId, caseId);
    assert.equal(decided.status, 'approved');
    assert.match(decided.resolvedBy!, /^sk_/);
    assert.equal(decided.signals.length, 2);

    for (const email of ['ann@example.com', 'ben@example.com']) {
      const p = await row(s, id, email);
      assert.equal(p.approval, 1, `${email} approved`);
      assert.equal(p.reward_credited, 1);
      assert.equal(p.referee_reward, 5);
      assert.deepEqual(await ledger(s, id, email), ['referee 5']);
    }
    const rita = await row(s, id, 'rita@example.com');
    assert.equal(rita.referral_reward, 20);
    assert.equal(rita.credited_referrals, 2);
    assert.deepEqual(await ledger(s, id, 'rita@example.com'), ['referral 10', 'referral 10']);
    assert.deepEqual((await s.admin.listFraudCases(id)).cases, [], 'no open case left');
    assert.equal((await s.admin.searchParticipants({ id, filter: 'held' })).participants.length, 0, 'the review queue is empty');

    const before = await snapshot(s, id);
    for (const decision of ['approve', 'reject'] as const) await rejects(() => s.admin.resolveFraudCase({ id, caseId, decision }), 409, 'fraud_case_resolved', 'caseId');
    assert.deepEqual(await snapshot(s, id), before, 'the refused decisions changed nothing');
    // A later payment of Ann's credits no second referral.
    const again = await s.admin.qualifyParticipant({ id, email: 'ann@example.com', amountPaid: '20.00' });
    assert.equal(again.refereeReward, 5);
    assert.equal((await row(s, id, 'rita@example.com')).referral_reward, 20);
  });

  it('rejecting leaves them unapproved, uncredited and out of the review queue', async () => {
    const s = service();
    const { id, caseId } = await heldReferrals(s);
    assert.deepEqual((await s.admin.searchParticipants({ id, filter: 'held' })).participants.map((p) => p.email).sort(), ['ann@example.com', 'ben@example.com']);
    const decided = await s.admin.resolveFraudCase({ id, caseId, decision: 'reject' });
    assert.equal(decided.status, 'rejected');
    for (const email of ['ann@example.com', 'ben@example.com']) {
      const p = await row(s, id, email);
      assert.equal(p.approval, 0);
      assert.equal(p.reward_credited, 0);
      assert.deepEqual(await ledger(s, id, email), []);
      const summary = (await s.admin.getParticipantDetail(id, email)).participant;
      assert.equal(summary.rejected, true);
      assert.equal(summary.approval, false);
    }
    assert.equal((await row(s, id, 'rita@example.com')).referral_reward, 0);
    assert.deepEqual(await ledger(s, id, 'rita@example.com'), []);
    assert.deepEqual((await s.admin.searchParticipants({ id, filter: 'held' })).participants, [], 'out of the review queue');
    assert.deepEqual((await s.admin.searchParticipants({ id, filter: 'rejected' })).participants.map((p) => p.email).sort(), ['ann@example.com', 'ben@example.com']);
    // Paying again earns nothing either.
    const again: KeyedParticipant = await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '20.00' });
    assert.equal(again.refereeReward, 0);
    await rejects(() => s.admin.resolveFraudCase({ id, caseId, decision: 'approve' }), 409, 'fraud_case_resolved');
  });

  it('of an approval and a rejection sent at once, one wins and the other is 409; nothing is done twice', async () => {
    const s = service();
    for (let round = 0; round < 3; round++) {
      const { id, caseId } = await heldReferrals(s);
      const decisions = round === 2 ? (['approve', 'approve'] as const) : round === 1 ? (['reject', 'approve'] as const) : (['approve', 'reject'] as const);
      const results = await Promise.allSettled(decisions.map((decision) => s.admin.resolveFraudCase({ id, caseId, decision })));
      const won = results.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, `round ${round}: one decision wins`);
      const lost = results.find((r) => r.status === 'rejected');
      assert.equal((lost!.reason as { status: number; code: string }).status, 409);
      assert.equal((lost!.reason as { status: number; code: string }).code, 'fraud_case_resolved');
      const status = won[0]!.value.status;
      const rita = await row(s, id, 'rita@example.com');
      if (status === 'approved') {
        assert.equal(rita.referral_reward, 20);
        assert.deepEqual(await ledger(s, id, 'rita@example.com'), ['referral 10', 'referral 10']);
        for (const email of ['ann@example.com', 'ben@example.com']) assert.deepEqual(await ledger(s, id, email), ['referee 5']);
      } else {
        assert.equal(rita.referral_reward, 0);
        for (const email of ['ann@example.com', 'ben@example.com']) assert.equal((await row(s, id, email)).approval, 0);
      }
      assert.equal((await auditEntries(s)).filter((e) => e.campaignId === id).length, 1, 'one decision recorded');
    }
  });

  it("another account's key neither sees nor decides a case (404); bad input is 400 naming the field", async () => {
    const s = service();
    const { id, caseId } = await heldReferrals(s);
    await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).execute();
    const other = new RefkitClient({ baseUrl: s.url, secretKey: (await createApiKey(s.ctx, { accountId: 2 }, 'theirs')).key });
    await rejects(() => other.listFraudCases(id), 404, 'campaign_not_found');
    await rejects(() => other.resolveFraudCase({ id, caseId, decision: 'approve' }), 404, 'campaign_not_found');
    // A case of another campaign of the same account, and an unknown one.
    const elsewhere = await s.campaign();
    await rejects(() => s.admin.resolveFraudCase({ id: elsewhere, caseId, decision: 'approve' }), 404, 'fraud_case_not_found', 'caseId');
    await rejects(() => s.admin.resolveFraudCase({ id, caseId: caseId + 1000, decision: 'approve' }), 404, 'fraud_case_not_found', 'caseId');
    await rejects(() => s.admin.listFraudCases('cmp_nope'), 404, 'campaign_not_found');

    const unknown = await call(s, 'POST', 'resolveFraudCase', { id, caseId, decision: 'approve', note: 'ok' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error?.code, 'invalid_request');
    assert.equal(unknown.body.error?.field, 'note');
    for (const [body, field] of [
      [{ id, caseId: 0, decision: 'approve' }, 'caseId'],
      [{ id, caseId: 'one', decision: 'approve' }, 'caseId'],
      [{ id, caseId: 1.5, decision: 'approve' }, 'caseId'],
      [{ id, decision: 'approve' }, 'caseId'],
      [{ id, caseId, decision: 'maybe' }, 'decision'],
    ] as const) {
      const res = await call(s, 'POST', 'resolveFraudCase', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error?.code, 'invalid_request');
      assert.equal(res.body.error?.field, field, JSON.stringify(res.body));
    }
    for (const [query, field] of [[`id=${id}&status=closed`, 'status'], [`id=${id}&limit=0`, 'limit'], [`id=${id}&limit=101`, 'limit'], ['', 'id']] as const) {
      const res = await call(s, 'GET', `listFraudCases?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error?.field, field, JSON.stringify(res.body));
    }
    assert.equal((await s.admin.listFraudCases(id)).cases[0]?.status, 'open', 'the case is still open');
    assert.deepEqual(await auditEntries(s), [], 'no refused call is recorded');
  });

  it('records each decision in the audit log: who, the campaign, the case before and after', async () => {
    const s = service();
    const { id, caseId } = await heldReferrals(s);
    const decided = await s.admin.resolveFraudCase({ id, caseId, decision: 'approve' });
    const [entry, ...more] = await auditEntries(s);
    assert.deepEqual(more, []);
    assert.equal(entry!.action, 'resolveFraudCase');
    assert.equal(entry!.actorKind, 'key');
    assert.equal(entry!.actor, decided.resolvedBy);
    assert.equal(entry!.campaignId, id);
    assert.equal(entry!.target, `case ${caseId}`);
    assert.equal((entry!.before as { status: string }).status, 'open');
    assert.deepEqual(entry!.after, decided);
  });

  it('a participant the case approved is not held again by the same rule; another rule opens a new case', async () => {
    const s = service();
    const { id, caseId } = await heldReferrals(s);
    await s.admin.resolveFraudCase({ id, caseId, decision: 'approve' });
    // The rule matches Ann again (another payment, another sign-up attempt): nothing is held or recorded.
    assert.equal(await hold(s, id, 'ann@example.com', 'blocklist'), false);
    const paid = await s.admin.qualifyParticipant({ id, email: 'ann@example.com', amountPaid: '30.00' });
    assert.equal('held' in paid, false);
    assert.equal((await row(s, id, 'ann@example.com')).approval, 1);
    assert.deepEqual((await s.admin.listFraudCases(id)).cases, []);
    // Another rule is news: Rita's new case (the decided one stays decided).
    assert.equal(await hold(s, id, 'ann@example.com', 'limit_per_referrer'), true);
    const open = (await s.admin.listFraudCases(id)).cases;
    assert.equal(open.length, 1);
    assert.notEqual(open[0]!.caseId, caseId);
    assert.equal(open[0]!.referrer.email, 'rita@example.com');
    assert.deepEqual(open[0]!.signals.map((g) => g.kind), ['limit_per_referrer']);
    assert.equal((await s.admin.listFraudCases(id, { status: 'approved' })).cases[0]?.signals.length, 2);
    // Held at once by two rules together: one case, not two.
    await Promise.all([hold(s, id, 'ben@example.com', 'limit_per_day'), hold(s, id, 'ben@example.com', 'duplicate_payout_method')]);
    const after = (await s.admin.listFraudCases(id)).cases;
    assert.equal(after.length, 1);
    assert.equal(after[0]!.signals.length, 3);
  });
});
