/**
 * Vanity codes, on both databases: the rules of a chosen code (length, characters, reserved and offensive
 * words, unique among current and earlier codes, three changes a day), the old code kept as the
 * participant's (share links, sign-ups, validateCode), the widget's route with its proof, two participants
 * racing for one code, and the promotion codes: the new code gets its own, the old one stays active.
 * (The portal's route: portal.test.ts.)
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { issueToken } from '../../src/server/referrals/domain/proof.js';
import { PromotionCodeSync } from '../../src/server/promotions/domain/promotion-code-sync.js';
import { rejects } from './helpers/assert.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import type { TestService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const KEY = 'rk_test_refkitVanity0123456789';
let fake: FakeStripe;
beforeEach(async () => {
  fake = await new FakeStripe().allowKey(KEY).start();
});
afterEach(() => fake.stop());

async function tokenOf(s: TestService, id: string, email: string): Promise<string> {
  const p = await s.ctx.store.findParticipantByEmail(id, email);
  return issueToken(s.ctx.store, p!.id, s.ctx.now());
}

eachDatabase('Vanity codes', (service) => {
  it('a chosen code replaces the old one, which keeps naming its participant: links, sign-ups and validateCode', async () => {
    const s = service();
    const id = await s.campaign();
    const old = (await s.admin.addParticipant({ id, email: 'ann@example.com' })).referralCode!;
    const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: old });
    const changed = await s.admin.setReferralCode(id, 'ann@example.com', ' ann-rocks ');
    assert.equal(changed.referralCode, 'ANN-ROCKS');
    assert.match(changed.shareLink!, /ANN-ROCKS/);
    // Setting it again is no change.
    assert.equal((await s.admin.setReferralCode(id, 'ann@example.com', 'Ann-Rocks')).referralCode, 'ANN-ROCKS');
    assert.equal(await s.browser.validateCode(id, 'ann-rocks'), true);
    assert.equal(await s.browser.validateCode(id, old), true, 'the old code still works');
    // A friend arriving on the old link is still Ann's referee (their referredByCode one of her codes); Ben's referrer is unchanged.
    const cy = await s.browser.addParticipant({ id, email: 'cy@example.com', referredByCode: old.toLowerCase() });
    assert.ok([old, 'ANN-ROCKS'].includes(cy.referredByCode!), cy.referredByCode);
    const dee = await s.admin.addParticipant({ id, email: 'dee@example.com', referredByCode: 'ann-rocks' });
    assert.equal(dee.referredByCode, 'ANN-ROCKS');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).referredByCode, ben.referredByCode);
    assert.deepEqual((await s.admin.getReferrals(id, 'ann@example.com')).map((p) => p.email).sort(), ['ben@example.com', 'cy@example.com', 'dee@example.com']);
    // Taking back the old code makes it current again (no longer an alias).
    assert.equal((await s.admin.setReferralCode(id, 'ann@example.com', old)).referralCode, old);
    assert.equal(await s.browser.validateCode(id, 'ANN-ROCKS'), true);
  });

  it('refuses a code that breaks a rule, naming code, and changes nothing', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = (await s.admin.addParticipant({ id, email: 'ann@example.com' })).referralCode!;
    const ben = (await s.admin.addParticipant({ id, email: 'ben@example.com' })).referralCode!;
    for (const bad of ['abc', 'x'.repeat(25), 'ann_rocks', 'ann rocks', '-ann1', 'ann1-', 'çava1']) {
      await rejects(() => s.admin.setReferralCode(id, 'ann@example.com', bad), 400, 'invalid_request', 'code');
    }
    for (const word of ['admin', 'Refkit', 'SUPPORT', 'shit-deal', 'big-fuck', 'MOTHERFUCKERS']) {
      await rejects(() => s.admin.setReferralCode(id, 'ann@example.com', word), 400, 'code_not_allowed', 'code');
    }
    // A word inside another is fine where it is short (classic, assist), as any other code.
    assert.equal((await s.admin.setReferralCode(id, 'ann@example.com', 'classic-assist')).referralCode, 'CLASSIC-ASSIST');
    // Another's current code, and another's earlier code, are taken.
    await rejects(() => s.admin.setReferralCode(id, 'ann@example.com', ben), 409, 'code_taken', 'code');
    await rejects(() => s.admin.setReferralCode(id, 'ben@example.com', ann), 409, 'code_taken', 'code');
    await rejects(() => s.admin.setReferralCode(id, 'ben@example.com', 'classic-assist'), 409, 'code_taken', 'code');
    await rejects(() => s.admin.setReferralCode(id, 'nobody@example.com', 'good-one'), 404, 'participant_not_found');
    await rejects(() => s.admin.setReferralCode(id, 'ann@example.com', { code: 'x' } as never), 400, 'invalid_request');
    assert.equal((await s.admin.getParticipant(id, 'ben@example.com')).referralCode, ben);
  });

  it('three changes a day; the fourth is 429 and changes nothing', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    for (const code of ['first-1', 'second-2', 'third-3']) await s.admin.setReferralCode(id, 'ann@example.com', code);
    await rejects(() => s.admin.setReferralCode(id, 'ann@example.com', 'fourth-4'), 429, 'rate_limited');
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).referralCode, 'THIRD-3');
  });

  it('two participants asking for one code at once: one has it, the other is told it is taken', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com' });
    const results = await Promise.allSettled([s.admin.setReferralCode(id, 'ann@example.com', 'the-one'), s.admin.setReferralCode(id, 'ben@example.com', 'the-one')]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((refused.reason as { status: number; code: string }).status, 409);
    const holders = [await s.admin.getParticipant(id, 'ann@example.com'), await s.admin.getParticipant(id, 'ben@example.com')].filter((p) => p.referralCode === 'THE-ONE');
    assert.equal(holders.length, 1);
  });

  it('the widget: the participant proves who they are (token or the host\'s signature); without proof 401', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await rejects(() => s.browser.setMyReferralCode(id, 'ann-shop', {}), 401, 'unauthorized');
    await rejects(() => s.browser.setMyReferralCode(id, 'ann-shop', { token: 'pt_made_up' }), 401, 'unauthorized');
    const mine = await s.browser.setMyReferralCode(id, 'ann-shop', { token: await tokenOf(s, id, 'ann@example.com') });
    assert.deepEqual([mine.referralCode, mine.email], ['ANN-SHOP', 'ann@example.com']);
    assert.equal((mine as { fraudScore?: unknown }).fraudScore, undefined, 'the participant\'s own view');
  });

  it('with a referee discount: the new code gets its own promotion code and the old one stays active', async () => {
    const s = service();
    s.ctx.payouts = { publicUrl: s.url, stripeApiUrl: `http://127.0.0.1:${fake.port}` };
    const id = await s.campaign();
    const old = (await s.admin.addParticipant({ id, email: 'ann@example.com' })).referralCode!;
    await s.admin.updateCampaign({ id, stripeRewardKey: KEY, refereeDiscount: { percentOff: 10, duration: 'once' } });
    const sync = () => new PromotionCodeSync(s.ctx, { api: fake.api, retryDelaysMs: [0], timeoutMs: 2000 }).syncNow();
    await sync();
    const oldPromo = await s.browser.getPromotionCode(id, old);
    await s.admin.setReferralCode(id, 'ann@example.com', 'ann-ten');
    await sync();
    const fresh = await s.browser.getPromotionCode(id, 'ann-ten');
    assert.equal(fresh.code, 'ANN-TEN');
    assert.notEqual(fresh.id, oldPromo.id);
    // The old code still has its own promotion code, active in Stripe; her own code is the new one.
    assert.equal((await s.browser.getPromotionCode(id, old)).id, oldPromo.id);
    assert.equal(fake.promotionCodes.get(oldPromo.id)!.active, true);
    assert.deepEqual((await s.admin.getParticipantDetail(id, 'ann@example.com')).promotionCode, { code: 'ANN-TEN', id: fresh.id });
    // A new discount makes codes for both, the earlier code included.
    await s.admin.updateCampaign({ id, refereeDiscount: { percentOff: 20, duration: 'once' } });
    for (let i = 0; i < 3; i++) await sync();
    assert.equal((await s.browser.getPromotionCode(id, old)).percentOff, 20);
    assert.equal((await s.browser.getPromotionCode(id, 'ANN-TEN')).percentOff, 20);
    assert.equal(fake.promotionCodes.get(oldPromo.id)!.active, false);
  });
});
