/**
 * `refkit webhook add|list|deliveries|redeliver|remove`, the CLI's program run in this process (helpers/cli.ts)
 * against a new SQLite file, with a dispatcher run between commands to make deliveries fail or succeed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../src/api/schemas.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { createCampaign } from '../../src/server/campaigns/domain/campaigns.js';
import { qualifyParticipant } from '../../src/server/rewards/domain/rewards.js';
import { addParticipant } from '../../src/server/referrals/domain/signups.js';
import { openRuntime } from '../../src/server/runtime.js';
import { Dispatcher } from '../../src/server/webhooks/domain/dispatcher.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { cli } from './helpers/cli.js';
import { startReceiver, waitFor, type Receiver } from './helpers/receiver.js';

const [sqlite] = await databaseKinds();

describe('refkit webhook (CLI)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let r: Receiver;
  before(async () => {
    db = await sqlite!.createEmpty();
    env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true' };
    r = await startReceiver();
  });
  after(async () => {
    await r.close();
    await db.drop();
  });

  async function ok(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
    const res = await cli(args, { ...env, ...extraEnv });
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res.stdout;
  }
  const json = async <T>(args: string[]) => JSON.parse(await ok([...args, '--json'])) as T;
  async function fails(args: string[], pattern: RegExp, extraEnv: Record<string, string> = {}): Promise<void> {
    const res = await cli(args, { ...env, ...extraEnv });
    assert.notEqual(res.code, 0, `${args.join(' ')} should fail`);
    assert.match(res.stderr, pattern);
    assert.equal(res.stdout, '');
  }
  /** Runs a dispatcher over the database until nothing is due, with no retries: one attempt each. */
  async function dispatchOnce(): Promise<void> {
    const rt = await openRuntime({ databaseUrl: db.url });
    const dispatcher = new Dispatcher(rt.ctx, { allowPrivate: true, retryDelaysMs: [], timeoutMs: 2_000, pollMs: 50, leaseMs: 5_000 });
    try {
      dispatcher.start();
      await waitFor(
        async () => (await rt.ctx.store.webhooks.listDeliveries({ accountId: DEFAULT_ACCOUNT.accountId, status: 'pending', limit: 1 })).length === 0,
        'nothing pending',
      );
    } finally {
      await dispatcher.stop();
      await rt.close();
    }
  }

  it('add (the secret printed once), list, deliveries with filters, redeliver, remove', async () => {
    // add: --json answers the endpoint with its secret; the human form prints it as a line. The first
    // command migrates the new database. (Commands run one at a time: in one process, a SQLite writer
    // waiting for another's lock would block the thread the other needs; separate processes starting
    // together on a new database are startup-race.test.ts's.)
    const signups = await json<WebhookEndpoint & { secret: string }>(['webhook', 'add', '--url', r.url, '--events', 'referrer_added,referee_added']);
    const human = await ok(['webhook', 'add', '--url', `${r.url}/rewards`, '--events', ' reward_unlocked ']);
    assert.match(signups.id, /^whe_/);
    assert.equal(signups.url, r.url);
    assert.deepEqual(signups.eventTypes, ['referrer_added', 'referee_added']);
    assert.match(signups.secret, /^whsec_/);
    const rewardsId = /^id: (whe_\S+)$/m.exec(human)![1]!;
    assert.match(human, /^secret: whsec_\S+$/m);
    assert.match(human, /^eventTypes: \["reward_unlocked"\]$/m);

    // list: both, never a secret. Refusals: an unknown type, a private target where they are not allowed.
    await fails(['webhook', 'add', '--url', r.url, '--events', 'referrer_added,participant_deleted'], /invalid_request/);
    await fails(['webhook', 'add', '--url', r.url, '--events', 'referrer_added'], /private or loopback.*\(invalid_request, url\)/, { WEBHOOK_ALLOW_PRIVATE: 'false' });
    const listed = await json<WebhookEndpoint[]>(['webhook', 'list']);
    assert.deepEqual(
      listed.map((e) => [e.id, e.url, e.eventTypes, e.secret]).sort(),
      [
        [signups.id, r.url, ['referrer_added', 'referee_added'], undefined],
        [rewardsId, `${r.url}/rewards`, ['reward_unlocked'], undefined],
      ].sort(),
    );

    // Three changes in the service's domain: Ann joins, Ben joins through her, Ben qualifies.
    const rt = await openRuntime({ databaseUrl: db.url });
    let campaignId: string;
    try {
      campaignId = (await createCampaign(rt.ctx, DEFAULT_ACCOUNT, { campaignName: 'CLI', hostURL: 'https://cli.example', referrerRewardValue: 10 })).id;
      const ann = await addParticipant(rt.ctx, { id: campaignId, email: 'ann@example.com' }, { source: 'api', ip: null });
      await addParticipant(rt.ctx, { id: campaignId, email: 'ben@example.com', referredByCode: ann.participant!.code }, { source: 'api', ip: null });
      await qualifyParticipant(rt.ctx, DEFAULT_ACCOUNT, { id: campaignId, email: 'ben@example.com' });
    } finally {
      await rt.close();
    }

    // deliveries: four pending, and each filter.
    const all = await json<WebhookDelivery[]>(['webhook', 'deliveries']);
    const referees = await json<WebhookDelivery[]>(['webhook', 'deliveries', '--status', 'pending', '--event-type', 'referee_added']);
    const rewards = await json<WebhookDelivery[]>(['webhook', 'deliveries', '--endpoint', rewardsId, '--limit', '1']);
    assert.equal(all.length, 4);
    assert.ok(all.every((d) => d.status === 'pending' && d.attempts.length === 0 && d.attemptCount === 0));
    assert.deepEqual(all.map((d) => d.eventType).sort(), ['referee_added', 'referrer_added', 'reward_unlocked', 'reward_unlocked']);
    assert.deepEqual(referees.map((d) => [d.eventType, d.endpointId]), [['referee_added', signups.id]]);
    assert.deepEqual(rewards.map((d) => [d.eventType, d.endpointId]), [['reward_unlocked', rewardsId]]);

    // The receiver refuses everything: with no retries, all four fail.
    r.respond = () => ({ status: 500 });
    await dispatchOnce();
    assert.equal(r.received.length, 4);
    const failed = await json<WebhookDelivery[]>(['webhook', 'deliveries', '--status', 'failed']);
    assert.equal(failed.length, 4);
    assert.ok(failed.every((d) => d.attempts.length === 1 && d.attempts[0]!.statusCode === 500 && d.attempts[0]!.error === 'HTTP 500'));

    // redeliver the referee_added delivery (pending again, with a fresh schedule); remove the other endpoint.
    const referee = failed.find((d) => d.eventType === 'referee_added')!;
    const redelivered = await json(['webhook', 'redeliver', '--id', referee.id]);
    const removed = await json(['webhook', 'remove', '--id', rewardsId]);
    await fails(['webhook', 'redeliver', '--id', 'dlv_nope'], /delivery_not_found/);
    assert.deepEqual([redelivered, removed], [{ ok: true }, { ok: true }]);
    await fails(['webhook', 'remove', '--id', rewardsId], /webhook_endpoint_not_found/);
    const pending = await json<WebhookDelivery[]>(['webhook', 'deliveries', '--status', 'pending']);
    const left = await json<WebhookEndpoint[]>(['webhook', 'list']);
    assert.deepEqual(pending.map((d) => [d.id, d.attemptCount, d.attempts.length]), [[referee.id, 0, 1]]);
    assert.deepEqual(left.map((e) => e.id), [signups.id], 'the removed one is gone, and the refusals added nothing');

    r.respond = () => ({ status: 200 });
    await dispatchOnce();
    assert.equal(r.received.length, 5);
    const sent = r.received[4]!;
    assert.equal(sent.headers['webhook-id'], referee.eventId);
    // Signed with the secret `webhook add` printed.
    const event = new Webhook(signups.secret).verify(sent.body, sent.headers as Record<string, string>) as WebhookEvent;
    assert.deepEqual([event.eventType, event.data.email, event.data.campaignId], ['referee_added', 'ben@example.com', campaignId]);
    const delivered = await json<WebhookDelivery[]>(['webhook', 'deliveries', '--status', 'delivered']);
    assert.deepEqual(delivered.map((d) => [d.id, d.attempts.map((a) => a.statusCode)]), [[referee.id, [500, 200]]]);
  });
});
