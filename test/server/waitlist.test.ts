/**
 * Waitlist mode on both databases: off by default, settings and their refusals, positions by sign-up
 * order moved up by referred sign-ups (or by qualified referrals, and back on a refund), grants of the
 * first N and by email with access_granted events, idempotent grants, launch keeping codes and
 * referrals, parallel sign-ups and grants giving the positions of some serial order, and positions from
 * the bucket deltas against a full sort of a random history that crosses buckets and goes negative.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { MyWaitlist } from '../../src/api/widget-schemas.js';
import { issueToken } from '../../src/server/referrals/domain/proof.js';
import { WAIT_BUCKET } from '../../src/server/engagement/store/waitlist-store.js';
import { rejects } from './helpers/assert.js';
import type { TestService } from './helpers/service.js';
import { referralsExact } from '../../src/server/store/referral-count-store.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-03-10T12:00:00Z');
const clock = { now: START };
/** The property tests' moves, committed this many at a time (see where it is used). */
const STEPS_PER_TRANSACTION = 64;

async function placeOf(s: TestService, id: string, email: string): Promise<MyWaitlist | undefined> {
  const p = await s.ctx.store.findParticipantByEmail(id, email);
  const token = await issueToken(s.ctx.store, p!.id, s.ctx.now());
  return (await s.browser.getMyReferrals(id, { token })).waitlist;
}

const positions = async (s: TestService, id: string, emails: string[]) => Promise.all(emails.map(async (e) => (await placeOf(s, id, e))!.position));

/** The queue as a full sort would have it: waiting participants by (seq - spots x referrals, then the later sign-up first: the more referrals). */
async function naiveQueue(s: TestService, id: string, spots: number, counted: 'total_referrals' | 'credited_referrals'): Promise<string[]> {
  const rows = await s.ctx.store.db
    .selectFrom('waitlist_entries as e')
    .innerJoin('participants as p', 'p.id', 'e.participant_id')
    // total_referrals as the interface reads it: the column plus the deltas not yet folded.
    .select(['p.email', 'e.seq', counted === 'total_referrals' ? referralsExact('p').as('r') : 'p.credited_referrals as r'])
    .where('e.campaign_id', '=', id)
    .where('e.granted_on', 'is', null)
    .execute();
  return rows
    .map((r) => ({ email: r.email, seq: Number(r.seq), key: Number(r.seq) - spots * Number(r.r) }))
    .sort((a, b) => a.key - b.key || b.seq - a.seq)
    .map((r) => r.email);
}

const eventsOf = async (s: TestService, type: string) =>
  Number((await s.ctx.store.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll().as('n')).where('event_type', '=', type).executeTakeFirstOrThrow()).n);

