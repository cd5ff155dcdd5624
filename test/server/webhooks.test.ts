import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../src/api/schemas.js';
import { Dispatcher } from '../../src/server/webhooks/dispatcher.js';
import { openRuntime } from '../../src/server/runtime.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from './helpers/receiver.js';
import { startService, type ServiceOptions, type TestService } from './helpers/service.js';

const kinds = await databaseKinds();
const FAST = { retryDelaysMs: [100, 100], timeoutMs: 500, pollMs: 50, leaseMs: 3_000 };

for (const kind of kinds) {
  describe(`webhooks [${kind.name}]`, { skip: kind.skip }, () => {
    const open: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      for (const o of open.splice(0).reverse()) await o.close();
    });
    async function setup(options: ServiceOptions = {}): Promise<{ s: TestService; r: Receiver; secret: string; id: string }> {
      const r = await startReceiver();
      open.push(r);
      const s = await startService(kind, { dispatcher: FAST, ...options });
      open.push(s);
      const { secret } = await s.admin.createWebhookEndpoint({ url: r.url, eventTypes: ['referrer_added', 'referee_added', 'reward_unlocked'] });
      const id = await s.campaign({ rewardType: 'credit', rewardCurrency: 'EUR' });
      return { s, r, secret, id };
    }
    const events = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as WebhookEvent);

    it('sends each event with the full envelope, every data field, and a verifiable signature', async () => {
      const { s, r, secret, id } = await setup();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann' });
      await s.browser.validateCode(id, ann.referralCode!);
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '12.50' });
      await waitFor(() => r.received.length >= 4, 'four deliveries');
      const all = events(r);
      assert.deepEqual(all.map((e) => e.eventType).sort(), ['referee_added', 'referrer_added', 'reward_unlocked', 'reward_unlocked']);

      const added = all.find((e) => e.eventType === 'referrer_added')!;
      assert.deepEqual(Object.keys(added).sort(), ['createdAt', 'data', 'eventType', 'updatedAt']);
      assert.equal(typeof added.createdAt, 'number');
      assert.equal(added.data.email, 'ann@example.com');
      assert.equal(added.data.firstName, 'Ann');
      assert.equal(added.data.lastName, '');
      assert.equal(added.data.code, ann.referralCode);
      assert.equal(added.data.referredByCode, null);
      assert.equal(added.data.rewardCurrency, 'EUR');
      assert.equal(added.data.rewardType, 'credit');

      const referee = all.find((e) => e.eventType === 'referee_added')!;
      assert.equal(referee.data.referredByCode, ann.referralCode);
      const unlocked = all.filter((e) => e.eventType === 'reward_unlocked');
      const forAnn = unlocked.find((e) => e.data.email === 'ann@example.com')!.data;
      const forBen = unlocked.find((e) => e.data.email === 'ben@example.com')!.data;
      assert.deepEqual(
        Object.keys(forAnn).sort(),
        [
          'amountPaid', 'approval', 'campaignId', 'code', 'createdOn', 'email', 'firstName', 'impressionCount', 'lastName',
          'participantId', 'paymentCount', 'refereeActionCompleted', 'refereeActionCompletedLabel', 'refereeReward',
          'refereeRewardBalance', 'refereeRewardRedeemed', 'referralReward', 'referralRewardBalance', 'referralRewardRedeemed',
          'referredByCode', 'revenueGenerated', 'rewardCurrency', 'rewardDue', 'rewardPaid', 'rewardType', 'score',
          'totalCompletedReferred', 'totalReferred', 'updatedOn',
        ],
      );
      assert.equal(forAnn.referralReward, 10);
      assert.equal(forAnn.referralRewardBalance, 10);
      assert.equal(forAnn.totalReferred, 1);
      assert.equal(forAnn.totalCompletedReferred, 1);
      assert.equal(forAnn.revenueGenerated, 12.5);
      assert.equal(forAnn.rewardDue, 10);
      assert.equal(forAnn.impressionCount, 1);
      assert.equal(forAnn.approval, true);
      assert.equal(forAnn.score, '');
      assert.equal(forBen.refereeReward, 5);
      assert.equal(forBen.refereeActionCompleted, true);
      assert.equal(forBen.refereeActionCompletedLabel, 'Qualified');
      assert.equal(forBen.amountPaid, 12.5);
      assert.equal(forBen.paymentCount, 1);
      assert.equal(typeof forBen.participantId, 'number');

      const wh = new Webhook(secret);
      for (const x of r.received) {
        assert.equal(x.headers['content-type'], 'application/json');
        assert.match(String(x.headers['webhook-id']), /^msg_/);
        assert.match(String(x.headers['webhook-signature']), /^v1,/);
        assert.deepEqual(wh.verify(x.body, x.headers as Record<string, string>), JSON.parse(x.body));
        assert.throws(() => wh.verify(x.body.replace('example.com', 'evil.com'), x.headers as Record<string, string>));
      }
    });

    it('a 500 then 200 is retried and delivered once, with the same webhook-id', async () => {
      const { s, r, id } = await setup();
      r.respond = (n) => ({ status: n === 1 ? 500 : 200 });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await waitFor(async () => {
        const list = await s.admin.listWebhookDeliveries({ status: 'delivered' });
        return list.length === 1 && list;
      }, 'delivered');
      assert.deepEqual(d!.attempts.map((a) => a.statusCode), [500, 200]);
      assert.equal(d!.attemptCount, 2);
      assert.equal(r.received.length, 2);
      assert.equal(r.received[0]!.headers['webhook-id'], r.received[1]!.headers['webhook-id']);
      await new Promise((res) => setTimeout(res, 400));
      assert.equal(r.received.length, 2, 'nothing more after delivery');
    });

    it('a receiver that is down: attempts recorded, then failed; redelivery after it is back works', async () => {
      const { s, r, id } = await setup();
      const port = r.port;
      await r.close();
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [failed] = await waitFor(async () => {
        const list = await s.admin.listWebhookDeliveries({ status: 'failed' });
        return list.length === 1 && list;
      }, 'failed');
      assert.equal(failed!.attempts.length, 3, 'first try and two retries');
      assert.ok(failed!.attempts.every((a) => a.statusCode === null && a.error));
      assert.equal(failed!.nextAttemptOn, null);
      const back = await startReceiver(port);
      open.push(back);
      await s.admin.redeliverWebhook(failed!.id);
      await waitFor(() => back.received.length === 1, 'redelivered');
      await waitFor(async () => (await s.admin.listWebhookDeliveries({ status: 'delivered' })).length === 1, 'marked delivered');
      await rejects(() => s.admin.redeliverWebhook('dlv_nope'), 404, 'delivery_not_found');
    });

    it('a slow receiver times out and the delivery is retried', async () => {
      const { s, r, id } = await setup();
      r.respond = (n) => (n === 1 ? { status: 200, delayMs: 2_000 } : { status: 200 });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await waitFor(async () => {
        const list = await s.admin.listWebhookDeliveries({ status: 'delivered' });
        return list.length === 1 && list;
      }, 'delivered after timeout');
      assert.match(d!.attempts[0]!.error!, /no answer within 500 ms/);
      assert.equal(d!.attempts[1]!.statusCode, 200);
    });

    it('endpoints get only the types they selected, each signed with its own secret; removed ones get nothing', async () => {
      const { s, r, id } = await setup();
      const only = await startReceiver();
      open.push(only);
      const sub = await s.admin.createWebhookEndpoint({ url: only.url, eventTypes: ['referee_added'] });
      const gone = await startReceiver();
      open.push(gone);
      const removed = await s.admin.createWebhookEndpoint({ url: gone.url, eventTypes: ['referrer_added'] });
      await s.admin.deleteWebhookEndpoint(removed.id);
      assert.ok(!(await s.admin.listWebhookEndpoints()).some((e) => e.id === removed.id));
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await waitFor(() => r.received.length === 2 && only.received.length === 1, 'deliveries');
      assert.equal(events(only)[0]!.eventType, 'referee_added');
      new Webhook(sub.secret).verify(only.received[0]!.body, only.received[0]!.headers as Record<string, string>);
      assert.equal(gone.received.length, 0);
      assert.equal((await s.admin.listWebhookDeliveries({ endpointId: sub.id })).length, 1);
      assert.equal((await s.admin.listWebhookDeliveries({ eventType: 'referrer_added' })).length, 1);
      assert.equal((await s.admin.listWebhookDeliveries({ limit: 1 })).length, 1);
      await rejects(() => s.admin.deleteWebhookEndpoint(removed.id), 404, 'webhook_endpoint_not_found');
    });

    it('events exist only with their change; 20 parallel qualifies emit exactly two reward events', async () => {
      const { s, id } = await setup();
      const count = async (type: string) =>
        Number((await s.ctx.store.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll().as('n')).where('event_type', '=', type).executeTakeFirstOrThrow()).n);
      await rejects(() => s.admin.addParticipant({ id, email: 'x@example.com', referredByCode: 'NOBODY23' }), 404, 'referrer_not_found');
      assert.equal(await count('referee_added'), 0);
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await Promise.all(Array.from({ length: 20 }, () => s.admin.qualifyParticipant({ id, email: 'ben@example.com' })));
      assert.equal(await count('reward_unlocked'), 2);
      assert.equal(await count('referrer_added'), 1);
      assert.equal(await count('referee_added'), 1);
    });

    it('refuses private targets unless allowed', async () => {
      const s = await startService(kind, {});
      open.push(s);
      const strict = await (await import('../../src/server/app.js')).buildApp({
        ctx: s.ctx,
        config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent', webhookAllowPrivate: false },
        logger: false,
      });
      const res = await strict.inject({
        method: 'POST',
        url: '/api/v1/admin/createWebhookEndpoint',
        headers: { authorization: `Bearer ${s.secretKey}` },
        payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] },
      });
      await strict.close();
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.field, 'url');
    });

    if (kind.name === 'postgres') {
      it('two dispatchers on one database deliver each event once per endpoint', async () => {
        const { s, r, id } = await setup({ dispatcher: undefined });
        const second = await startReceiver();
        open.push(second);
        await s.admin.createWebhookEndpoint({ url: second.url, eventTypes: ['referrer_added'] });
        const runtimes = await Promise.all([openRuntime({ databaseUrl: s.database.url }), openRuntime({ databaseUrl: s.database.url })]);
        const dispatchers = runtimes.map((rt) => new Dispatcher(rt.ctx, { ...FAST, allowPrivate: true, batchSize: 3 }));
        try {
          await Promise.all(Array.from({ length: 30 }, (_, i) => s.admin.addParticipant({ id, email: `u${i}@example.com` })));
          dispatchers.forEach((d) => d.start());
          await waitFor(() => r.received.length >= 30 && second.received.length >= 30, 'all delivered');
          await new Promise((res) => setTimeout(res, 300));
          for (const rec of [r, second]) {
            const ids = rec.received.map((x) => x.headers['webhook-id']);
            assert.equal(ids.length, 30);
            assert.equal(new Set(ids).size, 30);
          }
        } finally {
          for (const d of dispatchers) await d.stop();
          for (const rt of runtimes) await rt.close();
        }
      });
    }
  });
}
