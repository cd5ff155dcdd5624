/**
 * The reward ledger: every credit and redemption appends its entry in the transaction that moves the
 * participant's counters, so the counters are always the sums of the entries (ledgerTotals), however
 * calls interleave; listRewardEntries shows a participant's entries, newest first.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { RefkitClient } from '../../src/api/client.js';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { rejects } from './helpers/assert.js';
import { assertCountersAreTheLedger } from './helpers/ledger.js';
import { ownerSignedIn } from './helpers/owner.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

/** Fetches a list route with the secret key: its status, body and Link header. */
async function getRaw(s: TestService, path: string, headers: Record<string, string> = { authorization: `Bearer ${s.secretKey}` }) {
  const res = await fetch(s.url + path, { headers });
  return { status: res.status, body: (await res.json()) as unknown, link: res.headers.get('link') };
}

eachDatabase('reward ledger', (service) => {
  it('qualify, approve and redeem each write their entries, and the counters are their sums', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann.lee@gmail.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    // An alias of the referrer: held for review, so its referral is credited by the approval.
    await s.browser.addParticipant({ id, email: 'annlee+promo@gmail.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '12.50' });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '3.00' });
    await s.admin.qualifyParticipant({ id, email: 'annlee+promo@gmail.com' });
    assert.deepEqual((await s.admin.listRewardEntries(id, 'annlee+promo@gmail.com')).length, 0, 'a held referral writes nothing');
    await s.admin.approveParticipant(id, 'annlee+promo@gmail.com');
    await s.admin.redeemReward({ id, email: 'ann.lee@gmail.com', kind: 'referral', amount: 15 });
    await rejects(() => s.admin.redeemReward({ id, email: 'ann.lee@gmail.com', kind: 'referral', amount: 6 }), 409, 'insufficient_balance');

    const annEntries = await s.admin.listRewardEntries(id, 'ann.lee@gmail.com');
    assert.deepEqual(
      annEntries.map((e) => [e.kind, e.rewardKind, e.amount, e.status, e.refereeEmail]),
      [
        ['redemption', 'referral', -15, 'available', undefined],
        ['referral', 'referral', 10, 'available', 'annlee+promo@gmail.com'],
        ['referral', 'referral', 10, 'available', 'ben@example.com'],
      ],
    );
    const ben = await s.admin.listRewardEntries(id, 'ben@example.com');
    assert.deepEqual(ben.map((e) => [e.kind, e.rewardKind, e.amount, e.status, e.refereeEmail]), [['referee', 'referee', 5, 'available', 'ben@example.com']]);
    assert.match(ben[0]!.label, /referral/);
    assert.equal(ben[0]!.availableOn, ben[0]!.createdOn);
    const after = await s.admin.getParticipant(id, 'ann.lee@gmail.com');
    assert.deepEqual([after.referralReward, after.referralRewardRedeemed, after.referralRewardBalance], [20, 15, 5]);
    assert.equal(await assertCountersAreTheLedger(s, id), 5, 'the failed redemption wrote nothing');
  });

  it('over any sequence of sign-ups, qualifications, approvals and redemptions, the counters are the sums of the entries', async () => {
    const s = service();
    // Who signs up through whom: index into the participants so far; `alias` signs up as an alias of
    // the referrer's gmail address (held for review); then what is done to whom.
    const op = fc.oneof(
      fc.record({ t: fc.constant('signup' as const), referrer: fc.nat(), alias: fc.boolean() }),
      fc.record({ t: fc.constant('qualify' as const), who: fc.nat(), paid: fc.option(fc.integer({ min: 1, max: 9999 }), { nil: undefined }) }),
      fc.record({ t: fc.constant('approve' as const), who: fc.nat() }),
      fc.record({ t: fc.constant('redeem' as const), who: fc.nat(), kind: fc.constantFrom('referral' as const, 'referee' as const), amount: fc.integer({ min: 1, max: 12 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const id = await s.campaign();
        const emails = ['p0@gmail.com'];
        const codes = [(await s.admin.addParticipant({ id, email: emails[0]! })).referralCode!];
        const pick = (n: number) => emails[n % emails.length]!;
        for (const o of ops) {
          const call = async (): Promise<unknown> => {
            if (o.t === 'signup') {
              const r = o.referrer % emails.length;
              const email = o.alias ? `${pick(r).split('@')[0]}+${emails.length}@gmail.com` : `p${emails.length}@gmail.com`;
              const p = await (o.alias ? s.browser : s.admin).addParticipant({ id, email, referredByCode: codes[r]! });
              emails.push(email);
              return codes.push(p.referralCode!);
            }
            if (o.t === 'qualify') return s.admin.qualifyParticipant({ id, email: pick(o.who), ...(o.paid && { amountPaid: (o.paid / 100).toFixed(2) }) });
            if (o.t === 'approve') return s.admin.approveParticipant(id, pick(o.who));
            return s.admin.redeemReward({ id, email: pick(o.who), kind: o.kind, amount: o.amount });
          };
          // Refusals (not referred, balance too low) are part of the sequence: they must change nothing.
          await call().catch((err: { status?: number }) => assert.ok(err.status === 409, String(err)));
        }
        await assertCountersAreTheLedger(s, id);
      }),
      { numRuns: 12 },
    );
  });

  it("concurrent qualifications and redemptions of one referrer's referees leave the ledger and the counters equal", async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const referees = Array.from({ length: 12 }, (_, i) => `r${i}@example.com`);
    for (const email of referees) await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
    const redeemed = await Promise.all([
      ...referees.flatMap((email) => [s.admin.qualifyParticipant({ id, email, amountPaid: '1.00' }), s.admin.qualifyParticipant({ id, email })]),
      ...Array.from({ length: 12 }, () =>
        s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 7 }).then(
          () => 1,
          (err: { status?: number }) => (assert.equal(err.status, 409), 0),
        ),
      ),
    ]);
    const after = await s.admin.getParticipant(id, 'ann@example.com');
    assert.equal(after.referralReward, 120, 'each referral credited once');
    const redemptions = redeemed.filter((r) => r === 1).length;
    assert.equal(after.referralRewardRedeemed, 7 * redemptions);
    // 12 referee entries, 12 referral entries, and one per redemption that succeeded.
    assert.equal(await assertCountersAreTheLedger(s, id), 24 + redemptions);
  });

  it('listRewardEntries pages newest first, by page or by the cursor in the Link header', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const referees = Array.from({ length: 5 }, (_, i) => `r${i}@example.com`);
    for (const email of referees) {
      await s.admin.addParticipant({ id, email, referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email });
    }
    const all = await s.admin.listRewardEntries(id, 'ann@example.com', { pageSize: 100 });
    assert.deepEqual(all.map((e) => e.refereeEmail), [...referees].reverse());
    const sorted = [...all].sort((a, b) => b.createdOn.localeCompare(a.createdOn) || b.id - a.id);
    assert.deepEqual(all, sorted);

    const q = `/api/v1/admin/listRewardEntries?id=${id}&email=ann@example.com`;
    const second = await getRaw(s, `${q}&page=2&pageSize=2`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, all.slice(2, 4));
    const followed: unknown[] = [];
    let next: string | undefined = `${q}&pageSize=2`;
    while (next) {
      const page = await getRaw(s, next);
      followed.push(...(page.body as unknown[]));
      next = page.link?.match(/^<([^>]+)>; rel="next"$/)?.[1]?.replace(s.url, '');
    }
    assert.deepEqual(followed, all);
  });

  it('listRewardEntries refuses what it cannot answer, each in the error envelope', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await rejects(() => s.admin.listRewardEntries(id, 'nobody@example.com'), 404, 'participant_not_found');
    await rejects(() => s.admin.listRewardEntries('cmp_nope', 'ann@example.com'), 404, 'campaign_not_found');
    await rejects(() => s.browser.listRewardEntries(id, 'ann@example.com'), 401, 'unauthorized');
    await rejects(() => s.admin.listRewardEntries(id, 'not an email'), 400, 'invalid_request', 'email');
    await rejects(() => s.admin.listRewardEntries(id, 'ann@example.com', { pageSize: 0 }), 400, 'invalid_request', 'pageSize');
    await rejects(() => s.admin.listRewardEntries(id, 'ann@example.com', { cursor: 'bm90IG91cnM' }), 400, 'invalid_request', 'cursor');
    const missing = await getRaw(s, `/api/v1/admin/listRewardEntries?id=${id}`);
    assert.equal(missing.status, 400);
    assert.equal((missing.body as { error: { code: string } }).error.code, 'invalid_request');

    // Another account's key does not see this account's campaign.
    await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).execute();
    const theirs = await createApiKey(s.ctx, { accountId: 2 }, 'theirs');
    const other = new RefkitClient({ baseUrl: s.url, secretKey: theirs.key });
    await rejects(() => other.listRewardEntries(id, 'ann@example.com'), 404, 'campaign_not_found');
  });

  it("an owner's session lists the ledger as the secret key does", async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
    const owner = await ownerSignedIn(s);
    const listed = await owner.cookieOnly.listRewardEntries(id, 'ann@example.com');
    assert.equal(listed.length, 1);
    assert.deepEqual(listed, await s.admin.listRewardEntries(id, 'ann@example.com'));
  });
});
