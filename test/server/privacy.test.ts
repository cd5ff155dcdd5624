/**
 * A participant's data is theirs: what a keyless caller (a browser) reads, and the proofs that let the
 * participant read their own private fields: a participant token, a host's email signature, an emailed
 * link (see ./email-links.test.ts for the last, against a real SMTP server).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { eachDatabase } from './helpers/suite.js';

/** The fields any caller may see of a participant: what they share anyway. */
const SHARED = ['campaignId', 'email', 'referralCode', 'shareLink'];
const PRIVATE = ['firstName', 'lastName', 'totalReferrals', 'referralReward', 'referralRewardBalance', 'refereeReward', 'rewardEventCompleted', 'fraudScore'];

/** docs/privacy.md's Node snippet for the host's backend, as written there. */
const sign = (secret: string, email: string) => createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');

eachDatabase('privacy of keyless answers', (service) => {
  it("a keyless sign-up of someone else's email answers 200 with the shared fields only", async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });

    const answer = await s.browser.signUp({ id, email: ' ANN@example.com ' });
    assert.equal(answer.outcome, 'existing');
    assert.deepEqual(Object.keys(answer.participant).sort(), SHARED);
    assert.equal(answer.participant.shareLink, ann.shareLink);
    assert.equal(answer.token, undefined, 'typing an email earns no token');
    assert.equal(answer.emailLink, undefined, 'no SMTP here, so no link is sent');
    // The same through the plain interface call.
    assert.deepEqual(Object.keys(await s.browser.addParticipant({ id, email: 'ben@example.com' })).sort(), SHARED);
  });

  it('the browser that signed up gets a token, reads its own private fields with it, never fraudScore', async () => {
    const s = service();
    const id = await s.campaign();
    const first = await s.browser.signUp({ id, email: 'cat@example.com', firstName: 'Cat' });
    assert.equal(first.outcome, 'created');
    assert.match(first.token ?? '', /^pt_[A-Za-z0-9_-]{32}$/);
    assert.equal(first.participant.firstName, 'Cat');
    assert.equal(first.participant.totalReferrals, 0);
    assert.equal(first.participant.fraudScore, undefined);

    const again = await s.browser.signUp({ id, email: 'cat@example.com' }, { token: first.token! });
    assert.equal(again.outcome, 'existing');
    assert.equal(again.participant.firstName, 'Cat');
    assert.equal(again.participant.refereeRewardBalance, 0);
    assert.equal(again.participant.fraudScore, undefined);
    assert.equal(again.token, undefined, 'a token proves itself; no new one');

    // A token proves only its own participant.
    const dan = await s.browser.signUp({ id, email: 'dan@example.com' });
    const crossed = await s.browser.signUp({ id, email: 'cat@example.com' }, { token: dan.token! });
    assert.deepEqual(Object.keys(crossed.participant).sort(), SHARED);
    // A made-up token is no proof either (and no error: browsers keep tokens that get revoked).
    const guessed = await s.browser.signUp({ id, email: 'cat@example.com' }, { token: 'pt_' + 'A'.repeat(32) });
    assert.deepEqual(Object.keys(guessed.participant).sort(), SHARED);

    // Tokens are stored hashed, never as given.
    const rows = await s.ctx.store.db.selectFrom('participant_tokens').select('hash').execute();
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.hash) && r.hash !== first.token));
  });

  it('tokens are revocable: by the browser (signOut) and by an admin for every browser', async () => {
    const s = service();
    const id = await s.campaign();
    const a = await s.browser.signUp({ id, email: 'eve@example.com' });
    const viaLink = await s.browser.signUp({ id, email: 'fay@example.com' });
    assert.deepEqual(await s.browser.revokeToken(id, a.token!), { ok: true });
    assert.deepEqual(Object.keys((await s.browser.signUp({ id, email: 'eve@example.com' }, { token: a.token! })).participant).sort(), SHARED);

    assert.equal((await s.browser.signUp({ id, email: 'fay@example.com' }, { token: viaLink.token! })).participant.totalReferrals, 0);
    assert.deepEqual(await s.admin.revokeParticipantTokens(id, 'fay@example.com'), { revoked: 1 });
    assert.deepEqual(Object.keys((await s.browser.signUp({ id, email: 'fay@example.com' }, { token: viaLink.token! })).participant).sort(), SHARED);
    assert.deepEqual(await s.admin.revokeParticipantTokens(id, 'fay@example.com'), { revoked: 0 });
    await rejects(() => s.browser.revokeParticipantTokens(id, 'fay@example.com'), 401, 'unauthorized');
    await rejects(() => s.admin.revokeParticipantTokens(id, 'nobody@example.com'), 404, 'participant_not_found');
  });

  it("the host's email signature proves the participant; a wrong one is 401; rotating retires the old secret", async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'gus@example.com', firstName: 'Gus' });
    const { secret } = await s.admin.getSigningSecret(id);
    assert.match(secret, /^cs_/);
    assert.deepEqual(await s.admin.getSigningSecret(id), { secret }, 'stable until rotated');

    const proven = await s.browser.signUp({ id, email: 'Gus@Example.com' }, { emailSignature: sign(secret, 'Gus@Example.com') });
    assert.equal(proven.participant.firstName, 'Gus');
    assert.equal(proven.participant.fraudScore, undefined);
    assert.match(proven.token ?? '', /^pt_/, 'later visits need no signature');
    assert.equal((await s.browser.signUp({ id, email: 'gus@example.com' }, { token: proven.token! })).participant.firstName, 'Gus');

    await rejects(() => s.browser.signUp({ id, email: 'gus@example.com' }, { emailSignature: sign(secret, 'other@example.com') }), 401, 'invalid_signature', 'emailSignature');
    await rejects(() => s.browser.signUp({ id, email: 'gus@example.com' }, { emailSignature: 'not-hex' }), 401, 'invalid_signature');
    // A signed new email joins at once, as any new sign-up does.
    const hal = await s.browser.signUp({ id, email: 'hal@example.com' }, { emailSignature: sign(secret, 'hal@example.com') });
    assert.equal(hal.outcome, 'created');

    const { secret: rotated } = await s.admin.rotateSigningSecret(id);
    assert.notEqual(rotated, secret);
    await rejects(() => s.browser.signUp({ id, email: 'gus@example.com' }, { emailSignature: sign(secret, 'gus@example.com') }), 401, 'invalid_signature');
    assert.equal((await s.browser.signUp({ id, email: 'gus@example.com' }, { emailSignature: sign(rotated, 'gus@example.com') })).participant.firstName, 'Gus');
    // The secret is the owner's: another account's key and a keyless caller cannot read it.
    await rejects(() => s.browser.getSigningSecret(id), 401, 'unauthorized');
    await rejects(() => s.admin.getSigningSecret('cmp_nope'), 404, 'campaign_not_found');
  });

  it('requireEmailConfirmation cannot be turned on where no email can be sent', async () => {
    const s = service();
    await rejects(() => s.admin.createCampaign({ campaignName: 'x', hostURL: 'https://x.example', requireEmailConfirmation: true }), 400, 'invalid_request', 'requireEmailConfirmation');
    const id = await s.campaign();
    await rejects(() => s.admin.updateCampaign({ id, requireEmailConfirmation: true }), 400, 'invalid_request', 'requireEmailConfirmation');
  });

  it('with a secret key the answer is the whole record, fraudScore included', async () => {
    const s = service();
    const id = await s.campaign();
    await s.browser.signUp({ id, email: 'ivy@example.com', firstName: 'Ivy' });
    const full = await s.admin.addParticipant({ id, email: 'ivy@example.com' });
    for (const field of PRIVATE.filter((f) => f !== 'lastName')) assert.ok(field in full, field);
    assert.equal(full.fraudScore, 'low');
  });
});
