import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { eachDatabase } from './helpers/suite.js';

// Through PgBouncer too: the sign-up, the service's most frequent write: one statement on PostgreSQL, on a pooled session.
eachDatabase('addParticipant', (service) => {
  it('creates a participant with every field filled from state', async () => {
    const s = service();
    const id = await s.campaign({ hostURL: 'https://shop.example/join?utm=x' });
    const p = await s.admin.addParticipant({ id, email: '  Ann@Example.COM ', firstName: 'Ann', lastName: 'Lee' });
    assert.equal(p.email, 'ann@example.com');
    assert.equal(p.firstName, 'Ann');
    assert.equal(p.lastName, 'Lee');
    assert.match(p.referralCode!, /^[2-9A-HJ-NP-TV-Z]{8}$/);
    assert.equal(p.referredByCode, undefined);
    assert.equal(p.campaignId, id);
    const link = new URL(p.shareLink!);
    assert.equal(link.origin + link.pathname, 'https://shop.example/join');
    assert.equal(link.searchParams.get('utm'), 'x');
    assert.equal(link.searchParams.get('id'), id);
    assert.equal(link.searchParams.get('referralCode'), p.referralCode);
    assert.ok(Math.abs(Date.parse(p.createdOn!) - Date.now()) < 60_000);
    assert.deepEqual(
      [p.totalReferrals, p.referralReward, p.referralRewardRedeemed, p.referralRewardBalance, p.refereeReward, p.refereeRewardRedeemed, p.refereeRewardBalance],
      [0, 0, 0, 0, 0, 0, 0],
    );
    assert.equal(p.rewardEventCompleted, false);
    assert.equal(p.fraudScore, '', 'API signups are not scored');
  });

  it('keyless (browser) signups are scored', async () => {
    const s = service();
    const id = await s.campaign();
    const p = await s.browser.addParticipant({ id, email: 'b@example.com' });
    assert.equal(p.fraudScore, undefined, 'fraudScore is the owner\'s alone');
    assert.equal((await s.admin.getParticipant(id, 'b@example.com')).fraudScore, 'low');
  });

  it('an address whose local part is no dot-atom (RFC 5322 specials, quotes, stray dots) is 400 on email and creates no one; dot-atoms, + and non-ASCII letters are addresses', async () => {
    const s = service();
    const id = await s.campaign();
    for (const email of ['first,second@example.com', 'a(x)b@example.com', '"quoted"@example.com', 'a..b@example.com', '.a@example.com', 'a.@example.com', 'a;b@example.com', 'a<b>@example.com', 'a@[127.0.0.1]', 'a@ex,ample.com']) {
      await rejects(() => s.admin.addParticipant({ id, email }), 400, 'invalid_request', 'email');
    }
    assert.equal((await s.admin.getAllParticipants(id)).length, 0);
    for (const email of ['ann.lee@example.com', 'ann+shop@example.com', "o'neil@example.com", 'jörg@müller.example']) {
      assert.equal((await s.admin.addParticipant({ id, email })).email, email);
    }
  });

  it('is idempotent per email and never re-assigns a referral', async () => {
    const s = service();
    const id = await s.campaign();
    const a = await s.admin.addParticipant({ id, email: 'a@example.com' });
    const b = await s.admin.addParticipant({ id, email: 'b@example.com' });
    const c1 = await s.admin.addParticipant({ id, email: 'c@example.com', referredByCode: a.referralCode! });
    const c2 = await s.admin.addParticipant({ id, email: 'C@example.com', referredByCode: b.referralCode! });
    assert.deepEqual(c2, c1);
    assert.equal(c2.referredByCode, a.referralCode);
    assert.equal((await s.admin.getParticipant(id, 'b@example.com')).totalReferrals, 0);
  });

  it('the same email added 20 times in parallel is one participant', async () => {
    const s = service();
    const id = await s.campaign();
    const a = await s.admin.addParticipant({ id, email: 'a@example.com' });
    const all = await Promise.all(
      Array.from({ length: 20 }, () => s.admin.addParticipant({ id, email: 'same@example.com', referredByCode: a.referralCode! })),
    );
    assert.equal(new Set(all.map((p) => p.referralCode)).size, 1);
    assert.equal((await s.admin.getAllParticipants(id)).length, 2);
    assert.equal((await s.admin.getParticipant(id, 'a@example.com')).totalReferrals, 1);
  });

  it('a referrer that matches nobody is 404 and creates nobody', async () => {
    const s = service();
    const id = await s.campaign();
    const err = await rejects(() => s.admin.addParticipant({ id, email: 'x@example.com', referredByCode: 'NOBODY23' }), 404, 'referrer_not_found');
    assert.equal(err.field, 'referredByCode');
    await rejects(() => s.admin.addParticipant({ id, email: 'x@example.com', referredByEmail: 'ghost@example.com' }), 404, 'referrer_not_found');
    assert.deepEqual(await s.admin.getAllParticipants(id), []);
  });
}, { pgbouncer: true });
