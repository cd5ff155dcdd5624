/**
 * A held participant's rewards wait for the owner; a caller with a secret key is told so (held,
 * heldReason beside the interface's fields) by addParticipant and qualifyParticipant, and a keyless
 * caller never is.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachDatabase } from './helpers/suite.js';

eachDatabase('held rewards', (service) => {
  it("qualifying a friend signed up from the referrer's own machine answers held, with the reason, and credits nothing until approved", async () => {
    const s = service();
    const id = await s.campaign();
    // The owner tries it out: both sign-ups from one machine, as browsers.
    const ann = await s.browser.addParticipant({ id, email: 'ann@example.com' });
    const ben = await s.browser.addParticipant({ id, email: 'ben@example.org', referredByCode: ann.referralCode! });
    assert.equal('held' in ben, false, 'a keyless caller is not told');
    assert.equal('heldReason' in ben, false);

    const qualified = await s.admin.qualifyParticipant({ id, email: 'ben@example.org' });
    assert.equal(qualified.rewardEventCompleted, true);
    assert.equal(qualified.refereeReward, 0);
    assert.equal(qualified.held, true);
    assert.match(qualified.heldReason!, /^ben@example\.org is held for review \(fraud score high\): Signed up from the referrer's own network /);
    assert.match(qualified.heldReason!, /review queue/);

    // A keyed addParticipant of the same email tells it too; a keyless one still does not.
    const again = await s.admin.addParticipant({ id, email: 'ben@example.org' });
    assert.equal(again.held, true);
    assert.equal('held' in (await s.browser.addParticipant({ id, email: 'ben@example.org' })), false);

    // A friend of the held participant: their referral waits for the referrer.
    const cara = await s.admin.addParticipant({ id, email: 'cara@example.net', referredByEmail: 'ben@example.org' });
    assert.equal(cara.held, true);
    assert.match(cara.heldReason!, /^The referrer ben@example\.org is held for review/);

    await s.admin.approveParticipant(id, 'ben@example.org');
    const after = await s.admin.qualifyParticipant({ id, email: 'ben@example.org' });
    assert.equal(after.refereeReward, 5);
    assert.equal('held' in after, false, 'nothing is held any more');
    assert.equal('held' in (await s.admin.addParticipant({ id, email: 'cara@example.net' })), false);
  });

  it('a rejected participant is held because the owner rejected them; an API sign-up is never held', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.browser.addParticipant({ id, email: 'ann@example.com' });
    await s.browser.addParticipant({ id, email: 'ben@example.org', referredByCode: ann.referralCode! });
    await s.admin.rejectParticipant(id, 'ben@example.org');
    const rejected = await s.admin.qualifyParticipant({ id, email: 'ben@example.org' });
    assert.equal(rejected.held, true);
    assert.match(rejected.heldReason!, /^ben@example\.org is rejected by the owner\./);

    const api = await s.admin.addParticipant({ id, email: 'dan@example.com', referredByCode: ann.referralCode! });
    assert.equal('held' in api, false);
    const qualified = await s.admin.qualifyParticipant({ id, email: 'dan@example.com' });
    assert.equal('held' in qualified, false);
    assert.equal(qualified.refereeReward, 5);
  });

  it("the owner's campaign list counts each campaign's review queue: held, not rejected", async () => {
    const s = service();
    const id = await s.campaign();
    const other = await s.campaign();
    const queue = async () => Object.fromEntries((await s.admin.listCampaigns()).map((c) => [c.campaignId, c.reviewQueue]));
    assert.deepEqual(await queue(), { [id]: 0, [other]: 0 });
    const ann = await s.browser.addParticipant({ id, email: 'ann@example.com' });
    for (const email of ['ben@example.org', 'cara@example.org', 'dan@example.org']) await s.browser.addParticipant({ id, email, referredByCode: ann.referralCode! });
    assert.deepEqual(await queue(), { [id]: 3, [other]: 0 });
    await s.admin.rejectParticipant(id, 'ben@example.org');
    await s.admin.approveParticipant(id, 'cara@example.org');
    assert.deepEqual(await queue(), { [id]: 1, [other]: 0 });
  });
});
