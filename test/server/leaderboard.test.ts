/**
 * Leaderboards on both databases: off by default, settings and their refusals, ranks by qualified
 * referrals with ties to whoever got there first, display names that never show an email, held
 * participants left out, a participant's own rank in getMyReferrals, the monthly board beginning anew on
 * the first in the campaign's time zone, a refund moving its referrer back, parallel credits, and ranks
 * read from the count tables against a full sort of a random history.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { issueToken } from '../../src/server/referrals/domain/proof.js';
import { BOARD_BLOCK, BOARD_SPAN } from '../../src/server/engagement/store/leaderboard-store.js';
import { rejects } from './helpers/assert.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const START = Date.parse('2026-03-10T12:00:00Z');
const clock = { now: START };
/** The property test's moves, committed this many at a time (see where it is used). */
const STEPS_PER_TRANSACTION = 64;

async function tokenOf(s: TestService, id: string, email: string): Promise<string> {
  const p = await s.ctx.store.findParticipantByEmail(id, email);
  return issueToken(s.ctx.store, p!.id, s.ctx.now());
}

/** A referrer (with the names given) and a counter of referees, each qualified at once. */
async function referrer(s: TestService, id: string, email: string, names: { firstName?: string; lastName?: string } = {}) {
  const p = await s.admin.addParticipant({ id, email, ...names });
  let n = 0;
  return {
    email,
    /** Signs up and qualifies `count` referees of theirs, one after another. */
    async refer(count = 1) {
      for (let i = 0; i < count; i++) {
        const referee = `${email.split('@')[0]}-friend${n++}@example.com`;
        await s.admin.addParticipant({ id, email: referee, referredByCode: p.referralCode! });
        await s.admin.qualifyParticipant({ id, email: referee });
      }
    },
  };
}

const rankOf = async (s: TestService, id: string, email: string) => (await s.browser.getMyReferrals(id, { token: await tokenOf(s, id, email) })).leaderboard;

