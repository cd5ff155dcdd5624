/**
 * Referral squatting without double opt-in, held referrers, and impressions: the rewards the program
 * pays go to real referrals only. Browsers at distinct loopback addresses stand for distinct networks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { browserAt } from './helpers/addresses.js';
import { startService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

eachDatabase('referral squatting', (service) => {
  it('12 addresses signed up under one code from one network are all held; the real friend is not overridden; no one is paid', async () => {
    const s = service();
    const id = await s.campaign();
    // The squatter joined from home (127.0.0.20) and signs others up from a café (127.0.0.21).
    const squatter = (await browserAt(s.url, '127.0.0.20').signUp({ id, email: 'squatter@example.com' })).participant;
    const cafe = browserAt(s.url, '127.0.0.21');
    const victims = Array.from({ length: 12 }, (_, i) => `victim${i}@example.com`);
    for (const email of victims) await cafe.addParticipant({ id, email, referredByCode: squatter.referralCode! });

    for (const email of victims) {
      const v = await s.admin.getParticipant(id, email);
      assert.equal(v.fraudScore, 'high', `${email} is held, including the first ones of the group`);
    }
    // The victims join for real, through a friend's link: they are told the truth, and nothing moves.
    const friend = await s.admin.addParticipant({ id, email: 'friend@example.com' });
    const told = await browserAt(s.url, '127.0.0.22').signUp({ id, email: 'victim0@example.com', referredByCode: friend.referralCode! });
    assert.equal(told.outcome, 'existing');
    assert.equal((await s.admin.getParticipant(id, 'friend@example.com')).totalReferrals, 0);

    for (const email of victims) await s.admin.qualifyParticipant({ id, email, amountPaid: '20' });
    const after = await s.admin.getParticipant(id, 'squatter@example.com');
    assert.equal(after.referralReward, 0, 'the squatter earns nothing');
    assert.equal((await s.admin.getParticipant(id, 'victim3@example.com')).refereeReward, 0);
    assert.equal((await s.admin.getParticipant(id, 'friend@example.com')).referralReward, 0);
  });

  it("a referee from the referrer's own sign-up network is high; different networks are not", async () => {
    const s = service();
    const id = await s.campaign();
    const ann = (await browserAt(s.url, '127.0.0.30').signUp({ id, email: 'ann@example.com' })).participant;
    await browserAt(s.url, '127.0.0.30').addParticipant({ id, email: 'sock@example.com', referredByCode: ann.referralCode! });
    assert.equal((await s.admin.getParticipant(id, 'sock@example.com')).fraudScore, 'high');
    for (const [i, ip] of ['127.0.0.31', '127.0.0.32', '127.0.0.33'].entries()) {
      await browserAt(s.url, ip).addParticipant({ id, email: `real${i}@example.com`, referredByCode: ann.referralCode! });
      assert.equal((await s.admin.getParticipant(id, `real${i}@example.com`)).fraudScore, 'low');
    }
  });

  it('two referees from one network are fine; the third holds all three, but not one an admin approved', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const office = browserAt(s.url, '127.0.0.40');
    await office.addParticipant({ id, email: 'b1@example.com', referredByCode: ann.referralCode! });
    await office.addParticipant({ id, email: 'b2@example.com', referredByCode: ann.referralCode! });
    assert.equal((await s.admin.getParticipant(id, 'b2@example.com')).fraudScore, 'low');
    await s.admin.qualifyParticipant({ id, email: 'b1@example.com' });
    await office.addParticipant({ id, email: 'b3@example.com', referredByCode: ann.referralCode! });
    // b1 was credited before the pattern showed: what is paid stays paid; b2 and b3 are held.
    assert.deepEqual(
      await Promise.all(['b1', 'b2', 'b3'].map(async (b) => (await s.admin.getParticipant(id, `${b}@example.com`)).fraudScore)),
      ['low', 'high', 'high'],
    );
    await s.admin.approveParticipant(id, 'b2@example.com');
    await office.addParticipant({ id, email: 'b4@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'b2@example.com' });
    assert.equal((await s.admin.getParticipant(id, 'b2@example.com')).refereeReward, 5, 'approval is not undone by later sign-ups');
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralReward, 20);
  });
});

eachDatabase('held referrers', (service) => {
  /** A referrer scored high: a disposable address from a network that signed up five times this hour. */
  async function heldReferrer(s: ReturnType<typeof service>, id: string) {
    const burst = browserAt(s.url, '127.0.0.50');
    for (let i = 0; i < 5; i++) await burst.addParticipant({ id, email: `burst${i}@example.com` });
    const r = (await burst.signUp({ id, email: 'mal@mailinator.com' })).participant;
    assert.equal((await s.admin.getParticipant(id, 'mal@mailinator.com')).fraudScore, 'high');
    return r;
  }

  it('a high, unapproved referrer earns nothing, nor do their referees, until approved; then each referral once', async () => {
    const s = service();
    const id = await s.campaign();
    // Events are written only for an endpoint that takes them: this one counts the rewards unlocked.
    await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['reward_unlocked'] });
    const mal = await heldReferrer(s, id);
    for (const email of ['r1@example.com', 'r2@example.com']) {
      await s.admin.addParticipant({ id, email, referredByCode: mal.referralCode! });
      const q = await s.admin.qualifyParticipant({ id, email });
      assert.equal(q.rewardEventCompleted, true);
      assert.equal(q.refereeReward, 0, 'the referral is held as a whole');
    }
    assert.equal((await s.admin.getParticipant(id, 'mal@mailinator.com')).referralReward, 0);
    const unlocked = async () =>
      (await s.ctx.store.db.selectFrom('webhook_events').select('event_type').where('event_type', '=', 'reward_unlocked').execute()).length;
    assert.equal(await unlocked(), 0);

    const approved = await s.admin.approveParticipant(id, 'mal@mailinator.com');
    assert.equal(approved.referralReward, 20);
    await s.admin.approveParticipant(id, 'mal@mailinator.com');
    await s.admin.qualifyParticipant({ id, email: 'r1@example.com' });
    assert.equal((await s.admin.getParticipant(id, 'mal@mailinator.com')).referralReward, 20);
    assert.equal((await s.admin.getParticipant(id, 'r2@example.com')).refereeReward, 5);
    assert.equal(await unlocked(), 4, 'two sides of two referrals');
  });

  it('approving the referrer while its referees qualify, all at once, credits each referral exactly once', async () => {
    const s = service();
    const id = await s.campaign();
    const mal = await heldReferrer(s, id);
    const referees = Array.from({ length: 8 }, (_, i) => `q${i}@example.com`);
    for (const email of referees) await s.admin.addParticipant({ id, email, referredByCode: mal.referralCode! });
    await Promise.all([
      ...referees.map((email) => s.admin.qualifyParticipant({ id, email })),
      s.admin.approveParticipant(id, 'mal@mailinator.com'),
      s.admin.approveParticipant(id, 'mal@mailinator.com'),
    ]);
    assert.equal((await s.admin.getParticipant(id, 'mal@mailinator.com')).referralReward, 80);
    for (const email of referees) assert.equal((await s.admin.getParticipant(id, email)).refereeReward, 5);
  });
});

