/**
 * Webhooks end to end, on SQLite and PostgreSQL, with a real HTTP receiver on loopback and a real
 * dispatcher (short retry schedule) in the test service: what each event carries (envelope, every data
 * field from the state the change left, Standard Webhooks headers and signature), retries, timeouts,
 * failure and redelivery, per-endpoint event types, removal, the admin routes, the private-address
 * guard, the outbox's atomicity, and several dispatchers sharing one PostgreSQL.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { RefkitClient } from '../../src/api/client.js';
import type { WebhookDelivery, WebhookEvent, WebhookEventData, WebhookEventType } from '../../src/api/schemas.js';
import { buildApp } from '../../src/server/app.js';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { openRuntime } from '../../src/server/runtime.js';
import type { ParticipantRow } from '../../src/server/store/store.js';
import { Dispatcher, type DispatcherOptions } from '../../src/server/webhooks/domain/dispatcher.js';
import { browserAt } from './helpers/addresses.js';
import { rejects } from './helpers/assert.js';
import { freePort, startReceiver, waitFor, type Received, type Receiver } from './helpers/receiver.js';
import { startService, type ServiceOptions, type TestService } from './helpers/service.js';
import { kindsAtOnce } from './helpers/suite.js';

const ALL: WebhookEventType[] = ['referrer_added', 'referee_added', 'reward_unlocked'];
/** Short schedule: first try, then two retries 100 ms apart; 500 ms timeout; leases well above it. */
const FAST: Partial<DispatcherOptions> = { retryDelaysMs: [100, 100], timeoutMs: 500, pollMs: 50, leaseMs: 3_000 };
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const headersOf = (x: Received) => x.headers as Record<string, string>;
const parse = (x: Received) => JSON.parse(x.body) as WebhookEvent;

