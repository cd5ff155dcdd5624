/**
 * Campaign time (src/server/kernel/campaign-time.ts) costs a process nothing until a test campaign's clock
 * is ahead: its AsyncLocalStorage scope is entered only then, since the first run() or enterWith() turns
 * on Node's async hooks for the process for good (every promise then costs more). A process serving live
 * campaigns, background passes included, never enters it; a request about a moved test campaign does,
 * and reads that campaign's time while the real time stays the real one.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, beforeEach, it, mock } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { inCampaignTime, realNow } from '../../src/server/kernel/campaign-time.js';
import { releaseAll } from '../../src/server/rewards/domain/reward-release.js';
import { pruneExpired } from '../../src/server/privacy/domain/retention.js';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { StripePayoutSender } from '../../src/server/payouts/domain/stripe-payouts.js';
import { eachDatabase } from './helpers/suite.js';

/** How many times any AsyncLocalStorage scope was entered since the test began. */
let entered: () => { run: number; enterWith: number };
beforeEach(() => {
  const run = mock.method(AsyncLocalStorage.prototype, 'run');
  const enterWith = mock.method(AsyncLocalStorage.prototype, 'enterWith');
  entered = () => ({ run: run.mock.callCount(), enterWith: enterWith.mock.callCount() });
});
afterEach(() => mock.restoreAll());

eachDatabase('campaign time', (service) => {
  it('a process serving live campaigns never enters a campaign time: requests, the releaser, the pruner, the payout sender', async () => {
    const s = service();
    const id = await s.campaign({ referrerRewardValue: 10, holdDays: 1, referrerRewardPercent: 10 });
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.browser.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '10.00' });
    await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '10.00' });
    await s.admin.getParticipant(id, 'ann@example.com');
    await releaseAll(s.ctx);
    await pruneExpired(s.ctx);
    await new StripePayoutSender(s.ctx).sendDue();
    // Campaign time asked for where it is already the one in force: no scope either.
    assert.equal(inCampaignTime(0, () => realNow(s.ctx)) <= Date.now(), true);
    assert.deepEqual(entered(), { run: 0, enterWith: 0 });
  });

  it("a request about a moved test campaign runs in its time; the real time stays the real one", async () => {
    const s = service();
    const made = await s.admin.createApiKey('tests', true);
    const testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
    const id = (await testKey.createCampaign({ campaignName: 'Clock', hostURL: 'https://shop.example/join' })).campaignId!;
    const t0 = Date.parse((await testKey.getCampaignClock(id)).now);
    await testKey.advanceClock({ id, to: new Date(t0 + 3 * DAY_MS).toISOString() });
    const before = entered().enterWith;
    const ann = await testKey.addParticipant({ id, email: 'ann@example.com' });
    assert.ok(entered().enterWith > before, 'the request entered its campaign time');
    assert.ok(Date.parse(ann.createdOn!) >= t0 + 3 * DAY_MS, `signed up in the campaign's time: ${ann.createdOn}`);
    assert.ok(inCampaignTime(3 * DAY_MS, () => realNow(s.ctx)) <= Date.now(), 'realNow leaves a campaign time');
    assert.ok(inCampaignTime(3 * DAY_MS, () => s.ctx.now()) >= Date.now() + 3 * DAY_MS - 1000);
  });
});