eachDatabase('impressions', (service, kind) => {
  it('count once per visitor, code and day, whatever the renders; a key never counts', async () => {
    let now = Date.UTC(2026, 10, 23, 12);
    const s = service();
    s.ctx.now = () => now;
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    // Impressions are written in batches a few milliseconds apart: write what waits, then read.
    const impressions = async () => {
      await s.ctx.store.flushImpressions();
      return (await s.ctx.store.findParticipantByCode(id, ann.referralCode!))!.impression_count;
    };

    const phone = browserAt(s.url, '127.0.0.60', 'Phone/1.0');
    for (let i = 0; i < 6; i++) assert.equal(await phone.validateCode(id, ann.referralCode!), true);
    assert.equal(await impressions(), 1);
    await browserAt(s.url, '127.0.0.60', 'Laptop/2.0').validateCode(id, ann.referralCode!);
    await browserAt(s.url, '127.0.0.61', 'Phone/1.0').validateCode(id, ann.referralCode!);
    assert.equal(await impressions(), 3);
    await s.admin.validateCode(id, ann.referralCode!);
    assert.equal(await impressions(), 3);
    // The same visitor on another participant's link is that participant's impression.
    const ben = await s.admin.addParticipant({ id, email: 'ben@example.com' });
    await phone.validateCode(id, ben.referralCode!);
    await phone.validateCode(id, ben.referralCode!);
    assert.equal(await impressions(), 3);
    assert.equal((await s.ctx.store.findParticipantByCode(id, ben.referralCode!))!.impression_count, 1);
    now += 24 * 60 * 60 * 1000;
    await phone.validateCode(id, ann.referralCode!);
    assert.equal(await impressions(), 4);
    // Yesterday's rows are pruned: only today's are needed to deduplicate.
    const days = await s.ctx.store.db.selectFrom('impressions').select('day').distinct().execute();
    assert.deepEqual(days.map((d) => d.day), [Math.floor(now / 86_400_000)]);
  });

  it('a burst of new visitors answers at once; their impressions are written together, and on shutdown', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const ben = await s.admin.addParticipant({ id, email: 'ben@example.com' });
    const visits = Array.from({ length: 30 }, (_, i) => browserAt(s.url, `127.0.1.${i}`).validateCode(id, (i % 3 === 0 ? ben : ann).referralCode!));
    assert.ok((await Promise.all(visits)).every(Boolean));
    // Not flushed here: stopping the service writes what still waits before the database closes.
    await s.stop();
    const again = await startService(kind, { database: s.database });
    try {
      const count = async (email: string) => (await again.ctx.store.findParticipantByEmail(id, email))!.impression_count;
      assert.deepEqual([await count('ann@example.com'), await count('ben@example.com')], [20, 10]);
      const analytics = await again.admin.getCampaignAnalytics(id);
      assert.equal(analytics.funnel.impressions, 30, 'the daily counters too');
    } finally {
      await again.stop();
    }
  });
});
