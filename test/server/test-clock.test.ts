/**
 * Test mode (docs/testing-mode.md): test keys see test campaigns only (and live keys live ones), test
 * campaigns' events go to test endpoints only, marked livemode: false, and their emails, marked [Test],
 * to reserved test domains only; a test campaign's clock moves forward with advanceClock, firing what
 * falls due on the way in time order, each in the campaign time it was due at.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { RefkitClient } from '../../src/api/client.js';
import { authenticate } from '../../src/server/accounts/domain/keys.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { hashSecret } from '../../src/server/kernel/secrets.js';
import { releaseAll } from '../../src/server/rewards/domain/reward-release.js';
import { pruneExpired } from '../../src/server/privacy/domain/retention.js';
import { StripePayoutSender } from '../../src/server/payouts/domain/stripe-payouts.js';
import { FakeStripe } from './helpers/fake-stripe.js';
import { checkoutSession, event, SECRET, send } from './helpers/stripe.js';
import { DAY_MS } from '../../src/server/kernel/time.js';
import { rejects } from './helpers/assert.js';
import { OWNER, signIn } from './helpers/owner.js';
import { databaseKinds } from './helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from './helpers/receiver.js';
import { startService, type TestService } from './helpers/service.js';
import { startMailbox, type Mailbox } from './helpers/smtp.js';

const kinds = await databaseKinds();
const FAST_HOOKS = { retryDelaysMs: [100, 100], timeoutMs: 2_000, pollMs: 50, leaseMs: 5_000 };
const PAYOUT_KEY = 'rk_test_refkitClockPayouts0123456';
const FAST_MAIL = { pollMs: 30, retryDelaysMs: [50, 50, 50], leaseMs: 5_000 };

interface Hook {
  eventType: string;
  data: { email?: string; referralReward?: number };
  createdAt: number;
  livemode?: boolean;
}

const hooks = (r: Receiver): Hook[] => r.received.map((x) => JSON.parse(x.body) as Hook).sort((a, b) => a.createdAt - b.createdAt);
const mailsTo = (m: Mailbox, address: string): ParsedMail[] =>
  m.messages.filter((x) => (Array.isArray(x.to) ? x.to : [x.to]).some((t) => t?.value.some((v) => v.address === address)));

for (const kind of kinds) {
  describe(`a moved test campaign in the background loops [${kind.name}]`, { skip: kind.skip }, () => {
    it("the releaser releases a test campaign's credits when due in its time: neither with the real time (late) nor before (early)", async () => {
      const base = { shift: 0 };
      const s = await startService(kind, { now: () => Date.now() + base.shift });
      try {
        const made = await s.admin.createApiKey('tests', true);
        const testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
        const rules = { campaignName: 'Hold', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 0, holdDays: 2 };
        const id = (await testKey.createCampaign(rules)).campaignId!;
        const liveId = await s.campaign({ ...rules, campaignName: 'Live hold' });
        for (const [client, campaign] of [[testKey, id], [s.admin, liveId]] as const) {
          const ann = await client.addParticipant({ id: campaign, email: 'ann@example.com' });
          await client.addParticipant({ id: campaign, email: 'ben@example.com', referredByCode: ann.referralCode! });
          await client.qualifyParticipant({ id: campaign, email: 'ben@example.com' });
        }
        const t0 = Date.parse((await testKey.getCampaignClock(id)).now);
        // The test campaign one day ahead: its credits are due a day from now in the real time.
        await testKey.advanceClock({ id, to: new Date(t0 + DAY_MS).toISOString() });
        const balance = async (client: RefkitClient, campaign: string) => (await client.getParticipant(campaign, 'ann@example.com')).referralReward;
        base.shift = DAY_MS - 60_000;
        await releaseAll(s.ctx);
        assert.equal(await balance(testKey, id), 0, 'not early: a minute before its day 2');
        base.shift = DAY_MS + 60_000;
        await releaseAll(s.ctx);
        assert.equal(await balance(testKey, id), 10, 'on time: its day 2 has passed, a day before the real day 2');
        assert.equal(await balance(s.admin, liveId), 0, 'the live campaign keeps the real time');
        base.shift = 2 * DAY_MS + 60_000;
        await releaseAll(s.ctx);
        assert.equal(await balance(s.admin, liveId), 10);
      } finally {
        await s.close();
      }
    });
  });

  describe(`a moved test campaign's Stripe payouts and retention [${kind.name}]`, { skip: kind.skip }, () => {
    it("the payout sender pays a test campaign's credits when due in its time, retries on its clock, and stamps them in it", async () => {
      const fake = await new FakeStripe().allowKey(PAYOUT_KEY).addCustomer('cus_ann').start();
      const s = await startService(kind);
      try {
        const made = await s.admin.createApiKey('tests', true);
        const testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
        const id = (await testKey.createCampaign({ campaignName: 'Payouts', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 0, holdDays: 30, rewardType: 'credit', rewardCurrency: 'USD' })).campaignId!;
        await testKey.updateCampaign({ id, stripeWebhookSecret: SECRET, stripeRewardKey: PAYOUT_KEY, stripeRewardMode: 'balance' });
        const ann = await testKey.addParticipant({ id, email: 'ann@example.com' });
        const ben = await testKey.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
        const linkAnn = checkoutSession(ann.referralCode!, 'ann@example.com', 0, { mode: 'subscription', customer: 'cus_ann' });
        assert.equal((await send(s, id, event('checkout.session.completed', linkAnn))).body.outcome, 'applied');
        assert.equal((await send(s, id, event('checkout.session.completed', checkoutSession(ben.referralCode!, 'ben@example.com', 5000, { customer: 'cus_ben' })))).body.outcome, 'applied');
        const t0 = Date.parse((await testKey.getCampaignClock(id)).now);
        const sender = new StripePayoutSender(s.ctx, { api: fake.api, retryDelaysMs: [60_000], waitMs: 600_000, timeoutMs: 2000, leaseMs: 30_000 });
        // To day 31 of the campaign: Ann's credit is released and queued at its day 30, a month ahead of the real time.
        await testKey.advanceClock({ id, to: new Date(t0 + 31 * DAY_MS).toISOString() });
        const [queued] = await testKey.listStripePayouts(id);
        assert.equal(queued!.status, 'queued');
        assert.ok(Date.parse(queued!.nextAttemptOn!) >= t0 + 30 * DAY_MS - 60_000, queued!.nextAttemptOn);
        // Stripe fails once: the retry is a minute later in the campaign's time, not due before it.
        fake.fail({ kind: '500' });
        assert.equal(await sender.sendDue(), 1, "due in the campaign's time though not in the real time");
        const retry = (await testKey.listStripePayouts(id))[0]!;
        assert.equal(retry.status, 'queued');
        assert.ok(Date.parse(retry.nextAttemptOn!) >= t0 + 31 * DAY_MS + 60_000, retry.nextAttemptOn);
        assert.equal(await sender.sendDue(), 0, 'not early: its retry is a minute away in its time');
        await testKey.advanceClock({ id, to: new Date(t0 + 31 * DAY_MS + 120_000).toISOString() });
        assert.equal(await sender.sendDue(), 1);
        const paid = (await testKey.listStripePayouts(id))[0]!;
        assert.equal(paid.status, 'paid');
        assert.ok(Date.parse(paid.paidOn!) >= t0 + 31 * DAY_MS + 120_000, `paid in the campaign's time: ${paid.paidOn}`);
        assert.equal(fake.customers.get('cus_ann'), -1000);
        const redemption = (await testKey.listRewardEntries(id, 'ann@example.com')).find((e) => e.kind === 'redemption')!;
        assert.ok(Date.parse(redemption.createdOn) >= t0 + 31 * DAY_MS + 120_000, 'the ledger entry is stamped in its time');
      } finally {
        await s.close();
        await fake.stop();
      }
    });

    it("the retention pruner clears a test campaign's IPs when its own ipDays have passed (advanceClock runs it); a live campaign's stay", async () => {
      const s = await startService(kind);
      try {
        await s.admin.updateAccountSettings({ retention: { ipDays: 30 } });
        const made = await s.admin.createApiKey('tests', true);
        const testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
        const id = (await testKey.createCampaign({ campaignName: 'Kept', hostURL: 'https://shop.example/join' })).campaignId!;
        const liveId = await s.campaign();
        await testKey.addParticipant({ id, email: 'ann@example.com' });
        await s.admin.addParticipant({ id: liveId, email: 'ann@example.com' });
        await s.ctx.store.db.updateTable('participants').set({ signup_ip: '203.0.113.7', signup_net: '203.0.113.0/24' }).execute();
        const ips = async (campaign: string) => (await s.ctx.store.db.selectFrom('participants').select('signup_ip').where('campaign_id', '=', campaign).executeTakeFirstOrThrow()).signup_ip;
        const t0 = Date.parse((await testKey.getCampaignClock(id)).now);
        await testKey.advanceClock({ id, to: new Date(t0 + 29 * DAY_MS).toISOString() });
        assert.equal(await ips(id), '203.0.113.7', 'kept: 29 of its days');
        await testKey.advanceClock({ id, to: new Date(t0 + 31 * DAY_MS).toISOString() });
        assert.equal(await ips(id), null, 'cleared at its day 31');
        // The background pass (moved campaigns in their time, then the real time) leaves the live one's.
        await pruneExpired(s.ctx);
        assert.equal(await ips(liveId), '203.0.113.7');
      } finally {
        await s.close();
      }
    });
  });

  describe(`test mode [${kind.name}]`, { skip: kind.skip }, () => {
    let s: TestService;
    let mailbox: Mailbox;
    let live: Receiver;
    let test: Receiver;
    let testKey: RefkitClient;
    before(async () => {
      mailbox = await startMailbox();
      live = await startReceiver();
      test = await startReceiver();
      s = await startService(kind, { smtpUrl: mailbox.url, mail: FAST_MAIL, dispatcher: FAST_HOOKS });
      const made = await s.admin.createApiKey('tests', true);
      assert.match(made.key, /^sk_test_/);
      assert.equal(made.test, true);
      testKey = new RefkitClient({ baseUrl: s.url, secretKey: made.key });
      const types = ['referrer_added', 'referee_added', 'reward_unlocked', 'reward_reversed', 'milestone_reached', 'dispute_opened', 'dispute_closed'] as const;
      assert.equal((await s.admin.createWebhookEndpoint({ url: `${live.url}/live`, eventTypes: [...types] })).test, false);
      assert.equal((await testKey.createWebhookEndpoint({ url: `${test.url}/test`, eventTypes: [...types] })).test, true);
    });
    after(async () => {
      await s?.close();
      await Promise.all([mailbox?.close(), live?.close(), test?.close()]);
    });

    it('keys: new ones are sk_live_/sk_test_, a key made before test mode is live whatever its text, and each sees only its mode', async () => {
      const liveKey = await s.admin.createApiKey('live');
      assert.match(liveKey.key, /^sk_live_/);
      assert.equal(liveKey.test, false);
      // A key made before test mode: its row has no mode (the column's default), and its text may begin sk_test_.
      const old = 'sk_test_madebeforetestmode0123456789abcdef';
      await s.ctx.store.db.insertInto('api_keys').values({ id: 'key_old', account_id: 1, name: 'old', prefix: old.slice(0, 10), hash: hashSecret(old), created_on: 0, revoked_on: null }).execute();
      assert.equal((await authenticate(s.ctx, old))?.test, false);

      const liveId = await s.campaign();
      const t = await testKey.createCampaign({ campaignName: 'Test', hostURL: 'https://shop.example/join' });
      const testId = t.campaignId!;
      // The owner's answer is the campaign's settings, mode included; the public shapes have no mode (below).
      assert.equal(t.test, true);
      assert.deepEqual((await testKey.listCampaigns()).map((c) => [c.campaignId, c.test]), [[testId, true]]);
      assert.ok((await s.admin.listCampaigns()).every((c) => c.campaignId !== testId && c.test === false));
      const oldKey = new RefkitClient({ baseUrl: s.url, secretKey: old });
      assert.ok((await oldKey.listCampaigns()).some((c) => c.campaignId === liveId));
      // The other mode's campaign is not there for a key.
      await rejects(() => s.admin.addParticipant({ id: testId, email: 'x@example.com' }), 404, 'campaign_not_found');
      await rejects(() => oldKey.getCampaignClock(testId), 404, 'campaign_not_found');
      await rejects(() => testKey.addParticipant({ id: liveId, email: 'x@example.com' }), 404, 'campaign_not_found');
      await rejects(() => testKey.updateCampaign({ id: liveId, campaignName: 'x' }), 404, 'campaign_not_found');
      // A key makes its own mode's campaigns only.
      await rejects(() => testKey.createCampaign({ campaignName: 'x', hostURL: 'https://shop.example/', test: false }), 400, 'invalid_request');
      await rejects(() => s.admin.createCampaign({ campaignName: 'x', hostURL: 'https://shop.example/', test: true }), 400, 'invalid_request');
      // The public shapes do not change: the widget reads a test campaign as any other.
      assert.equal('test' in (await s.browser.getCampaign(testId)), false);
    });

    it("keys, webhook endpoints and the delivery log: a key sees and acts on its own mode's only; a user lists either mode", async () => {
      const liveId = await s.campaign();
      const testId = (await testKey.createCampaign({ campaignName: 'Hooks', hostURL: 'https://shop.example/join' })).campaignId!;
      await s.admin.addParticipant({ id: liveId, email: 'live-person@realmail.com' });
      await testKey.addParticipant({ id: testId, email: 'hooked@example.com' });
      const [liveEndpoint] = await s.admin.listWebhookEndpoints();
      const [testEndpoint] = await testKey.listWebhookEndpoints();
      assert.deepEqual([liveEndpoint?.test, testEndpoint?.test], [false, true]);
      assert.deepEqual((await testKey.listWebhookEndpoints()).map((e) => e.id), [testEndpoint!.id], 'a test key does not see where live events go');
      assert.deepEqual((await s.admin.listWebhookEndpoints()).map((e) => e.id), [liveEndpoint!.id]);
      // The delivery log: a test key never reads a live event's body (a live participant's address).
      const testLog = await testKey.listWebhookDeliveries({ limit: 100 });
      assert.ok(testLog.length > 0 && testLog.every((d) => d.endpointId === testEndpoint!.id), JSON.stringify(testLog.map((d) => d.endpointId)));
      assert.ok(!JSON.stringify(testLog).includes('realmail.com'));
      const liveLog = await s.admin.listWebhookDeliveries({ limit: 100 });
      assert.ok(liveLog.length > 0 && liveLog.every((d) => d.endpointId === liveEndpoint!.id));
      assert.equal((await testKey.listWebhookDeliveries({ mode: 'test', limit: 100 })).length, testLog.length);
      await rejects(() => testKey.listWebhookDeliveries({ mode: 'live' }), 400, 'invalid_request', 'mode');
      // Nor does it act on the other mode's: redeliver, remove an endpoint, revoke a key (each 404, nothing changed).
      // The dispatcher delivers what is pending first, so that the rows stand still while they are compared.
      const pending = () => s.ctx.store.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
      await waitFor(async () => (await pending()).length === 0, 'every delivery made');
      const before = await s.ctx.store.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempt_count', 'next_attempt_on']).orderBy('id').execute();
      await rejects(() => testKey.redeliverWebhook(liveLog[0]!.id), 404, 'delivery_not_found');
      await rejects(() => testKey.deleteWebhookEndpoint(liveEndpoint!.id), 404, 'webhook_endpoint_not_found');
      await rejects(() => s.admin.deleteWebhookEndpoint(testEndpoint!.id), 404, 'webhook_endpoint_not_found');
      assert.deepEqual(await s.ctx.store.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempt_count', 'next_attempt_on']).orderBy('id').execute(), before);
      assert.deepEqual((await s.admin.listWebhookEndpoints()).map((e) => e.id), [liveEndpoint!.id]);
      const liveKey = await s.admin.createApiKey('production');
      assert.ok((await testKey.listApiKeys()).every((k) => k.test), 'a test key lists test keys only');
      assert.ok(!(await s.admin.listApiKeys()).some((k) => k.test), 'a live key lists live keys only');
      await rejects(() => testKey.revokeApiKey(liveKey.id), 404, 'api_key_not_found');
      assert.equal((await new RefkitClient({ baseUrl: s.url, secretKey: liveKey.key }).listCampaigns()).length > 0, true, 'the live key still works');
      // A user (the dashboard) sees both, and asks for one mode's log.
      await createOwner(s.ctx, OWNER.email, OWNER.password);
      const user = (await signIn(s)).client;
      assert.deepEqual((await user.listWebhookEndpoints()).map((e) => e.id).sort(), [liveEndpoint!.id, testEndpoint!.id].sort());
      assert.deepEqual(new Set((await user.listWebhookDeliveries({ mode: 'test', limit: 100 })).map((d) => d.endpointId)), new Set([testEndpoint!.id]));
      assert.deepEqual(new Set((await user.listWebhookDeliveries({ mode: 'live', limit: 100 })).map((d) => d.endpointId)), new Set([liveEndpoint!.id]));
      assert.deepEqual(new Set((await user.listWebhookDeliveries({ limit: 100 })).map((d) => d.endpointId)), new Set([liveEndpoint!.id, testEndpoint!.id]));
      await rejects(() => user.listWebhookDeliveries({ mode: 'neither' as 'live' }), 400, 'invalid_request');
    });

    it('advanceClock refuses a live campaign, backwards, too far and a bad time, changing nothing', async () => {
      const liveId = await s.campaign();
      const testId = (await testKey.createCampaign({ campaignName: 'Test', hostURL: 'https://shop.example/join' })).campaignId!;
      const start = await testKey.getCampaignClock(testId);
      assert.equal(start.offsetMs, 0);
      await rejects(() => s.admin.advanceClock({ id: liveId, to: new Date(Date.now() + DAY_MS).toISOString() }), 400, 'invalid_request');
      await rejects(() => s.admin.getCampaignClock(liveId), 400, 'invalid_request');
      await rejects(() => testKey.advanceClock({ id: testId, to: new Date(Date.now() - DAY_MS).toISOString() }), 400, 'invalid_request');
      await rejects(() => testKey.advanceClock({ id: testId, to: new Date(Date.now() + 6 * 366 * DAY_MS).toISOString() }), 400, 'invalid_request');
      await rejects(() => testKey.advanceClock({ id: testId, to: 'next tuesday' }), 400, 'invalid_request');
      await rejects(() => testKey.advanceClock({ id: 'cmp_nosuch', to: new Date(Date.now() + DAY_MS).toISOString() }), 404, 'campaign_not_found');
      assert.equal((await testKey.getCampaignClock(testId)).offsetMs, 0);
      const moved = await testKey.advanceClock({ id: testId, to: new Date(Date.now() + 10 * DAY_MS).toISOString() });
      assert.ok(moved.offsetMs > 10 * DAY_MS - 60_000 && moved.offsetMs <= 10 * DAY_MS, String(moved.offsetMs));
      await rejects(() => testKey.advanceClock({ id: testId, to: new Date(Date.now() + 5 * DAY_MS).toISOString() }), 400, 'invalid_request');
    });

    it('a scripted stretch of a test campaign: holds release, refunds inside and outside the hold, a milestone, a cap and the monthly board, in order, each at its campaign time', async () => {
      const id = (
        await testKey.createCampaign({
          campaignName: 'Year',
          hostURL: 'https://shop.example/join',
          referrerRewardValue: 10,
          refereeRewardValue: 5,
          holdDays: 30,
          referrerRewardPercent: 10,
          maxReferralReward: 45,
          milestones: [{ referrals: 2, reward: 20, label: 'Two friends' }],
          leaderboard: { period: 'month', size: 10 },
        })
      ).campaignId!;
      await testKey.updateEmailSettings({ id, reminder: true });
      const t0 = Date.parse((await testKey.getCampaignClock(id)).now);
      const ann = await testKey.addParticipant({ id, email: 'ann@example.com' });
      await testKey.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await testKey.addParticipant({ id, email: 'cy@example.com', referredByCode: ann.referralCode! });
      // A real address in a test campaign is recorded, never mailed.
      await testKey.addParticipant({ id, email: 'someone@gmail.com', referredByCode: ann.referralCode! });
      await testKey.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '100.00' });
      assert.deepEqual((await s.browser.getLeaderboard(id)).map((e) => e.referrals), [1], "this month's board has Ann");

      // Day 10: Cy pays; day 20: Ben refunds in part (inside the hold: the pending commission is re-made).
      await testKey.advanceClock({ id, to: new Date(t0 + 10 * DAY_MS).toISOString() });
      await testKey.qualifyParticipant({ id, email: 'cy@example.com', amountPaid: '50.00' });
      await testKey.advanceClock({ id, to: new Date(t0 + 20 * DAY_MS).toISOString() });
      await testKey.refundPayment({ id, email: 'ben@example.com', amount: '50.00' });
      const pending = (await testKey.listRewardEntries(id, 'ann@example.com')).filter((e) => e.status === 'pending');
      assert.ok(pending.length > 0 && pending.every((e) => Date.parse(e.availableOn!) > t0 + 20 * DAY_MS));
      assert.equal((await testKey.getParticipant(id, 'ann@example.com')).referralReward, 0, 'nothing is available inside the hold');

      // To day 90 in one call: Ben's credits (due day 30) are released before Cy's (due day 40), each at its time.
      await testKey.advanceClock({ id, to: new Date(t0 + 90 * DAY_MS).toISOString() });
      const annNow = await testKey.getParticipant(id, 'ann@example.com');
      // Day 0: 10 + 10 (Ben's); day 10: 20 (milestone) + 10 + 5 (Cy's), over the cap of 45 by 10 (capped);
      // day 20: Ben's commission re-made as 5 (room under the cap is not re-credited): 40.
      assert.equal(annNow.referralReward, 40);
      assert.ok((await testKey.listRewardEntries(id, 'ann@example.com')).some((e) => (e.capped ?? 0) > 0), 'what exceeds the cap is recorded as capped');
      // Outside the hold, a refund reverses the available commission (Ben's last 5).
      await testKey.refundPayment({ id, email: 'ben@example.com', amount: '50.00' });
      assert.equal((await testKey.getParticipant(id, 'ann@example.com')).referralRewardBalance, 35);

      const unlocked = await waitFor(() => {
        const got = hooks(test).filter((h) => h.eventType === 'reward_unlocked' && h.data.email === 'ann@example.com');
        return got.length >= 2 && got;
      }, 'both of ann\'s reward_unlocked');
      assert.ok(unlocked[0]!.createdAt >= t0 + 30 * DAY_MS && unlocked[0]!.createdAt < t0 + 31 * DAY_MS, 'Ben\'s at day 30');
      assert.ok(unlocked[1]!.createdAt >= t0 + 40 * DAY_MS && unlocked[1]!.createdAt < t0 + 41 * DAY_MS, 'Cy\'s at day 40');
      await waitFor(() => hooks(test).filter((h) => h.eventType === 'reward_reversed').length === 2, 'both reward_reversed');
      const seen = hooks(test);
      assert.ok(seen.every((h) => h.livemode === false), 'every test event is marked');
      const annTypes = seen.filter((h) => h.data.email === 'ann@example.com').map((h) => h.eventType);
      // The refund inside the hold (day 20) reverses the pending commission; the one after it (day 90) the available one.
      assert.deepEqual(annTypes, ['referrer_added', 'milestone_reached', 'reward_reversed', 'reward_unlocked', 'reward_unlocked', 'reward_reversed'], annTypes.join());
      const reversals = seen.filter((h) => h.eventType === 'reward_reversed').map((h) => Math.floor((h.createdAt - t0) / DAY_MS));
      assert.deepEqual(reversals, [20, 90]);
      assert.equal(live.received.filter((r) => r.body.includes(id)).length, 0, 'the live endpoint hears nothing of a test campaign');

      // Emails: each marked, in time order; the real address is skipped, never sent.
      const annMail = await waitFor(async () => {
        const got = mailsTo(mailbox, 'ann@example.com');
        return got.filter((m) => /available|unlocked/i.test(m.subject ?? '')).length >= 1 && got;
      }, "ann's emails");
      assert.ok(annMail.every((m) => m.subject!.startsWith('[Test] ') && m.headers.get('x-refkit-test') === '1'));
      assert.equal(mailsTo(mailbox, 'someone@gmail.com').length, 0);
      const skipped = await s.ctx.store.db.selectFrom('email_outbox').innerJoin('participants as p', 'p.id', 'email_outbox.participant_id').select(['email_outbox.status', 'email_outbox.last_error']).where('p.email', '=', 'someone@gmail.com').execute();
      await waitFor(async () => (await s.ctx.store.db.selectFrom('email_outbox').innerJoin('participants as p', 'p.id', 'email_outbox.participant_id').select('email_outbox.status').where('p.email', '=', 'someone@gmail.com').where('email_outbox.status', '=', 'skipped').execute()).length > 0, 'the skip');
      assert.ok(skipped.length > 0);

      // Reminders fall due on the way too: Ben's, 7 days (the default) after he joined, stamped then.
      const reminder = await s.ctx.store.db.selectFrom('email_outbox').innerJoin('participants as p', 'p.id', 'email_outbox.participant_id').select('email_outbox.created_on').where('p.email', '=', 'ben@example.com').where('email_outbox.kind', '=', 'reminder').executeTakeFirstOrThrow();
      assert.equal(Math.floor((Number(reminder.created_on) - t0) / DAY_MS), 7);

      // The monthly board rolled over: day 90 is in another month than day 0, where Ann's referrals were.
      assert.deepEqual(await s.browser.getLeaderboard(id), []);

      // Day 100: Dan joins and pays; day 105 he disputes all of it (inside the hold): his and Ann's credits are held past
      // their day 130; day 140 the dispute is won and they are released then, once, with their events and Dan's email.
      await testKey.advanceClock({ id, to: new Date(t0 + 100 * DAY_MS).toISOString() });
      await testKey.addParticipant({ id, email: 'dan@example.com', referredByCode: ann.referralCode! });
      await testKey.qualifyParticipant({ id, email: 'dan@example.com', amountPaid: '100.00' });
      await testKey.advanceClock({ id, to: new Date(t0 + 105 * DAY_MS).toISOString() });
      const opened = await testKey.disputePayment({ id, email: 'dan@example.com', amount: '100.00', disputeId: 'dp_year' });
      assert.ok(opened.held >= 5, `held: ${opened.held}`);
      await testKey.advanceClock({ id, to: new Date(t0 + 135 * DAY_MS).toISOString() });
      assert.equal((await testKey.getParticipant(id, 'dan@example.com')).refereeReward, 0, 'held past day 130');
      assert.equal(mailsTo(mailbox, 'dan@example.com').filter((m) => /available|unlocked/i.test(m.subject ?? '')).length, 0);
      await testKey.advanceClock({ id, to: new Date(t0 + 140 * DAY_MS).toISOString() });
      await testKey.closeDispute({ id, disputeId: 'dp_year', outcome: 'won' });
      await testKey.closeDispute({ id, disputeId: 'dp_year', outcome: 'won' });
      assert.equal((await testKey.getParticipant(id, 'dan@example.com')).refereeReward, 5);
      const danHooks = await waitFor(() => {
        const got = hooks(test).filter((h) => h.data.email === 'dan@example.com');
        return got.some((h) => h.eventType === 'dispute_closed') && got.some((h) => h.eventType === 'reward_unlocked') && got;
      }, "dan's dispute events");
      const danDays = danHooks.map((h) => `${Math.floor((h.createdAt - t0) / DAY_MS)} ${h.eventType}`);
      assert.deepEqual(danDays.slice(0, 2), ['100 referee_added', '105 dispute_opened'], danDays.join());
      assert.deepEqual(danDays.slice(2).sort(), ['140 dispute_closed', '140 reward_unlocked'], danDays.join());
      const danMail = await waitFor(() => {
        const got = mailsTo(mailbox, 'dan@example.com').filter((m) => /available|unlocked/i.test(m.subject ?? ''));
        return got.length > 0 && got;
      }, "dan's reward email");
      assert.equal(danMail.length, 1, 'released once');
      assert.ok(danMail[0]!.subject!.startsWith('[Test] '));
    });
  });
}