kindsAtOnce('webhooks', (kind) => {
  describe(`webhooks [${kind.name}]`, { skip: kind.skip, concurrency: 1 }, () => {
    const open: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      for (const o of open.splice(0).reverse()) await o.close();
    });

    async function receiver(port?: number): Promise<Receiver> {
      const r = await startReceiver(port);
      open.push(r);
      return r;
    }
    async function service(options: ServiceOptions = { dispatcher: FAST }): Promise<TestService> {
      const s = await startService(kind, options);
      open.push(s);
      return s;
    }
    /** A service with a dispatcher, a receiver subscribed to every type, and a campaign (10 / 5 EUR credit). */
    async function setup(options?: ServiceOptions) {
      const r = await receiver();
      const s = await service(options);
      const endpoint = await s.admin.createWebhookEndpoint({ url: r.url, eventTypes: ALL });
      const id = await s.campaign({ referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'EUR' });
      return { s, r, endpoint, secret: endpoint.secret, id };
    }
    const row = async (s: TestService, campaignId: string, email: string): Promise<ParticipantRow> =>
      (await s.ctx.store.findParticipantByEmail(campaignId, email))!;
    async function countRows(s: TestService, table: 'webhook_events' | 'webhook_deliveries', type?: WebhookEventType): Promise<number> {
      const q = s.ctx.store.db
        .selectFrom('webhook_deliveries as d')
        .rightJoin('webhook_events as e', 'e.id', 'd.event_id')
        .select((eb) => eb.fn.count<number | string>(table === 'webhook_events' ? 'e.id' : 'd.id').distinct().as('n'))
        .$if(type !== undefined, (qb) => qb.where('e.event_type', '=', type!));
      return Number((await q.executeTakeFirstOrThrow()).n);
    }
    async function deliveriesWhen(s: TestService, status: WebhookDelivery['status'], n: number, what: string): Promise<WebhookDelivery[]> {
      return waitFor(async () => {
        const list = await s.admin.listWebhookDeliveries({ status, limit: 100 });
        return list.length === n && list;
      }, what);
    }

    it('each event type: the exact envelope, every data field from the state the change left, signed headers', async () => {
      const { s, r, endpoint, secret, id } = await setup();
      const t0 = Date.now();
      /** `data` of a participant that has done nothing yet; each expectation below spells what differs. */
      const fresh = (p: ParticipantRow, code: string): WebhookEventData => ({
        participantId: p.id,
        firstName: '',
        lastName: '',
        email: p.email,
        code,
        campaignId: id,
        referredByCode: null,
        referralReward: 0,
        referralRewardBalance: 0,
        referralRewardRedeemed: 0,
        refereeReward: 0,
        refereeRewardBalance: 0,
        refereeRewardRedeemed: 0,
        refereeActionCompleted: false,
        refereeActionCompletedLabel: null,
        rewardType: 'credit',
        rewardCurrency: 'EUR',
        createdOn: iso(p.created_on),
        updatedOn: iso(p.created_on),
        approval: true,
        totalReferred: 0,
        totalCompletedReferred: 0,
        amountPaid: 0,
        paymentCount: 0,
        revenueGenerated: 0,
        rewardDue: 0,
        rewardPaid: 0,
        score: '',
        impressionCount: 0,
      });
      /** The one event of this type about this email among `events`, checked whole (envelope and data). */
      const expectEvent = (events: WebhookEvent[], eventType: WebhookEventType, data: WebhookEventData, changedOn: number) => {
        const matching = events.filter((e) => e.eventType === eventType && e.data.email === data.email);
        assert.equal(matching.length, 1, `one ${eventType} for ${data.email}`);
        assert.deepEqual(matching[0], { eventType, data, createdAt: changedOn, updatedAt: changedOn });
      };
      // Delivery is at least once: one that outlasted the sender's timeout (a loaded machine) comes again, with
      // its webhook-id. Each event is counted once, in the order it first arrived.
      const distinct = () => [...new Map(r.received.map((x) => [headersOf(x)['webhook-id'], x])).values()];
      const phase = async (total: number) => {
        await waitFor(() => distinct().length >= total, `${total} events delivered`);
        return distinct().slice(0, total).map(parse);
      };

      // 1. Ann joins with no referrer (referrer_added); two visitors' impressions of her code come after the event.
      const ann = await s.admin.addParticipant({ id, email: 'Ann@Example.com', firstName: 'Ann', lastName: 'Lee' });
      const annCode = ann.referralCode!;
      assert.equal(await s.browser.validateCode(id, annCode), true);
      assert.equal(await browserAt(s.url, '127.0.0.2').validateCode(id, annCode.toLowerCase()), true);
      // Impressions are written a few milliseconds later, in a batch: written now, so later events carry them.
      await s.ctx.store.flushImpressions();
      let events = await phase(1);
      let annRow = await row(s, id, 'ann@example.com');
      expectEvent(events, 'referrer_added', { ...fresh(annRow, annCode), firstName: 'Ann', lastName: 'Lee' }, annRow.created_on);

      // 2. Ben joins through Ann's code (referee_added), then qualifies paying 12.50: both sides unlock.
      const ben = await s.admin.addParticipant({ id, email: 'ben@example.com', firstName: 'Ben', referredByCode: ` ${annCode.toLowerCase()} ` });
      const benCode = ben.referralCode!;
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com', amountPaid: '12.50' });
      events = (await phase(4)).slice(1);
      annRow = await row(s, id, 'ann@example.com');
      let benRow = await row(s, id, 'ben@example.com');
      assert.equal(events.length, 3);
      expectEvent(events, 'referee_added', { ...fresh(benRow, benCode), firstName: 'Ben', referredByCode: annCode }, benRow.created_on);
      const benQualified: WebhookEventData = {
        ...fresh(benRow, benCode),
        firstName: 'Ben',
        referredByCode: annCode,
        refereeReward: 5,
        refereeRewardBalance: 5,
        refereeActionCompleted: true,
        refereeActionCompletedLabel: 'Qualified',
        amountPaid: 12.5,
        paymentCount: 1,
        rewardDue: 5,
        updatedOn: iso(benRow.updated_on),
      };
      expectEvent(events.filter((e) => e.eventType === 'reward_unlocked'), 'reward_unlocked', benQualified, benRow.updated_on);
      expectEvent(
        events,
        'reward_unlocked',
        {
          ...fresh(annRow, annCode),
          firstName: 'Ann',
          lastName: 'Lee',
          referralReward: 10,
          referralRewardBalance: 10,
          totalReferred: 1,
          totalCompletedReferred: 1,
          revenueGenerated: 12.5,
          rewardDue: 10,
          impressionCount: 2,
          updatedOn: iso(annRow.updated_on),
        },
        annRow.updated_on,
      );
      assert.equal(annRow.updated_on, benRow.updated_on, 'one change, one time');

      // 3. Redemptions (no event), then Cal joins in a browser through Ben's code and pays 7.25, and Dan
      // joins through Ann's code and qualifies without paying: four more unlocks, two more referees.
      await s.admin.redeemReward({ id, email: 'ann@example.com', kind: 'referral', amount: 4 });
      await s.admin.redeemReward({ id, email: 'ben@example.com', kind: 'referee', amount: 2 });
      const cal = await s.browser.addParticipant({ id, email: 'cal@example.com', referredByCode: benCode });
      await s.admin.qualifyParticipant({ id, email: 'cal@example.com', amountPaid: '7.25' });
      const dan = await s.admin.addParticipant({ id, email: 'dan@example.com', referredByEmail: 'ann@example.com' });
      await s.admin.qualifyParticipant({ id, email: 'dan@example.com' });
      events = (await phase(10)).slice(4);
      const t1 = Date.now();
      annRow = await row(s, id, 'ann@example.com');
      benRow = await row(s, id, 'ben@example.com');
      const calRow = await row(s, id, 'cal@example.com');
      const danRow = await row(s, id, 'dan@example.com');
      assert.equal(events.length, 6);
      const referee = (p: ParticipantRow, code: string, by: string, extra: Partial<WebhookEventData> = {}): WebhookEventData => ({
        ...fresh(p, code),
        referredByCode: by,
        refereeReward: 5,
        refereeRewardBalance: 5,
        refereeActionCompleted: true,
        refereeActionCompletedLabel: 'Qualified',
        rewardDue: 5,
        updatedOn: iso(p.updated_on),
        ...extra,
      });
      expectEvent(events, 'referee_added', { ...fresh(calRow, cal.referralCode!), referredByCode: benCode, score: 'low' }, calRow.created_on);
      expectEvent(events, 'referee_added', { ...fresh(danRow, dan.referralCode!), referredByCode: annCode }, danRow.created_on);
      expectEvent(events, 'reward_unlocked', referee(calRow, cal.referralCode!, benCode, { amountPaid: 7.25, paymentCount: 1, score: 'low' }), calRow.updated_on);
      expectEvent(events, 'reward_unlocked', referee(danRow, dan.referralCode!, annCode), danRow.updated_on);
      // Ben unlocks again, now as a referrer: his own referee reward (5, 2 redeemed) and 10 for Cal.
      expectEvent(
        events,
        'reward_unlocked',
        {
          ...benQualified,
          referralReward: 10,
          referralRewardBalance: 10,
          refereeRewardRedeemed: 2,
          refereeRewardBalance: 3,
          totalReferred: 1,
          totalCompletedReferred: 1,
          revenueGenerated: 7.25,
          rewardDue: 13,
          rewardPaid: 2,
          updatedOn: iso(benRow.updated_on),
        },
        benRow.updated_on,
      );
      expectEvent(
        events,
        'reward_unlocked',
        {
          ...fresh(annRow, annCode),
          firstName: 'Ann',
          lastName: 'Lee',
          referralReward: 20,
          referralRewardRedeemed: 4,
          referralRewardBalance: 16,
          totalReferred: 2,
          totalCompletedReferred: 2,
          revenueGenerated: 12.5,
          rewardDue: 16,
          rewardPaid: 4,
          impressionCount: 2,
          updatedOn: iso(annRow.updated_on),
        },
        annRow.updated_on,
      );
      // The last event about each participant agrees with what the API says about them now.
      for (const [email, last] of [
        ['ann@example.com', events.find((e) => e.eventType === 'reward_unlocked' && e.data.email === 'ann@example.com')!],
        ['ben@example.com', events.find((e) => e.eventType === 'reward_unlocked' && e.data.email === 'ben@example.com')!],
      ] as const) {
        const p = await s.admin.getParticipant(id, email);
        assert.deepEqual(
          [last.data.code, last.data.referredByCode ?? undefined, last.data.referralReward, last.data.referralRewardRedeemed, last.data.referralRewardBalance],
          [p.referralCode, p.referredByCode, p.referralReward, p.referralRewardRedeemed, p.referralRewardBalance],
        );
        assert.deepEqual(
          [last.data.refereeReward, last.data.refereeRewardRedeemed, last.data.refereeRewardBalance, last.data.totalReferred, last.data.score, last.data.createdOn],
          [p.refereeReward, p.refereeRewardRedeemed, p.refereeRewardBalance, p.totalReferrals, p.fraudScore, p.createdOn],
        );
      }

      // Headers and signatures of all ten requests, verified the way a receiver would.
      const deliveries = await deliveriesWhen(s, 'delivered', 10, 'ten delivered');
      assert.equal(r.received.length, 10, 'each event once');
      const wh = new Webhook(secret);
      const other = new Webhook((await s.admin.createWebhookEndpoint({ url: r.url, eventTypes: ['referrer_added'] })).secret);
      for (const x of r.received) {
        const h = headersOf(x);
        assert.equal(x.method, 'POST');
        assert.equal(x.path, '/hooks');
        assert.equal(h['content-type'], 'application/json');
        assert.match(h['webhook-id']!, /^msg_[a-z0-9]+$/);
        assert.match(h['webhook-timestamp']!, /^\d+$/);
        const ts = Number(h['webhook-timestamp']);
        assert.ok(ts >= Math.floor(t0 / 1000) && ts <= Math.ceil(t1 / 1000), 'timestamp: seconds, at sending');
        assert.match(h['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
        assert.deepEqual(wh.verify(x.body, h), JSON.parse(x.body));
        assert.throws(() => wh.verify(x.body.replace(/"email":"(\w+)@/, '"email":"$1x@'), h), WebhookVerificationError, 'tampered body');
        assert.throws(() => wh.verify(x.body, { ...h, 'webhook-id': 'msg_other' }), WebhookVerificationError, 'other id');
        assert.throws(() => other.verify(x.body, h), WebhookVerificationError, 'other secret');
      }
      const ids = r.received.map((x) => headersOf(x)['webhook-id']!);
      assert.equal(new Set(ids).size, 10);
      assert.deepEqual(deliveries.map((d) => d.eventId).sort(), [...ids].sort());
      for (const d of deliveries) {
        assert.equal(d.endpointId, endpoint.id);
        assert.equal(d.eventType, parse(r.received[ids.indexOf(d.eventId)]!).eventType);
        assert.equal(d.attemptCount, 1);
        assert.equal(d.nextAttemptOn, null);
        assert.deepEqual(d.attempts.map((a) => [a.statusCode, a.error]), [[200, null]]);
      }
    });

    it('reward_unlocked waits for approval of a held-back referee, whichever of qualify and approve comes last', async () => {
      const { s, r, id } = await setup();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      // Aliases of the referrer's mailbox signing up in a browser are scored high and held back.
      await s.browser.addParticipant({ id, email: 'ann+one@example.com', referredByCode: ann.referralCode! });
      await s.browser.addParticipant({ id, email: 'ann+two@example.com', referredByCode: ann.referralCode! });
      await waitFor(() => r.received.length === 3, 'three signups');
      const held = r.received.slice(1).map(parse);
      for (const e of held) {
        assert.equal(e.eventType, 'referee_added');
        assert.equal(e.data.score, 'high');
        assert.equal(e.data.approval, false);
      }

      await s.admin.qualifyParticipant({ id, email: 'ann+one@example.com' });
      await s.admin.approveParticipant(id, 'ann+two@example.com');
      assert.equal(await countRows(s, 'webhook_events', 'reward_unlocked'), 0, 'held back: nothing unlocked');

      await s.admin.approveParticipant(id, 'ann+one@example.com');
      assert.equal(await countRows(s, 'webhook_events', 'reward_unlocked'), 2, 'approve after qualify unlocks both sides');
      await s.admin.qualifyParticipant({ id, email: 'ann+two@example.com' });
      await s.admin.approveParticipant(id, 'ann+two@example.com');
      await s.admin.qualifyParticipant({ id, email: 'ann+two@example.com' });
      assert.equal(await countRows(s, 'webhook_events', 'reward_unlocked'), 4, 'qualify after approve unlocks both sides, once');

      await waitFor(() => r.received.length === 7, 'seven deliveries');
      const unlocked = r.received.slice(3).map(parse);
      assert.ok(unlocked.every((e) => e.eventType === 'reward_unlocked'));
      const one = unlocked.find((e) => e.data.email === 'ann+one@example.com')!.data;
      assert.deepEqual([one.approval, one.score, one.refereeReward, one.refereeActionCompleted, one.rewardDue], [true, 'high', 5, true, 5]);
      const forAnn = unlocked.filter((e) => e.data.email === 'ann@example.com').map((e) => e.data.referralReward);
      assert.deepEqual(forAnn.sort((a, b) => a - b), [10, 20]);
    });

    it('a 500 then a 200: retried with the same webhook-id, delivered once, nothing after', async () => {
      const { s, r, id } = await setup();
      r.respond = (n) => ({ status: n === 1 ? 500 : 200 });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await deliveriesWhen(s, 'delivered', 1, 'delivered');
      assert.deepEqual(d!.attempts.map((a) => [a.statusCode, a.error]), [[500, 'HTTP 500'], [200, null]]);
      assert.equal(d!.attemptCount, 2);
      assert.equal(r.received.length, 2);
      assert.equal(headersOf(r.received[0]!)['webhook-id'], d!.eventId);
      assert.equal(headersOf(r.received[1]!)['webhook-id'], d!.eventId);
      assert.equal(r.received[0]!.body, r.received[1]!.body, 'the same body');
      // Longer than the whole retry schedule: a delivered delivery is not sent again.
      await sleep(600);
      assert.equal(r.received.length, 2, 'no third request');
      assert.equal((await s.admin.listWebhookDeliveries())[0]!.attempts.length, 2);
    });

    it('redirects and 4xx are failures too (a redirect is not followed)', async () => {
      const { s, r, id } = await setup();
      const elsewhere = await receiver();
      r.respond = (n) => (n === 1 ? { status: 302, headers: { location: elsewhere.url } } : n === 2 ? { status: 404 } : { status: 204 });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await deliveriesWhen(s, 'delivered', 1, 'delivered on the third try');
      assert.deepEqual(d!.attempts.map((a) => a.statusCode), [302, 404, 204]);
      assert.deepEqual(d!.attempts.map((a) => a.error), ['HTTP 302', 'HTTP 404', null]);
      assert.equal(elsewhere.received.length, 0);
    });

    it('a receiver that is down: each try recorded with its error, retried on the schedule, then failed; redelivery works once it is up', async () => {
      const port = await freePort();
      const s = await service({ dispatcher: { ...FAST, retryDelaysMs: [150, 300] } });
      const { id: endpointId } = await s.admin.createWebhookEndpoint({ url: `http://127.0.0.1:${port}/hooks`, eventTypes: ALL });
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [failed] = await deliveriesWhen(s, 'failed', 1, 'failed');
      assert.equal(failed!.endpointId, endpointId);
      assert.equal(failed!.attemptCount, 3, 'the first try and one per retry delay');
      assert.equal(failed!.nextAttemptOn, null);
      assert.equal(failed!.attempts.length, 3);
      for (const a of failed!.attempts) {
        assert.equal(a.statusCode, null);
        assert.match(a.error ?? '', /ECONNREFUSED/, 'the error says why');
      }
      // Each retry waited at least its delay after the previous try ended.
      const times = failed!.attempts.map((a) => Date.parse(a.attemptedOn) + a.durationMs);
      const starts = failed!.attempts.map((a) => Date.parse(a.attemptedOn));
      assert.ok(starts[1]! - times[0]! >= 150, `first retry after 150 ms (${starts[1]! - times[0]!})`);
      assert.ok(starts[2]! - times[1]! >= 300, `second retry after 300 ms (${starts[2]! - times[1]!})`);

      const up = await receiver(port);
      await s.admin.redeliverWebhook(failed!.id);
      const [d] = await deliveriesWhen(s, 'delivered', 1, 'redelivered');
      assert.equal(d!.id, failed!.id);
      assert.equal(up.received.length, 1);
      assert.equal(headersOf(up.received[0]!)['webhook-id'], failed!.eventId);
      assert.deepEqual(d!.attempts.map((a) => a.statusCode), [null, null, null, 200]);
      assert.equal(d!.attemptCount, 1, 'a fresh schedule');

      // A delivered delivery can be replayed too, with the same id.
      await s.admin.redeliverWebhook(d!.id);
      await waitFor(() => up.received.length === 2, 'replayed');
      assert.equal(headersOf(up.received[1]!)['webhook-id'], failed!.eventId);
      await deliveriesWhen(s, 'delivered', 1, 'delivered again');
      await rejects(() => s.admin.redeliverWebhook('dlv_nope'), 404, 'delivery_not_found');
    });

    it('a slow receiver: the attempt times out, is recorded as such, and is retried', async () => {
      const { s, r, id } = await setup({ dispatcher: { ...FAST, timeoutMs: 300 } });
      r.respond = (n) => (n === 1 ? { status: 200, delayMs: 2_000 } : { status: 200 });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await deliveriesWhen(s, 'delivered', 1, 'delivered after the timeout');
      assert.equal(d!.attempts.length, 2);
      assert.equal(d!.attempts[0]!.statusCode, null);
      assert.equal(d!.attempts[0]!.error, 'no answer within 300 ms');
      assert.ok(d!.attempts[0]!.durationMs >= 300);
      assert.deepEqual([d!.attempts[1]!.statusCode, d!.attempts[1]!.error], [200, null]);
      assert.equal(r.received.length, 2);
      assert.equal(headersOf(r.received[0]!)['webhook-id'], headersOf(r.received[1]!)['webhook-id']);
    });

    it('endpoints get only the types they selected; one event, one delivery per endpoint, each signed with its own secret', async () => {
      const { s, r, secret, id } = await setup();
      const only = await receiver();
      const some = await receiver();
      const refereeOnly = await s.admin.createWebhookEndpoint({ url: only.url, eventTypes: ['referee_added'] });
      const twoTypes = await s.admin.createWebhookEndpoint({ url: some.url, eventTypes: ['reward_unlocked', 'referrer_added'] });
      assert.deepEqual(twoTypes.eventTypes, ['reward_unlocked', 'referrer_added']);
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
      await deliveriesWhen(s, 'delivered', 8, 'all delivered');
      const types = (x: Receiver) => x.received.map((q) => parse(q).eventType).sort();
      assert.deepEqual(types(r), ['referee_added', 'referrer_added', 'reward_unlocked', 'reward_unlocked']);
      assert.deepEqual(types(only), ['referee_added']);
      assert.deepEqual(types(some), ['referrer_added', 'reward_unlocked', 'reward_unlocked']);

      // The referee_added event went to two endpoints: two deliveries, one webhook-id, two signatures.
      const toAll = r.received.find((q) => parse(q).eventType === 'referee_added')!;
      const toOnly = only.received[0]!;
      assert.equal(headersOf(toOnly)['webhook-id'], headersOf(toAll)['webhook-id']);
      assert.equal(toOnly.body, toAll.body);
      assert.notEqual(headersOf(toOnly)['webhook-signature'], headersOf(toAll)['webhook-signature']);
      new Webhook(refereeOnly.secret).verify(toOnly.body, headersOf(toOnly));
      new Webhook(secret).verify(toAll.body, headersOf(toAll));
      assert.throws(() => new Webhook(secret).verify(toOnly.body, headersOf(toOnly)), WebhookVerificationError);
      assert.throws(() => new Webhook(twoTypes.secret).verify(toAll.body, headersOf(toAll)), WebhookVerificationError);
      const ofEvent = (await s.admin.listWebhookDeliveries({ eventType: 'referee_added' }));
      assert.equal(ofEvent.length, 2);
      assert.equal(new Set(ofEvent.map((d) => d.id)).size, 2);
      assert.equal(new Set(ofEvent.map((d) => d.eventId)).size, 1);
      assert.deepEqual(ofEvent.map((d) => d.endpointId).sort(), [refereeOnly.id, (await s.admin.listWebhookEndpoints())[0]!.id].sort());
    });

    it('a removed endpoint gets nothing more: no new deliveries, its retries end (even one in flight), no redelivery', async () => {
      const { s, r, id } = await setup({ dispatcher: { ...FAST, timeoutMs: 2_000 } });
      // One endpoint whose delivery has failed once and waits for a retry, one whose attempt is in flight.
      const waiting = await receiver();
      waiting.respond = () => ({ status: 503 });
      const inFlight = await receiver();
      inFlight.respond = () => ({ status: 503, delayMs: 1_000 });
      const waitingEndpoint = await s.admin.createWebhookEndpoint({ url: waiting.url, eventTypes: ['referrer_added'] });
      const inFlightEndpoint = await s.admin.createWebhookEndpoint({ url: inFlight.url, eventTypes: ['referrer_added'] });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      await waitFor(async () => {
        const [d] = await s.admin.listWebhookDeliveries({ endpointId: waitingEndpoint.id });
        return d?.status === 'pending' && d.attempts.length === 1 && inFlight.received.length === 1;
      }, 'one try waiting for its retry, one in flight');
      for (const e of [waitingEndpoint, inFlightEndpoint]) assert.deepEqual(await s.admin.deleteWebhookEndpoint(e.id), { ok: true });
      assert.deepEqual((await s.admin.listWebhookEndpoints()).map((e) => e.url), [r.url]);

      await s.admin.addParticipant({ id, email: 'b@example.com' });
      await waitFor(() => r.received.length === 2, 'the remaining endpoint still gets both events');
      // The attempt in flight ends (a 503, which would schedule a retry) after the removal.
      const [ended] = await waitFor(async () => {
        const list = await s.admin.listWebhookDeliveries({ endpointId: inFlightEndpoint.id });
        return list[0]?.attempts.length === 1 && list;
      }, 'the attempt in flight recorded');
      assert.equal(ended!.attempts[0]!.statusCode, 503);
      await sleep(500); // longer than the whole retry schedule
      assert.equal(waiting.received.length, 1, 'no retry to a removed endpoint');
      assert.equal(inFlight.received.length, 1, 'no retry to a removed endpoint, though its attempt ended after the removal');
      for (const e of [waitingEndpoint, inFlightEndpoint]) {
        const [d, ...more] = await s.admin.listWebhookDeliveries({ endpointId: e.id });
        assert.equal(more.length, 0, 'no delivery of the second event to it');
        assert.deepEqual([d!.status, d!.nextAttemptOn], ['failed', null]);
        await rejects(() => s.admin.redeliverWebhook(d!.id), 404, 'delivery_not_found');
        await rejects(() => s.admin.deleteWebhookEndpoint(e.id), 404, 'webhook_endpoint_not_found');
      }
      assert.equal((await s.admin.listWebhookDeliveries({ status: 'pending' })).length, 0);
      await rejects(() => s.admin.deleteWebhookEndpoint('whe_nope'), 404, 'webhook_endpoint_not_found');
    });

    it('listWebhookDeliveries filters by status, endpoint and event type, newest first, with a limit', async () => {
      const { s, r, endpoint, id } = await setup();
      const down = await s.admin.createWebhookEndpoint({ url: `http://127.0.0.1:${await freePort()}/x`, eventTypes: ['referee_added'] });
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.addParticipant({ id, email: 'cal@example.com', referredByCode: ann.referralCode! });
      await waitFor(() => r.received.length === 3, 'three delivered');
      await deliveriesWhen(s, 'failed', 2, 'two failed');

      const all = await s.admin.listWebhookDeliveries();
      assert.equal(all.length, 5);
      const created = all.map((d) => d.createdOn);
      assert.deepEqual(created, [...created].sort().reverse(), 'newest first');
      const delivered = await s.admin.listWebhookDeliveries({ status: 'delivered' });
      assert.deepEqual([delivered.length, new Set(delivered.map((d) => d.endpointId))], [3, new Set([endpoint.id])]);
      const failed = await s.admin.listWebhookDeliveries({ status: 'failed' });
      assert.deepEqual([failed.length, new Set(failed.map((d) => d.endpointId))], [2, new Set([down.id])]);
      assert.equal((await s.admin.listWebhookDeliveries({ status: 'pending' })).length, 0);
      assert.equal((await s.admin.listWebhookDeliveries({ endpointId: down.id })).length, 2);
      assert.equal((await s.admin.listWebhookDeliveries({ endpointId: 'whe_nope' })).length, 0);
      const referees = await s.admin.listWebhookDeliveries({ eventType: 'referee_added' });
      assert.equal(referees.length, 4);
      assert.ok(referees.every((d) => d.eventType === 'referee_added'));
      // Each delivery names the participant the event is about, and the campaign.
      assert.deepEqual(new Set(referees.map((d) => d.participantEmail)), new Set(['ben@example.com', 'cal@example.com']));
      assert.deepEqual(all.filter((d) => d.eventType === 'referrer_added').map((d) => d.participantEmail), ['ann@example.com']);
      assert.ok(all.every((d) => d.campaignId === id));
      assert.equal((await s.admin.listWebhookDeliveries({ eventType: 'referrer_added' })).length, 1);
      assert.equal((await s.admin.listWebhookDeliveries({ eventType: 'reward_unlocked' })).length, 0);
      assert.equal((await s.admin.listWebhookDeliveries({ eventType: 'referee_added', endpointId: endpoint.id, status: 'delivered' })).length, 2);
      assert.equal((await s.admin.listWebhookDeliveries({ eventType: 'referee_added', status: 'failed', endpointId: endpoint.id })).length, 0);
      const two = await s.admin.listWebhookDeliveries({ limit: 2 });
      assert.deepEqual(two.map((d) => d.id), all.slice(0, 2).map((d) => d.id));
      await rejects(() => s.admin.listWebhookDeliveries({ limit: 0 }), 400, 'invalid_request');
      await rejects(() => s.admin.listWebhookDeliveries({ limit: 101 }), 400, 'invalid_request');
      await rejects(() => s.admin.listWebhookDeliveries({ status: 'lost' as never }), 400, 'invalid_request');
      await rejects(() => s.admin.listWebhookDeliveries({ eventType: 'nothing' as never }), 400, 'invalid_request');
    });

    it('the webhook routes need a secret key, and an account sees and touches only its own', async () => {
      const { s, r, endpoint, id } = await setup();
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await deliveriesWhen(s, 'delivered', 1, 'delivered');
      const routes: [string, string, unknown?][] = [
        ['POST', 'createWebhookEndpoint', { url: r.url, eventTypes: ALL }],
        ['GET', 'listWebhookEndpoints'],
        ['POST', 'deleteWebhookEndpoint', { id: endpoint.id }],
        ['GET', 'listWebhookDeliveries'],
        ['POST', 'redeliverWebhook', { id: d!.id }],
      ];
      for (const authorization of [undefined, 'Bearer sk_wrong_0123456789abcdef', `Basic ${s.secretKey}`]) {
        for (const [method, route, body] of routes) {
          const res = await fetch(`${s.url}/api/v1/admin/${route}`, {
            method,
            headers: { ...(authorization && { authorization }), ...(body !== undefined && { 'content-type': 'application/json' }) },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          assert.equal(res.status, 401, `${route} with ${authorization ?? 'no key'}`);
          assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
        }
      }
      assert.equal((await s.admin.listWebhookEndpoints()).length, 1, 'nothing was created or removed');
      assert.equal(r.received.length, 1, 'nothing was redelivered');

      // A second account: its own endpoints and deliveries only.
      const account = await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).returning('id').executeTakeFirstOrThrow();
      const { key } = await createApiKey(s.ctx, { accountId: Number(account.id) }, 'other');
      const otherAdmin = new RefkitClient({ baseUrl: s.url, secretKey: key });
      assert.deepEqual(await otherAdmin.listWebhookEndpoints(), []);
      assert.deepEqual(await otherAdmin.listWebhookDeliveries(), []);
      await rejects(() => otherAdmin.redeliverWebhook(d!.id), 404, 'delivery_not_found');
      await rejects(() => otherAdmin.deleteWebhookEndpoint(endpoint.id), 404, 'webhook_endpoint_not_found');
      const theirs = await receiver();
      await otherAdmin.createWebhookEndpoint({ url: theirs.url, eventTypes: ALL });
      const otherCampaign = (await otherAdmin.createCampaign({ campaignName: 'Other', hostURL: 'https://other.example' })).campaignId!;
      await otherAdmin.addParticipant({ id: otherCampaign, email: 'z@example.com' });
      await waitFor(() => theirs.received.length === 1, 'their event');
      assert.equal(parse(theirs.received[0]!).data.campaignId, otherCampaign);
      assert.equal(r.received.length, 1, 'not to the first account');
      assert.equal((await s.admin.listWebhookDeliveries()).length, 1);
      assert.equal((await otherAdmin.listWebhookDeliveries()).length, 1);
    });

    it('creating an endpoint: the secret is shown once, types are checked, and private targets are refused unless allowed', async () => {
      const s = await service({});
      const created = await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks?x=1', eventTypes: ['reward_unlocked'] });
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.match(created.id, /^whe_/);
      assert.deepEqual(await s.admin.listWebhookEndpoints(), [{ id: created.id, url: 'http://127.0.0.1:9/hooks?x=1', eventTypes: ['reward_unlocked'], test: false, createdOn: created.createdOn }]);
      for (const body of [
        { url: 'http://127.0.0.1:9/', eventTypes: [] },
        { url: 'http://127.0.0.1:9/', eventTypes: ['referrer_added', 'referrer_added'] },
        { url: 'http://127.0.0.1:9/', eventTypes: ['participant_deleted'] },
        { url: 'ftp://127.0.0.1/', eventTypes: ['referrer_added'] },
        { url: 'not a url', eventTypes: ['referrer_added'] },
      ]) {
        await rejects(() => s.admin.createWebhookEndpoint(body as never), 400, 'invalid_request');
      }

      // The same service and database behind an app that does not allow private targets.
      const strict = await buildApp({ ctx: s.ctx, config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent', webhookAllowPrivate: false }, logger: false });
      open.push({ close: async () => void (await strict.close()) });
      const create = (url: string) =>
        strict.inject({
          method: 'POST',
          url: '/api/v1/admin/createWebhookEndpoint',
          headers: { authorization: `Bearer ${s.secretKey}` },
          payload: { url, eventTypes: ['referrer_added'] },
        });
      for (const url of [
        'http://127.0.0.1:8080/hooks',
        'http://localhost/hooks',
        'http://[::1]/hooks',
        'http://[::ffff:127.0.0.1]/hooks',
        'http://10.1.2.3/hooks',
        'https://192.168.0.10/hooks',
        'http://172.16.5.4/hooks',
        'http://169.254.169.254/latest/meta-data',
        'http://0.0.0.0/hooks',
        'http://100.64.0.1/hooks',
        'http://0x7f000001/hooks',
      ]) {
        const res = await create(url);
        assert.equal(res.statusCode, 400, url);
        assert.deepEqual([res.json().error.code, res.json().error.field], ['invalid_request', 'url'], url);
      }
      const pub = await create('https://93.184.215.14/hooks');
      assert.equal(pub.statusCode, 200, pub.body);
      assert.equal((await s.admin.listWebhookEndpoints()).length, 2);
    });

    it('a dispatcher that does not allow private targets does not send to one stored earlier', async () => {
      const { s, r, id } = await setup({ dispatcher: { ...FAST, retryDelaysMs: [50], allowPrivate: false } });
      await s.admin.addParticipant({ id, email: 'a@example.com' });
      const [d] = await deliveriesWhen(s, 'failed', 1, 'failed');
      assert.equal(d!.attempts.length, 2);
      for (const a of d!.attempts) {
        assert.equal(a.statusCode, null);
        assert.match(a.error!, /private or loopback/);
      }
      assert.equal(r.received.length, 0);
    });

    it('the outbox: an event exists exactly when its change does', async () => {
      const { s, id } = await setup({});
      await rejects(() => s.admin.addParticipant({ id, email: 'x@example.com', referredByCode: 'NOBODY23' }), 404, 'referrer_not_found');
      await rejects(() => s.admin.addParticipant({ id, email: 'x@example.com', referredByEmail: 'x@example.com' }), 409, 'self_referral');
      assert.equal(await countRows(s, 'webhook_events'), 0, 'failed signups leave no event');
      assert.equal(await countRows(s, 'webhook_deliveries'), 0);
      assert.equal((await s.admin.getCampaign(id)).participants, 0);

      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await Promise.all(Array.from({ length: 20 }, () => s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! })));
      assert.equal(await countRows(s, 'webhook_events', 'referrer_added'), 1);
      assert.equal(await countRows(s, 'webhook_events', 'referee_added'), 1, 'the same signup 20 times at once: one event');
      await Promise.all(Array.from({ length: 20 }, () => s.admin.qualifyParticipant({ id, email: 'ben@example.com' })));
      assert.equal(await countRows(s, 'webhook_events', 'reward_unlocked'), 2, '20 qualifies at once: referee and referrer, once');
      const unlocked = await s.ctx.store.db.selectFrom('webhook_events').select('payload').where('event_type', '=', 'reward_unlocked').execute();
      assert.deepEqual(unlocked.map((e) => (JSON.parse(e.payload) as WebhookEvent).data.email).sort(), ['ann@example.com', 'ben@example.com']);
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
      await s.admin.approveParticipant(id, 'ben@example.com');
      assert.equal(await countRows(s, 'webhook_events'), 4, 'qualifying or approving again emits nothing');
      assert.equal(await countRows(s, 'webhook_deliveries'), 4, 'one delivery per event for the one endpoint');
    });

    it('an event no endpoint takes is not written; one that an endpoint takes is, with its delivery', async () => {
      const s = await service({});
      const id = await s.campaign();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await s.browser.signUp({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'ben@example.com' });
      assert.equal(await countRows(s, 'webhook_events'), 0, 'no endpoint: no sign-up or reward leaves an outbox row');

      // An endpoint for one type: only that type's events are written from now on, each with its delivery.
      await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referee_added'] });
      await s.admin.addParticipant({ id, email: 'cat@example.com' });
      await s.admin.addParticipant({ id, email: 'dan@example.com', referredByCode: ann.referralCode! });
      await s.admin.qualifyParticipant({ id, email: 'dan@example.com' });
      assert.equal(await countRows(s, 'webhook_events'), 1);
      assert.equal(await countRows(s, 'webhook_events', 'referee_added'), 1);
      assert.equal(await countRows(s, 'webhook_deliveries'), 1);
      const [event] = await s.ctx.store.db.selectFrom('webhook_events').select('payload').execute();
      assert.equal((JSON.parse(event!.payload) as WebhookEvent).data.email, 'dan@example.com');
      // The changes themselves are all there: only the events nobody takes were left out.
      assert.equal((await s.admin.getCampaign(id)).participants, 4);
      const annNow = await s.admin.getParticipant(id, 'ann@example.com');
      assert.equal(annNow.totalReferrals, 2);
      assert.equal(annNow.referralReward, 2 * (await s.admin.getCampaign(id)).referrerRewardValue!);
    });

    if (kind.dialect === 'postgres') {
      it('two dispatchers over two connections to one PostgreSQL deliver each event once per endpoint', async () => {
        const { s, r, id } = await setup({});
        const second = await receiver();
        await s.admin.createWebhookEndpoint({ url: second.url, eventTypes: ['referrer_added'] });
        // A backlog for both to compete for: 30 signups, two endpoints, 60 deliveries.
        await Promise.all(Array.from({ length: 30 }, (_, i) => s.admin.addParticipant({ id, email: `u${i}@example.com` })));
        assert.equal(await countRows(s, 'webhook_deliveries'), 60);
        r.respond = () => ({ status: 200, delayMs: 20 });
        second.respond = () => ({ status: 200, delayMs: 20 });
        const runtimes = await Promise.all([openRuntime({ databaseUrl: s.database.url }), openRuntime({ databaseUrl: s.database.url })]);
        const attemptsBy = [0, 0];
        runtimes.forEach((rt, i) => {
          const finish = rt.ctx.store.webhooks.finishAttempt.bind(rt.ctx.store.webhooks);
          rt.ctx.store.webhooks.finishAttempt = (...args) => {
            attemptsBy[i]!++;
            return finish(...args);
          };
        });
        const dispatchers = runtimes.map((rt) => new Dispatcher(rt.ctx, { ...FAST, allowPrivate: true, batchSize: 3 }));
        try {
          dispatchers.forEach((d) => d.start());
          await deliveriesWhen(s, 'delivered', 60, 'all 60 delivered');
          await sleep(300);
          for (const rec of [r, second]) {
            const ids = rec.received.map((x) => headersOf(x)['webhook-id']);
            assert.equal(ids.length, 30, 'thirty requests');
            assert.equal(new Set(ids).size, 30, 'each event once');
          }
          assert.equal(attemptsBy[0]! + attemptsBy[1]!, 60, 'one attempt per delivery');
          assert.ok(attemptsBy[0]! > 0 && attemptsBy[1]! > 0, `both dispatchers took part (${attemptsBy.join(' + ')})`);
          const all = await s.admin.listWebhookDeliveries({ limit: 100 });
          assert.ok(all.every((d) => d.attemptCount === 1 && d.attempts.length === 1));
        } finally {
          for (const d of dispatchers) await d.stop();
          for (const rt of runtimes) await rt.close();
        }
      });
    }
  });
});
