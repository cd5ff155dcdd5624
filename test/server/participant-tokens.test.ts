/**
 * Participant tokens: the mailbox's owner takes an address back from whoever signed it up first (an
 * emailed link revokes the earlier tokens), tokens expire, and rotating the signing secret ends them;
 * getMyReferrals with a forged signature tells nothing about who has joined.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { signEmail, TOKEN_TTL_MS } from '../../src/server/referrals/domain/proof.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';
import { linkIn, startMailbox, type Mailbox } from './helpers/smtp.js';

const SHARED = ['campaignId', 'email', 'referralCode', 'shareLink'];

for (const kind of await databaseKinds()) {
  describe(`participant tokens [${kind.name}]`, { skip: kind.skip }, () => {
    let mailbox: Mailbox;
    let s: TestService;
    let now = Date.parse('2026-03-01T10:00:00Z');
    before(async () => {
      mailbox = await startMailbox();
    });
    after(async () => {
      await mailbox.close();
    });
    beforeEach(async () => {
      now = Date.parse('2026-03-01T10:00:00Z');
      s = await startService(kind, { smtpUrl: mailbox.url, now: () => now });
    });
    afterEach(async () => {
      await s.close();
    });

    const mine = (id: string, token: string) => s.browser.getMyReferrals(id, { token });

    it("the address's owner follows the emailed link: a fresh token, and the squatter's token (and every earlier one) ends", async () => {
      const id = await s.campaign();
      const email = `victim-${kind.name}@example.com`;
      // No double opt-in: whoever types the address first gets the participant's token.
      const squatter = await s.browser.signUp({ id, email });
      assert.equal(squatter.outcome, 'created');
      const squatterToken = squatter.token!;
      assert.equal((await mine(id, squatterToken)).participant.email, email);

      // The real person, on their own browser, types their address and is emailed a link.
      const asked = await s.browser.signUp({ id, email }, { sendLink: true });
      assert.equal(asked.emailLink, 'sent');
      const link = linkIn((await mailbox.to(email))[0]!);
      const followed = await s.browser.verifyEmail(id, link.token);
      assert.match(followed.token ?? '', /^pt_/);

      assert.equal((await mine(id, followed.token!)).participant.email, email);
      await rejects(() => mine(id, squatterToken), 401, 'unauthorized');
      // Nor does the squatter's token prove anything to addParticipant any longer.
      const again = await s.browser.signUp({ id, email }, { token: squatterToken });
      assert.deepEqual(Object.keys(again.participant).sort(), SHARED, 'only the shared fields');
      const live = await s.ctx.store.db.selectFrom('participant_tokens').select('hash').where('revoked_on', 'is', null).execute();
      assert.equal(live.length, 1);
    });

    it('a token expires TOKEN_TTL_MS after it was issued', async () => {
      const id = await s.campaign();
      const { token } = await s.browser.signUp({ id, email: 'ann@example.com' });
      now += TOKEN_TTL_MS - 1000;
      assert.equal((await mine(id, token!)).participant.email, 'ann@example.com');
      const fresh = await s.browser.signUp({ id, email: 'ann@example.com' }, { token: token! });
      assert.ok(Object.keys(fresh.participant).length > SHARED.length, 'a live token proves the participant');
      now += 2000;
      await rejects(() => mine(id, token!), 401, 'unauthorized');
      const answer = await s.browser.signUp({ id, email: 'ann@example.com' }, { token: token! });
      assert.deepEqual(Object.keys(answer.participant).sort(), SHARED, 'an expired token proves nothing to addParticipant either');
    });

    it("rotating the signing secret ends every participant token of the campaign, and no other campaign's", async () => {
      const id = await s.campaign();
      const other = await s.campaign({ campaignName: 'Other' });
      const ann = (await s.browser.signUp({ id, email: 'ann@example.com' })).token!;
      const bob = (await s.browser.signUp({ id, email: 'bob@example.com' })).token!;
      const elsewhere = (await s.browser.signUp({ id: other, email: 'ann@example.com' })).token!;
      // Getting the secret for the first time replaces nothing: tokens go on.
      await s.admin.getSigningSecret(id);
      assert.equal((await mine(id, ann)).participant.email, 'ann@example.com');

      const { secret } = await s.admin.rotateSigningSecret(id);
      await rejects(() => mine(id, ann), 401, 'unauthorized');
      await rejects(() => mine(id, bob), 401, 'unauthorized');
      assert.equal((await mine(other, elsewhere)).participant.email, 'ann@example.com');
      // The new secret's signatures work, and get a token that works.
      const signed = await s.browser.signUp({ id, email: 'ann@example.com' }, { emailSignature: signEmail(secret, 'ann@example.com') });
      assert.equal((await mine(id, signed.token!)).participant.email, 'ann@example.com');
    });

    it('getMyReferrals with a forged signature is 401 invalid_signature, participant or not; a valid one for a non-participant 404', async () => {
      const id = await s.campaign();
      const secret = (await s.admin.getSigningSecret(id)).secret;
      await s.admin.addParticipant({ id, email: 'member@example.com' });
      for (const email of ['member@example.com', 'stranger@example.com']) {
        for (const signature of ['garbage', 'ab'.repeat(32)]) {
          await rejects(() => s.browser.getMyReferrals(id, { emailSignature: signature }, email), 401, 'invalid_signature', 'emailSignature');
        }
      }
      await rejects(() => s.browser.getMyReferrals(id, { emailSignature: signEmail(secret, 'stranger@example.com') }, 'stranger@example.com'), 404, 'participant_not_found');
      const own = await s.browser.getMyReferrals(id, { emailSignature: signEmail(secret, 'member@example.com') }, 'member@example.com');
      assert.equal(own.participant.email, 'member@example.com');
    });
  });
}
