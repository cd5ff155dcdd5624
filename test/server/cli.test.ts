import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { cli } from './helpers/cli.js';

const [sqlite] = await databaseKinds();

describe('refkit CLI', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    db = await sqlite!.createEmpty();
    env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true' };
  });
  after(() => db.drop());

  const json = async (args: string[]) => {
    const r = await cli([...args, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown> & { campaignId?: string };
  };

  it('migrate, then campaign create/update/status through the admin routes', async () => {
    const m = await cli(['migrate'], env);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /up to date/);
    const c = await json(['campaign', 'create', '--name', 'Spring', '--host-url', 'https://shop.example/join', '--referrer-reward', '10', '--allowed-origin', 'https://a.example', '--allowed-origin', 'https://b.example']);
    assert.equal(c.campaignName, 'Spring');
    assert.equal(c.referrerRewardValue, 10);
    const u = await json(['campaign', 'update', '--id', c.campaignId!, '--share-header', 'Share!']);
    assert.equal(u.shareHeader, 'Share!');
    assert.equal((await json(['campaign', 'status', '--id', c.campaignId!, '--status', 'End'])).status, 'End');
    const refused = await cli(['campaign', 'status', '--id', c.campaignId!, '--status', 'Active'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /invalid_transition/);
    const human = await cli(['campaign', 'update', '--id', c.campaignId!, '--reward-header', 'RH'], env);
    assert.match(human.stdout, /^campaignId: cmp_/m);
    assert.match(human.stdout, /^rewardHeader: RH$/m);
    const bad = await cli(['campaign', 'create', '--name', 'X', '--host-url', 'not-a-url'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request/);
    const badNumber = await cli(['campaign', 'create', '--name', 'X', '--host-url', 'https://x.example', '--referrer-reward', 'ten'], env);
    assert.notEqual(badNumber.code, 0);
    assert.match(badNumber.stderr, /Not an integer/);
  });

  it('campaign secret (and --rotate), participant sign-out, --require-email-confirmation needs SMTP_URL', async () => {
    const c = await json(['campaign', 'create', '--name', 'S', '--host-url', 'https://s.example']);
    const first = await json(['campaign', 'secret', '--id', c.campaignId!]);
    assert.match(String(first.secret), /^cs_/);
    assert.deepEqual(await json(['campaign', 'secret', '--id', c.campaignId!]), first);
    const rotated = await json(['campaign', 'secret', '--id', c.campaignId!, '--rotate']);
    assert.notEqual(rotated.secret, first.secret);
    const noSmtp = await cli(['campaign', 'update', '--id', c.campaignId!, '--require-email-confirmation', 'true'], env);
    assert.equal(noSmtp.code, 1);
    assert.match(noSmtp.stderr, /SMTP_URL.*requireEmailConfirmation/);
    const withSmtp = await cli(['campaign', 'update', '--id', c.campaignId!, '--require-email-confirmation', 'true', '--json'], { ...env, SMTP_URL: 'smtp://127.0.0.1:2525' });
    assert.equal(withSmtp.code, 0, withSmtp.stderr);
    const missing = await cli(['participant', 'sign-out', '--id', c.campaignId!, '--email', 'nobody@example.com'], env);
    assert.match(missing.stderr, /participant_not_found/);
  });

  it('keys: create (shown once), list (never shown), revoke', async () => {
    const k = await json(['key', 'create', '--name', 'backend']);
    assert.match(String(k.key), /^sk_/);
    const list = (await json(['key', 'list'])) as unknown as { id: string; key?: string }[];
    assert.ok(list.some((x) => x.id === k.id && x.key === undefined));
    assert.deepEqual(await json(['key', 'revoke', '--id', String(k.id)]), { ok: true });
    assert.equal((await cli(['key', 'revoke', '--id', String(k.id)], env)).code, 1);
  });

  it('participants: redeem and approve; webhooks: add, list, deliveries, redeliver, remove', async () => {
    const { openRuntime } = await import('../../src/server/runtime.js');
    const { addParticipant } = await import('../../src/server/domain/signups.js');
    const { qualifyParticipant } = await import('../../src/server/domain/rewards.js');
    const { DEFAULT_ACCOUNT } = await import('../../src/server/domain/context.js');
    const hook = await json(['webhook', 'add', '--url', 'http://127.0.0.1:9/hooks', '--events', 'referrer_added,referee_added']);
    assert.match(String(hook.secret), /^whsec_/);
    const c = await json(['campaign', 'create', '--name', 'P', '--host-url', 'https://p.example', '--referrer-reward', '10']);
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      const ann = await addParticipant(rt.ctx, { id: c.campaignId!, email: 'ann@example.com' }, { source: 'api', ip: null });
      await addParticipant(rt.ctx, { id: c.campaignId!, email: 'ben@example.com', referredByCode: ann.participant!.code }, { source: 'api', ip: null });
      await qualifyParticipant(rt.ctx, DEFAULT_ACCOUNT, { id: c.campaignId!, email: 'ben@example.com' });
    } finally {
      await rt.close();
    }
    const redeemed = await json(['participant', 'redeem', '--id', c.campaignId!, '--email', 'ann@example.com', '--kind', 'referral', '--amount', '4']);
    assert.equal(redeemed.referralRewardBalance, 6);
    const over = await cli(['participant', 'redeem', '--id', c.campaignId!, '--email', 'ann@example.com', '--kind', 'referral', '--amount', '7'], env);
    assert.equal(over.code, 1);
    assert.match(over.stderr, /insufficient_balance/);
    assert.equal((await json(['participant', 'approve', '--id', c.campaignId!, '--email', 'ben@example.com'])).email, 'ben@example.com');

    const endpoints = (await json(['webhook', 'list'])) as unknown as { id: string; secret?: string }[];
    assert.deepEqual(endpoints.map((e) => [e.id, e.secret]), [[hook.id, undefined]]);
    const deliveries = (await json(['webhook', 'deliveries', '--status', 'pending'])) as unknown as { id: string; eventType: string }[];
    assert.deepEqual(deliveries.map((d) => d.eventType).sort(), ['referee_added', 'referrer_added']);
    assert.deepEqual(await json(['webhook', 'redeliver', '--id', deliveries[0]!.id]), { ok: true });
    assert.deepEqual(await json(['webhook', 'remove', '--id', String(hook.id)]), { ok: true });
    assert.deepEqual(await json(['webhook', 'list']), [] as never);
  });

  it('campaign create/update --share-message-* set the per-channel share messages', async () => {
    const c = await json(['campaign', 'create', '--name', 'M', '--host-url', 'https://m.example', '--share-message-x', 'Try {link}', '--share-message-email-subject', 'Hi']);
    await json(['campaign', 'update', '--id', c.campaignId!, '--share-message-whatsapp', 'Psst {link}', '--share-message-x', '']);
    const { openRuntime } = await import('../../src/server/runtime.js');
    const { widgetSettings } = await import('../../src/server/domain/widget-settings.js');
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      assert.deepEqual((await widgetSettings(rt.ctx, c.campaignId!)).shareMessages, { emailSubject: 'Hi', whatsapp: 'Psst {link}' });
    } finally {
      await rt.close();
    }
  });
});
