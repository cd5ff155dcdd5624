/**
 * Emailed links against a real SMTP server started by the test (smtp-server on loopback), read as a
 * mailbox would: magic links for a known email on a new browser, and double opt-in
 * (requireEmailConfirmation), where a pending sign-up counts nowhere until its link is followed.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { browserAt } from './helpers/addresses.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';
import { linkIn, startMailbox, type Mailbox } from './helpers/smtp.js';

const SHARED = ['campaignId', 'email', 'referralCode', 'shareLink'];

for (const kind of await databaseKinds()) {
  describe(`emailed links [${kind.name}]`, { skip: kind.skip }, () => {
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

    const events = async () => (await s.ctx.store.db.selectFrom('webhook_events').select('event_type').execute()).map((e) => e.event_type);

    it('a known email on a new browser is emailed a magic link; following it proves the participant, once', async () => {
      const id = await s.campaign({ campaignName: 'Acme Notes' });
      const email = `ann-${kind.name}@example.com`;
      await s.admin.addParticipant({ id, email, firstName: 'Ann' });

      // A page view (no request for a link) sends nothing; a visitor typing the address does.
      assert.equal((await s.browser.signUp({ id, email })).emailLink, undefined);
      const stranger = await s.browser.signUp({ id, email }, { sendLink: true });
      assert.equal(stranger.outcome, 'existing');
      assert.equal(stranger.emailLink, 'sent');
      assert.deepEqual(Object.keys(stranger.participant).sort(), SHARED);

      const [mail] = await mailbox.to(email);
      assert.equal(mail!.subject, 'Your link to Acme Notes');
      assert.equal(mail!.from?.value[0]?.address, 'refkit@example.test');
      const link = linkIn(mail!);
      assert.equal(link.url.origin + link.url.pathname, 'https://shop.example/join', 'the link lands on the campaign page');
      assert.equal(link.campaignId, id);
      assert.match(mail!.html || '', /Show my rewards/);

      // Asking again at once sends nothing more (a form is no way to flood a mailbox).
      assert.equal((await s.browser.signUp({ id, email }, { sendLink: true })).emailLink, 'throttled');

      const followed = await s.browser.verifyEmail(id, link.token);
      assert.equal(followed.outcome, 'existing');
      assert.equal(followed.participant.firstName, 'Ann');
      assert.equal(followed.participant.fraudScore, undefined);
      assert.match(followed.token ?? '', /^pt_/);
      assert.equal((await s.browser.signUp({ id, email }, { token: followed.token! })).participant.firstName, 'Ann');

      await rejects(() => s.browser.verifyEmail(id, link.token), 404, 'link_not_found', 'token');
      await rejects(() => s.browser.verifyEmail(id, 'ev_made_up'), 404, 'link_not_found');
      assert.equal((await mailbox.to(email)).length, 1);
    });

    it('a link expires after a day', async () => {
      let now = Date.now();
      await s.close();
      s = await startService(kind, { smtpUrl: mailbox.url, now: () => now });
      const id = await s.campaign();
      const email = `late-${kind.name}@example.com`;
      await s.admin.addParticipant({ id, email });
      await s.browser.signUp({ id, email }, { sendLink: true });
      const link = linkIn((await mailbox.to(email))[0]!);
      now += 24 * 60 * 60 * 1000 + 1;
      await rejects(() => s.browser.verifyEmail(id, link.token), 404, 'link_not_found');
    });

    it('double opt-in: a squatted address is no one\'s referral; its owner confirms through the real friend\'s link', async () => {
      const id = await s.campaign({ requireEmailConfirmation: true });
      // Events are written only for an endpoint that takes them: this one sees whether a pending sign-up emits one.
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] });
      const victim = `vic-${kind.name}@example.com`;
      const friend = await s.admin.addParticipant({ id, email: 'friend@example.com' });
      const squatter = await s.admin.addParticipant({ id, email: 'squatter@example.com' });
      const before = { events: (await events()).length, participants: (await s.browser.getCampaign(id)).participants };

      // The squatter signs the victim's address up under their own code, from their own machine.
      const mallory = browserAt(s.url, '127.0.0.9');
      const squat = await mallory.signUp({ id, email: victim, referredByCode: squatter.referralCode! });
      assert.equal(squat.outcome, 'pending');
      assert.deepEqual(squat.participant, { email: victim, campaignId: id });
      assert.equal(squat.token, undefined);
      // Pending counts nowhere: no participant, no referral, no event, not in any list or count.
      await rejects(() => s.admin.getParticipant(id, victim), 404, 'participant_not_found');
      assert.equal((await s.admin.getParticipant(id, 'squatter@example.com')).totalReferrals, 0);
      assert.equal((await s.admin.getReferrals(id, 'squatter@example.com')).length, 0);
      assert.equal((await s.admin.getAllParticipants(id)).length, 2);
      assert.equal((await s.browser.getCampaign(id)).participants, before.participants);
      assert.equal((await events()).length, before.events);
      const [squatMail] = await mailbox.to(victim);
      assert.match(squatMail!.subject ?? '', /^Confirm your email for /);

      // The victim signs up through the friend's link: a second confirmation (not held back by the first).
      const owner = browserAt(s.url, '127.0.0.10');
      const own = await owner.signUp({ id, email: victim, referredByCode: friend.referralCode! });
      assert.equal(own.outcome, 'pending');
      assert.equal(own.emailLink, 'sent');
      const [, ownMail] = await mailbox.to(victim, 2);
      const confirmed = await owner.verifyEmail(id, linkIn(ownMail!).token);
      assert.equal(confirmed.outcome, 'created');
      assert.equal(confirmed.participant.referredByCode, friend.referralCode);
      assert.match(confirmed.token ?? '', /^pt_/);
      assert.equal((await s.admin.getParticipant(id, 'friend@example.com')).totalReferrals, 1);
      assert.equal((await s.admin.getParticipant(id, 'squatter@example.com')).totalReferrals, 0);
      assert.deepEqual((await events()).slice(before.events), ['referee_added']);

      // The squatter's link, followed later, only signs the owner in: a referral is never re-assigned.
      const late = await owner.verifyEmail(id, linkIn(squatMail!).token);
      assert.equal(late.outcome, 'existing');
      assert.equal(late.participant.referredByCode, friend.referralCode);
      await s.admin.qualifyParticipant({ id, email: victim });
      assert.equal((await s.admin.getParticipant(id, 'friend@example.com')).referralReward, 10);
      assert.equal((await s.admin.getParticipant(id, 'squatter@example.com')).referralReward, 0);
    });

    it('double opt-in: confirming waits while the campaign is paused; API sign-ups and signed emails need no confirmation', async () => {
      const id = await s.campaign({ requireEmailConfirmation: true });
      const email = `pat-${kind.name}@example.com`;
      await s.browser.signUp({ id, email, firstName: 'Pat' });
      const link = linkIn((await mailbox.to(email))[0]!);
      await s.admin.setCampaignStatus(id, 'Pause');
      await rejects(() => s.browser.verifyEmail(id, link.token), 409, 'campaign_paused');
      await s.admin.setCampaignStatus(id, 'Active');
      const joined = await s.browser.verifyEmail(id, link.token);
      assert.equal(joined.outcome, 'created');
      assert.equal(joined.participant.firstName, 'Pat', 'names given at sign-up are kept');
      assert.equal((await s.admin.getParticipant(id, email)).fraudScore, 'low');

      assert.equal((await s.admin.addParticipant({ id, email: 'api@example.com' })).email, 'api@example.com');
      const { secret } = await s.admin.getSigningSecret(id);
      const { createHmac } = await import('node:crypto');
      const signed = await s.browser.signUp({ id, email: 'signed@example.com' }, { emailSignature: createHmac('sha256', secret).update('signed@example.com').digest('hex') });
      assert.equal(signed.outcome, 'created');
      assert.equal((await mailbox.to('signed@example.com', 0)).length, 0);
    });
  });
}

// The resend throttle under a parallel burst, and a mail server that cannot be reached.
for (const kind of await databaseKinds()) {
  describe(`emailed links under attack [${kind.name}]`, { skip: kind.skip }, () => {
    let mailbox: Mailbox;
    const services: TestService[] = [];
    before(async () => {
      mailbox = await startMailbox();
    });
    after(async () => {
      await mailbox.close();
    });
    afterEach(async () => {
      for (const s of services.splice(0)) await s.close();
    });
    const OFF = { perIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, keyFailuresPerIp: 0, windowMs: 60_000, redisUrl: undefined };
    const start = async (options: Parameters<typeof startService>[1]) => {
      const s = await startService(kind, { rateLimits: OFF, ...options });
      services.push(s);
      return s;
    };
    const sentTo = (email: string) => mailbox.messages.filter((m) => m.to && !Array.isArray(m.to) && m.to.value.some((v) => v.address === email)).length;
    const count = async (s: TestService, table: 'pending_signups' | 'email_links') =>
      Number((await s.ctx.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    it('300 requests at once for a link to one address send one email, for a magic link and for a confirmation', async () => {
      const s = await start({ smtpUrl: mailbox.url });
      const id = await s.campaign();
      const known = `known-${kind.name}@example.com`;
      await s.admin.addParticipant({ id, email: known });
      const magic = await Promise.all(Array.from({ length: 300 }, () => s.browser.signUp({ id, email: known }, { sendLink: true })));
      assert.deepEqual(magic.map((a) => a.emailLink).sort((a, b) => String(a).localeCompare(String(b))), ['sent', ...Array<string>(299).fill('throttled')]);
      // Each answer came once its email was handed to the mail server.
      assert.equal(sentTo(known), 1);

      const confirmed = await s.campaign({ requireEmailConfirmation: true });
      const fresh = `fresh-${kind.name}@example.com`;
      const pending = await Promise.all(Array.from({ length: 300 }, () => s.browser.signUp({ id: confirmed, email: fresh })));
      assert.ok(pending.every((a) => a.outcome === 'pending'));
      assert.equal(pending.filter((a) => a.emailLink === 'sent').length, 1);
      assert.equal(sentTo(fresh), 1);
      assert.equal(await count(s, 'pending_signups'), 1);
    });

    it('a mail server that cannot be reached: 503 that names no server, no pending sign-up left behind, and no count toward the resend limit', async () => {
      let logged = '';
      const logTo = new Writable({ write: (chunk: Buffer, _encoding, done) => void ((logged += chunk.toString()), done()) });
      const broken = await start({ smtpUrl: 'smtp://127.0.0.1:1', logTo });
      const id = await broken.campaign({ requireEmailConfirmation: true });
      const email = `unlucky-${kind.name}@example.com`;
      for (let i = 0; i < 7; i++) {
        const err = await rejects(() => broken.browser.signUp({ id, email }), 503, 'unavailable');
        assert.doesNotMatch(err.message, /127\.0\.0\.1|:1\b|ECONNREFUSED|smtp/i);
      }
      // The operator is told which server failed, and how, in the service's log.
      assert.match(logged, /"level":50.*ECONNREFUSED.*127\.0\.0\.1/);
      assert.equal(await count(broken, 'pending_signups'), 0);
      assert.equal(await count(broken, 'email_links'), 0);
      // The mail server is back: the first request sends at once, though seven failed within the hour.
      await broken.stop();
      services.splice(services.indexOf(broken), 1);
      const s = await start({ smtpUrl: mailbox.url, database: broken.database });
      const answer = await s.browser.signUp({ id, email });
      assert.equal(answer.outcome, 'pending');
      assert.equal(answer.emailLink, 'sent');
      assert.equal(sentTo(email), 1);
    });
  });
}