eachDatabase(
  'leaderboard',
  (service, kind) => {
    it('is off by default: getLeaderboard is 404 and getMyReferrals has no rank; settings are saved, shown, and bad ones are 400 changing nothing', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await rejects(() => s.browser.getLeaderboard(id), 404, 'not_found', 'id');
      await rejects(() => s.browser.getLeaderboard('cmp_nope'), 404, 'campaign_not_found', 'id');
      assert.equal(await rankOf(s, id, 'ann@example.com'), undefined);
      assert.equal((await s.browser.getWidgetSettings(id)).leaderboard, undefined);
      let settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual([settings.leaderboard, settings.timeZone], [null, 'UTC']);

      await s.admin.updateCampaign({ id, leaderboard: { period: 'month', size: 5 }, timeZone: 'europe/berlin' });
      settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual([settings.leaderboard, settings.timeZone], [{ period: 'month', size: 5 }, 'Europe/Berlin']);
      assert.deepEqual((await s.browser.getWidgetSettings(id)).leaderboard, { period: 'month', size: 5 });
      assert.deepEqual(await s.browser.getLeaderboard(id), []);
      assert.deepEqual(await rankOf(s, id, 'ann@example.com'), { period: 'month', rank: null, referrals: 0 });

      await rejects(() => s.admin.updateCampaign({ id, timeZone: 'Mars/Olympus_Mons' }), 400, 'invalid_request', 'timeZone');
      await rejects(() => s.admin.updateCampaign({ id, leaderboard: { period: 'week', size: 5 } as never }), 400, 'invalid_request');
      await rejects(() => s.admin.updateCampaign({ id, leaderboard: { period: 'all', size: 0 } }), 400, 'invalid_request');
      await rejects(() => s.admin.updateCampaign({ id, leaderboard: { period: 'all', size: 101 } }), 400, 'invalid_request');
      await rejects(() => s.admin.updateCampaign({ id, leaderboard: { period: 'all', size: 3, extra: 1 } as never }), 400, 'invalid_request');
      settings = (await s.admin.listCampaigns()).find((c) => c.campaignId === id)!;
      assert.deepEqual([settings.leaderboard, settings.timeZone], [{ period: 'month', size: 5 }, 'Europe/Berlin']);

      await s.admin.updateCampaign({ id, leaderboard: null });
      await rejects(() => s.browser.getLeaderboard(id), 404, 'not_found', 'id');
    });

    it("is public like getCampaign: the campaign's origins get CORS headers and a preflight; another origin is 403 forbidden_origin", async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ hostURL: 'https://shop.example/join', leaderboard: { period: 'all', size: 3 } });
      const get = (origin: string) => fetch(`${s.url}/api/v1/getLeaderboard?id=${id}`, { headers: { origin } });
      const allowed = await get('https://shop.example');
      assert.equal(allowed.status, 200);
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://shop.example');
      assert.deepEqual(await allowed.json(), []);
      const preflight = await fetch(`${s.url}/api/v1/getLeaderboard?id=${id}`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
      const refused = await get('https://elsewhere.example');
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'forbidden_origin');
    });

    it('ranks by qualified referrals, ties to whoever got there first; names are first name and initial or a masked email; held participants are left out', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ leaderboard: { period: 'all', size: 3 } });
      const ann = await referrer(s, id, 'ann@example.com', { firstName: 'Ann Marie', lastName: 'lee' });
      const bob = await referrer(s, id, 'bob.smith@example.com');
      const cy = await referrer(s, id, 'cy@example.com', { firstName: 'Cy' });
      const dee = await referrer(s, id, 'dee@example.com', { firstName: 'Dee', lastName: 'Ray' });
      // A referee who signed up but has not qualified counts for nothing.
      await s.admin.addParticipant({ id, email: 'joined@example.com', referredByCode: (await s.admin.getParticipant(id, 'dee@example.com')).referralCode! });

      await bob.refer(1); // bob reaches 1 first
      await ann.refer(1); // ann reaches 1 second
      await cy.refer(2); // cy reaches 2
      await ann.refer(1); // ann reaches 2 after cy
      assert.deepEqual(await s.browser.getLeaderboard(id), [
        { rank: 1, name: 'Cy', referrals: 2 },
        { rank: 2, name: 'Ann L.', referrals: 2 },
        { rank: 3, name: 'b***@example.com', referrals: 1 },
      ]);
      const body = JSON.stringify(await s.browser.getLeaderboard(id));
      assert.ok(!body.includes('bob.smith') && !body.includes('Marie') && !body.includes('lee'), body);
      assert.deepEqual(await rankOf(s, id, 'cy@example.com'), { period: 'all', rank: 1, referrals: 2 });
      assert.deepEqual(await rankOf(s, id, 'bob.smith@example.com'), { period: 'all', rank: 3, referrals: 1 });
      assert.deepEqual(await rankOf(s, id, 'dee@example.com'), { period: 'all', rank: null, referrals: 0 });

      // Cy is held for review (as a squatting hold does to a referee who also refers): off the board.
      await s.ctx.store.db.updateTable('participants').set({ approval: 0 }).where('email', '=', 'cy@example.com').execute();
      assert.deepEqual(await s.browser.getLeaderboard(id), [
        { rank: 1, name: 'Ann L.', referrals: 2 },
        { rank: 2, name: 'b***@example.com', referrals: 1 },
      ]);
      assert.deepEqual(await rankOf(s, id, 'cy@example.com'), { period: 'all', rank: null, referrals: 2 });
      await s.admin.approveParticipant(id, 'cy@example.com');

      // A held referee's referral counts only once it is approved and credited.
      const deeCode = (await s.admin.getParticipant(id, 'dee@example.com')).referralCode!;
      await s.admin.addParticipant({ id, email: 'held@example.com', referredByCode: deeCode });
      await s.ctx.store.db.updateTable('participants').set({ approval: 0, fraud_score: 'high' }).where('email', '=', 'held@example.com').execute();
      await s.admin.qualifyParticipant({ id, email: 'held@example.com' });
      assert.equal((await rankOf(s, id, 'dee@example.com'))!.referrals, 0);
      await s.admin.approveParticipant(id, 'held@example.com');
      assert.deepEqual(await rankOf(s, id, 'dee@example.com'), { period: 'all', rank: 4, referrals: 1 });
      await dee.refer(2);
      assert.deepEqual((await s.browser.getLeaderboard(id))[0], { rank: 1, name: 'Dee R.', referrals: 3 });
    });

    it('a month board begins empty on the first of the month in the campaign time zone; the all-time board keeps counting', async () => {
      // 03:30 UTC on 1 April is still 31 March in New York (UTC-4).
      clock.now = Date.parse('2026-04-01T03:30:00Z');
      const s = service();
      const id = await s.campaign({ leaderboard: { period: 'month', size: 10 }, timeZone: 'America/New_York' });
      const ann = await referrer(s, id, 'ann@example.com', { firstName: 'Ann' });
      const bob = await referrer(s, id, 'bob@example.com', { firstName: 'Bob' });
      await ann.refer(2);
      assert.deepEqual(await s.browser.getLeaderboard(id), [{ rank: 1, name: 'Ann', referrals: 2 }]);

      clock.now = Date.parse('2026-04-01T04:00:00Z'); // midnight in New York: April
      assert.deepEqual(await s.browser.getLeaderboard(id), []);
      assert.deepEqual(await rankOf(s, id, 'ann@example.com'), { period: 'month', rank: null, referrals: 0 });
      await bob.refer(1);
      await ann.refer(1);
      assert.deepEqual(await s.browser.getLeaderboard(id), [
        { rank: 1, name: 'Bob', referrals: 1 },
        { rank: 2, name: 'Ann', referrals: 1 },
      ]);
      await s.admin.updateCampaign({ id, leaderboard: { period: 'all', size: 10 } });
      assert.deepEqual(await s.browser.getLeaderboard(id), [
        { rank: 1, name: 'Ann', referrals: 3 },
        { rank: 2, name: 'Bob', referrals: 1 },
      ]);
      assert.deepEqual(await rankOf(s, id, 'bob@example.com'), { period: 'all', rank: 2, referrals: 1 });
    });

    it('a referral undone by a full refund moves its referrer back down', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ leaderboard: { period: 'all', size: 10 }, holdDays: 30 });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann' });
      const bob = await referrer(s, id, 'bob@example.com', { firstName: 'Bob' });
      await bob.refer(1);
      for (const email of ['r1@example.com', 'r2@example.com']) {
        await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
        await s.admin.qualifyParticipant({ id, email, amountPaid: '10.00' });
      }
      assert.deepEqual((await s.browser.getLeaderboard(id)).map((e) => [e.name, e.referrals]), [['Ann', 2], ['Bob', 1]]);
      await s.admin.refundPayment({ id, email: 'r1@example.com', amount: '10.00' });
      // Back at one referral, reached now: after Bob.
      assert.deepEqual((await s.browser.getLeaderboard(id)).map((e) => [e.name, e.referrals]), [['Bob', 1], ['Ann', 1]]);
      await s.admin.refundPayment({ id, email: 'r2@example.com', amount: '10.00' });
      assert.deepEqual((await s.browser.getLeaderboard(id)).map((e) => [e.name, e.referrals]), [['Bob', 1]]);
      assert.deepEqual(await rankOf(s, id, 'ann@example.com'), { period: 'all', rank: null, referrals: 0 });
    });

    it('credits made in parallel leave a board whose ranks are 1..n, as some serial order would', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign({ leaderboard: { period: 'all', size: 100 } });
      const referrers = 12;
      const referees: string[] = [];
      for (let r = 0; r < referrers; r++) {
        const p = await s.admin.addParticipant({ id, email: `r${r}@example.com` });
        for (let k = 0; k <= r % 4; k++) {
          const email = `r${r}-f${k}@example.com`;
          await s.admin.addParticipant({ id, email, referredByCode: p.referralCode! });
          referees.push(email);
        }
      }
      await Promise.all(referees.map((email) => s.admin.qualifyParticipant({ id, email })));
      const board = await s.browser.getLeaderboard(id);
      assert.equal(board.length, referrers);
      assert.equal(board.reduce((n, e) => n + e.referrals, 0), referees.length);
      const ranks = await Promise.all(Array.from({ length: referrers }, (_, r) => rankOf(s, id, `r${r}@example.com`)));
      assert.deepEqual(ranks.map((m) => m!.rank).sort((a, b) => a! - b!), board.map((e) => e.rank));
      for (let r = 0; r < referrers; r++) assert.equal(ranks[r]!.referrals, (r % 4) + 1);
    });

    it('a rank from the count tables is the place in a full sort, across blocks and spans of arrivals', async () => {
      clock.now = START;
      const s = service();
      const id = await s.campaign();
      const people = 60;
      const ids: number[] = [];
      for (let i = 0; i < people; i++) {
        await s.admin.addParticipant({ id, email: `p${i}@example.com` });
        ids.push((await s.ctx.store.findParticipantByEmail(id, `p${i}@example.com`))!.id);
      }
      // Arrivals numbered from just before a span's end, so the history crosses a span and several blocks.
      const start = BOARD_SPAN - BOARD_BLOCK - 100;
      if (kind.dialect === 'postgres') await sql`select setval('board_seq', ${start})`.execute(s.ctx.store.db);
      else await sql`update board_seq set n = ${start}`.execute(s.ctx.store.db);
      // A seeded random history of credits and undos, more arrivals than three blocks hold.
      let seed = 7;
      const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
      const model = new Map<number, { score: number; at: number }>();
      let arrival = 0;
      // Moved in transactions of STEPS_PER_TRANSACTION moves: each move's rows and arrival are what it would
      // write alone, and a commit apiece (thousands of disk syncs) was most of this test's time.
      const steps = 3 * BOARD_BLOCK + 200;
      for (let from = 0; from < steps; from += STEPS_PER_TRANSACTION) {
        await s.ctx.store.transaction(async (tx) => {
          for (let step = from; step < Math.min(steps, from + STEPS_PER_TRANSACTION); step++) {
            const who = ids[random(people)]!;
            const m = model.get(who);
            const delta: 1 | -1 = m && random(4) === 0 ? -1 : 1;
            await tx.leaderboards.move(id, 'all', who, delta);
            const score = (m?.score ?? 0) + delta;
            if (score === 0) model.delete(who);
            else model.set(who, { score, at: arrival++ });
          }
        });
      }
      const sorted = [...model.entries()].sort(([, a], [, b]) => b.score - a.score || a.at - b.at);
      for (const [place, [who, m]] of sorted.entries()) {
        assert.deepEqual(await s.ctx.store.leaderboards.standing(id, 'all', who), { rank: place + 1, score: m.score });
      }
      for (const who of ids.filter((p) => !model.has(p))) assert.equal(await s.ctx.store.leaderboards.standing(id, 'all', who), undefined);
    });
  },
  { now: () => clock.now },
);