eachDatabase(
  'waitlist',
  (service) => {
    it('is off by default; settings are saved, shown and refused when bad (400, nothing changed); grantAccess is 404 without a waitlist', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'before@example.com' });
      assert.equal(await placeOf(s, id, 'before@example.com'), undefined);
      await rejects(() => s.admin.grantAccess({ id, count: 1 }), 404, 'not_found', 'id');
      await rejects(() => s.admin.getWaitlist(id), 404, 'not_found', 'id');
      await rejects(() => s.admin.grantAccess({ id: 'cmp_nope', count: 1 }), 404, 'campaign_not_found', 'id');
      const settingsOf = async () => (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!.waitlist;
      assert.equal(await settingsOf(), null);
      assert.equal((await s.browser.getWidgetSettings(id)).waitlist, undefined);

      for (const bad of [{ spotsPerReferral: 0 }, { spotsPerReferral: 1001 }, { spotsPerReferral: 1.5 }, { spotsPerReferral: 5, counts: 'clicks' }, { spotsPerReferral: 5, extra: 1 }, {}]) {
        await rejects(() => s.admin.updateCampaign({ id, waitlist: bad as never }), 400, 'invalid_request');
      }
      assert.equal(await settingsOf(), null);
      await s.admin.updateCampaign({ id, waitlist: { spotsPerReferral: 5 } });
      assert.deepEqual(await settingsOf(), { spotsPerReferral: 5, counts: 'signups' });
      assert.deepEqual((await s.browser.getWidgetSettings(id)).waitlist, { spotsPerReferral: 5, counts: 'signups' });
      // Joined before the waitlist began: no place, counted as let in.
      assert.deepEqual(await placeOf(s, id, 'before@example.com'), { position: null, of: 0, granted: true, spotsPerReferral: 5 });
      await s.admin.addParticipant({ id, email: 'first@example.com' });
      assert.deepEqual(await placeOf(s, id, 'first@example.com'), { position: 1, of: 1, granted: false, spotsPerReferral: 5 });
      assert.deepEqual(await placeOf(s, id, 'before@example.com'), { position: null, of: 1, granted: true, spotsPerReferral: 5 });

      // The same settings again change nothing; others while it is on are refused.
      await s.admin.updateCampaign({ id, waitlist: { spotsPerReferral: 5, counts: 'signups' } });
      await rejects(() => s.admin.updateCampaign({ id, waitlist: { spotsPerReferral: 6 } }), 400, 'invalid_request', 'waitlist');
      await rejects(() => s.admin.grantAccess({ id, count: 0 }), 400, 'invalid_request');
      await rejects(() => s.admin.grantAccess({ id, emails: [] }), 400, 'invalid_request');
      await rejects(() => s.admin.grantAccess({ id, count: 1, emails: ['a@example.com'] } as never), 400, 'invalid_request');
      await rejects(() => s.admin.grantAccess({ id, emails: ['not an email'] }), 400, 'invalid_request');
      assert.deepEqual(await placeOf(s, id, 'first@example.com'), { position: 1, of: 1, granted: false, spotsPerReferral: 5 });
    });

    it('positions follow sign-up order, each referred sign-up moving its referrer up spotsPerReferral places; grants let in the first N or those named, once, with access_granted', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ waitlist: { spotsPerReferral: 2 } });
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['access_granted'] });
      const emails = Array.from({ length: 8 }, (_, i) => `p${i}@example.com`);
      for (const email of emails) await s.admin.addParticipant({ id, email });
      assert.deepEqual(await positions(s, id, emails), [1, 2, 3, 4, 5, 6, 7, 8]);
      const p6 = await s.admin.getParticipant(id, 'p6@example.com');
      await s.admin.addParticipant({ id, email: 'f1@example.com', referredByCode: p6.referralCode! });
      // p6, 7th, moves 2 places up: 5th. Its key is 4, as p4's (seq 4): at equal keys the later sign-up
      // (the one with more referrals) is ahead, so it passes both p5 and p4.
      assert.deepEqual(await positions(s, id, [...emails, 'f1@example.com']), [1, 2, 3, 4, 6, 7, 5, 8, 9]);
      await s.admin.addParticipant({ id, email: 'f2@example.com', referredByCode: p6.referralCode! });
      await s.admin.addParticipant({ id, email: 'f3@example.com', referredByCode: p6.referralCode! });
      await s.admin.addParticipant({ id, email: 'f4@example.com', referredByCode: p6.referralCode! });
      // Key 6 - 8 = -2: first.
      assert.deepEqual(await placeOf(s, id, 'p6@example.com'), { position: 1, of: 12, granted: false, spotsPerReferral: 2 });
      assert.deepEqual(await positions(s, id, emails), [2, 3, 4, 5, 6, 7, 1, 8]);

      const first = await s.admin.grantAccess({ id, count: 3 });
      assert.deepEqual(first, { granted: ['p6', 'p0', 'p1'].map((n) => ({ participantId: first.granted.find((g) => g.email === `${n}@example.com`)!.participantId, email: `${n}@example.com` })), unknown: [] });
      assert.deepEqual(await placeOf(s, id, 'p6@example.com'), { position: null, of: 9, granted: true, spotsPerReferral: 2 });
      assert.deepEqual(await positions(s, id, ['p2@example.com', 'p7@example.com', 'f4@example.com']), [1, 5, 9]);
      assert.equal(await eventsOf(s, 'access_granted'), 3);
      // A granted referrer does not move any more; their code still works.
      await s.admin.addParticipant({ id, email: 'f5@example.com', referredByCode: p6.referralCode! });
      assert.equal((await placeOf(s, id, 'p6@example.com'))!.position, null);

      const named = await s.admin.grantAccess({ id, emails: ['P7@Example.com', 'p0@example.com', 'nobody@example.com', 'f5@example.com'] });
      assert.deepEqual(named.granted.map((g) => g.email), ['p7@example.com', 'f5@example.com']);
      assert.deepEqual(named.unknown, ['nobody@example.com']);
      assert.equal(await eventsOf(s, 'access_granted'), 5);
      // Granting the granted again does nothing.
      assert.deepEqual(await s.admin.grantAccess({ id, emails: ['p7@example.com'] }), { granted: [], unknown: [] });
      assert.equal(await eventsOf(s, 'access_granted'), 5);
      assert.deepEqual(await positions(s, id, ['p2@example.com', 'f4@example.com']), [1, 8]);
      assert.equal((await placeOf(s, id, 'p2@example.com'))!.of, 8);
      const view = await s.admin.getWaitlist(id, 2);
      assert.deepEqual([view.waiting, view.granted], [8, 5]);
      assert.deepEqual(view.queue.map((e) => [e.position, e.email]), [[1, 'p2@example.com'], [2, 'p3@example.com']]);
      assert.equal((await s.admin.getWaitlist(id)).queue.length, 8);
      await rejects(() => s.admin.getWaitlist(id, 0), 400, 'invalid_request');
      // More than are waiting: all of them.
      assert.equal((await s.admin.grantAccess({ id, count: 1000 })).granted.length, 8);
      assert.deepEqual(await s.admin.grantAccess({ id, count: 5 }), { granted: [], unknown: [] });
      assert.equal(await eventsOf(s, 'access_granted'), 13);
    });

    it('launch: turning the waitlist off keeps codes, links and referrals, hides positions, and it cannot begin again', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ waitlist: { spotsPerReferral: 3 } });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'bob@example.com', referredByCode: ann.referralCode! });
      await s.admin.updateCampaign({ id, waitlist: null });
      assert.equal(await placeOf(s, id, 'ann@example.com'), undefined);
      await rejects(() => s.admin.grantAccess({ id, count: 1 }), 404, 'not_found', 'id');
      await s.admin.addParticipant({ id, email: 'cy@example.com', referredByCode: ann.referralCode! });
      const after = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(after.referralCode, ann.referralCode);
      assert.equal(after.totalReferrals, 2);
      await rejects(() => s.admin.updateCampaign({ id, waitlist: { spotsPerReferral: 3 } }), 400, 'invalid_request', 'waitlist');
      assert.equal((await s.admin.listCampaigns()).find((c) => c.campaignId === id)!.waitlist, null);
    });

    it('imported participants queue in the file order, and an imported referral moves its referrer', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ waitlist: { spotsPerReferral: 2 } });
      await s.admin.addParticipant({ id, email: 'first@example.com' });
      assert.deepEqual(await s.admin.importParticipants(id, 'email,referredByEmail\na@example.com,\nb@example.com,\nc@example.com,b@example.com\n'), { created: 3, skipped: 0 });
      // b, 3rd, moves 2 places up: 1st.
      assert.deepEqual(await naiveQueue(s, id, 2, 'total_referrals'), ['b@example.com', 'first@example.com', 'a@example.com', 'c@example.com']);
      assert.deepEqual(await positions(s, id, ['first@example.com', 'a@example.com', 'b@example.com', 'c@example.com']), [2, 3, 1, 4]);
    });

    it("counts 'qualified': only credited referrals move the referrer, and a refund that undoes one moves them back", async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ waitlist: { spotsPerReferral: 10, counts: 'qualified' }, holdDays: 30 });
      for (let i = 0; i < 5; i++) await s.admin.addParticipant({ id, email: `p${i}@example.com` });
      const p4 = await s.admin.getParticipant(id, 'p4@example.com');
      await s.admin.addParticipant({ id, email: 'f@example.com', referredByCode: p4.referralCode! });
      assert.equal((await placeOf(s, id, 'p4@example.com'))!.position, 5);
      await s.admin.qualifyParticipant({ id, email: 'f@example.com', amountPaid: '10.00' });
      assert.equal((await placeOf(s, id, 'p4@example.com'))!.position, 1);
      await s.admin.refundPayment({ id, email: 'f@example.com', amount: '10.00' });
      assert.equal((await placeOf(s, id, 'p4@example.com'))!.position, 5);
    });

    it('parallel sign-ups, referred sign-ups and grants leave the positions of some serial order', async () => {
      clock.now = START;
      const s = service();
      const spots = 3;
      const id = await s.campaign({ waitlist: { spotsPerReferral: spots } });
      const referrers: string[] = [];
      for (let r = 0; r < 6; r++) referrers.push((await s.admin.addParticipant({ id, email: `r${r}@example.com` })).referralCode!);
      const joiners = Array.from({ length: 40 }, (_, i) => `j${i}@example.com`);
      await Promise.all(joiners.map((email, i) => s.admin.addParticipant({ id, email, ...(i % 2 === 0 && { referredByCode: referrers[i % 6]! }) })));
      const all = [...Array.from({ length: 6 }, (_, r) => `r${r}@example.com`), ...joiners];
      const seqs = await s.ctx.store.db.selectFrom('waitlist_entries').select('seq').where('campaign_id', '=', id).orderBy('seq').execute();
      assert.deepEqual(seqs.map((r) => Number(r.seq)), all.map((_, i) => i));
      let queue = await naiveQueue(s, id, spots, 'total_referrals');
      assert.deepEqual(await positions(s, id, queue), queue.map((_, i) => i + 1));

      // Grants in parallel with more sign-ups: each granted once, the rest 1..n.
      const more = Array.from({ length: 20 }, (_, i) => `m${i}@example.com`);
      const results = await Promise.all([
        ...[3, 3, 3, 3].map((count) => s.admin.grantAccess({ id, count })),
        ...more.map((email, i) => s.admin.addParticipant({ id, email, referredByCode: referrers[i % 6]! }).then(() => undefined)),
      ]);
      const granted = results.flatMap((r) => r?.granted.map((g) => g.email) ?? []);
      assert.equal(granted.length, 12);
      assert.equal(new Set(granted).size, 12);
      queue = await naiveQueue(s, id, spots, 'total_referrals');
      assert.equal(queue.length, all.length + more.length - 12);
      assert.ok(granted.every((e) => !queue.includes(e)));
      assert.deepEqual(await positions(s, id, queue), queue.map((_, i) => i + 1));
      assert.equal((await placeOf(s, id, queue[0]!))!.of, queue.length);
    });

    it('a position from the bucket deltas is the place in a full sort, across buckets and below zero', async () => {
      clock.now = START;
      const s = service();
      const spots = 300;
      const id = await s.campaign({ waitlist: { spotsPerReferral: spots } });
      const people = 2 * WAIT_BUCKET + 400;
      const ids: number[] = [];
      // Participants written directly (the sign-up path is tested above), each joining the queue.
      for (let from = 0; from < people; from += 250) {
        const rows = await s.ctx.store.db
          .insertInto('participants')
          .values(Array.from({ length: Math.min(250, people - from) }, (_, i) => ({ campaign_id: id, email: `p${from + i}@example.com`, email_key: `p${from + i}@example.com`, code: `CODE${from + i}`, created_on: START, updated_on: START, signup_source: 'api' as const })))
          .returning('id')
          .execute();
        ids.push(...rows.map((r) => Number(r.id)));
      }
      const model = new Map<number, { seq: number; key: number }>();
      // Joined and moved in transactions of STEPS_PER_TRANSACTION calls: each call's rows and arithmetic are
      // what it would write alone, and a commit apiece (thousands of disk syncs) was most of this test's time.
      for (let from = 0; from < ids.length; from += STEPS_PER_TRANSACTION) {
        await s.ctx.store.transaction(async (tx) => {
          for (const p of ids.slice(from, from + STEPS_PER_TRANSACTION)) model.set(p, { seq: await tx.waitlists.join(id, p), key: 0 });
        });
      }
      for (const m of model.values()) m.key = m.seq;
      let seed = 11;
      // The high bits of a linear congruential generator (its low bits repeat with short periods).
      const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
      for (let from = 0; from < 1500; from += STEPS_PER_TRANSACTION) await s.ctx.store.transaction(async (tx) => {
      for (let step = from; step < Math.min(1500, from + STEPS_PER_TRANSACTION); step++) {
        const roll = random(40);
        // Grants of the first N take the front: only in the first half, so that some keys stay below zero.
        if (roll === 0 && step < 750) {
          const count = 1 + random(3);
          const granted = await tx.waitlists.grant(id, { count }, START);
          const expected = [...model].sort(([, a], [, b]) => a.key - b.key || b.seq - a.seq).slice(0, count).map(([p]) => p);
          assert.deepEqual(granted.map((g) => g.participantId), expected);
          for (const p of expected) model.delete(p);
        } else if (roll === 1) {
          const p = ids[random(people)]!;
          await tx.waitlists.grant(id, { participantIds: [p] }, START);
          model.delete(p);
        } else {
          // Mostly forward, sometimes back (a refund): keys cross buckets both ways; the first 40, who
          // refer a lot, go below zero.
          const p = ids[random(2) === 0 ? random(40) : random(people)]!;
          const by = roll < 8 ? spots : -spots;
          await tx.waitlists.move(id, p, by);
          const m = model.get(p);
          if (m) m.key += by;
        }
      }
      });
      assert.ok([...model.values()].some((m) => m.key < 0), 'some keys went below zero');
      const deltas = await s.ctx.store.db.selectFrom('waitlist_deltas').select('bucket').where('campaign_id', '=', id).execute();
      assert.ok(deltas.length > 3, `deltas in ${deltas.length} buckets`);
      const sorted = [...model].sort(([, a], [, b]) => a.key - b.key || b.seq - a.seq);
      for (const [place, [p]] of sorted.entries()) assert.deepEqual(await s.ctx.store.waitlists.standing(id, p), { position: place + 1, of: model.size });
      for (const p of ids.filter((q) => !model.has(q))) assert.deepEqual(await s.ctx.store.waitlists.standing(id, p), { position: null, of: model.size });
    });
  },
  { now: () => clock.now },
);
