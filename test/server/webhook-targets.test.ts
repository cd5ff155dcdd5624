/**
 * Webhook targets against server-side request forgery: every resolved address is checked (IPv4-compatible
 * and NAT64 forms of loopback too), and the request connects to the address that was checked, resolved
 * once per attempt, with the URL's host name kept in the Host header.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import { resolveWebhookTarget, type Resolver } from '../../src/server/webhooks/domain/webhook-targets.js';
import { databaseKinds } from './helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from './helpers/receiver.js';
import { startService } from './helpers/service.js';

const [sqlite] = await databaseKinds();
const FAST = { retryDelaysMs: [50], timeoutMs: 2_000, pollMs: 50, leaseMs: 5_000 };

/** A resolver with a fixed table, counting its calls: names the test owns, never the network's. */
function table(entries: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const found = entries[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
  return Object.assign(resolve, { calls });
}

describe('webhook targets', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  it('refuses loopback in IPv4-compatible, IPv4-mapped and NAT64 IPv6 forms, and names with any private address', async () => {
    const resolve = table({ 'mixed.test': ['93.184.215.14', '127.0.0.1'], 'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], 'inner.test': ['fd00::5'] });
    for (const url of ['http://[::127.0.0.1]/', 'http://[::7f00:1]/', 'http://[::ffff:127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[::]/', 'http://mixed.test/', 'http://inner.test/']) {
      await assert.rejects(resolveWebhookTarget(url, false, resolve), (e: { status?: number; field?: string }) => e.status === 400 && e.field === 'url', url);
    }
    await assert.rejects(resolveWebhookTarget('http://nowhere.test/', false, resolve), /cannot be resolved/);
    const target = await resolveWebhookTarget('https://public.test:8443/hooks?x=1', false, resolve);
    assert.deepEqual([target.address, target.family, target.url.host], ['93.184.215.14', 4, 'public.test:8443']);
  });

  it('createWebhookEndpoint refuses http://[::127.0.0.1]/ when private targets are not allowed', async () => {
    const s = await startService(sqlite!);
    open.push(s);
    const strict = await buildApp({ ctx: s.ctx, config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent', webhookAllowPrivate: false }, logger: false });
    open.push({ close: async () => void (await strict.close()) });
    for (const url of ['http://[::127.0.0.1]/hooks', 'http://[::ffff:7f00:1]/hooks', 'http://[64:ff9b::a00:1]/hooks']) {
      const res = await strict.inject({
        method: 'POST',
        url: '/api/v1/admin/createWebhookEndpoint',
        headers: { authorization: `Bearer ${s.secretKey}` },
        payload: { url, eventTypes: ['referrer_added'] },
      });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().error.field, 'url');
    }
  });

  it('the dispatcher connects to the address it resolved and checked, once per attempt, keeping the Host header', async () => {
    const r: Receiver = await startReceiver();
    open.push(r);
    // The name exists only in the test's table: a delivery that arrives was sent to the pinned address,
    // not to whatever a second lookup of the name would say.
    const resolve = table({ 'hooks.refkit.test': ['127.0.0.1'] });
    const s = await startService(sqlite!, { dispatcher: { ...FAST, allowPrivate: true, resolve } });
    open.push(s);
    await s.admin.createWebhookEndpoint({ url: `http://hooks.refkit.test:${r.port}/in`, eventTypes: ['referrer_added'] });
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await waitFor(() => r.received.length === 1, 'the delivery');
    const [got] = r.received;
    assert.equal(got!.headers.host, `hooks.refkit.test:${r.port}`);
    assert.equal(got!.path, '/in');
    const [d] = await waitFor(async () => {
      const list = await s.admin.listWebhookDeliveries({ status: 'delivered' });
      return list.length === 1 && list;
    }, 'marked delivered');
    assert.equal(d!.attempts.length, 1);
    assert.deepEqual(resolve.calls, ['hooks.refkit.test'], 'resolved once for the one attempt');
  });

  it('a name that resolves to a private address (among others) when an attempt is made is not contacted', async () => {
    const r: Receiver = await startReceiver();
    open.push(r);
    const resolve = table({ 'rebind.refkit.test': ['93.184.215.14', '127.0.0.1'] });
    const s = await startService(sqlite!, { dispatcher: { ...FAST, allowPrivate: false, resolve } });
    open.push(s);
    await s.admin.createWebhookEndpoint({ url: `http://rebind.refkit.test:${r.port}/in`, eventTypes: ['referrer_added'] });
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const [d] = await waitFor(async () => {
      const list = await s.admin.listWebhookDeliveries({ status: 'failed' });
      return list.length === 1 && list;
    }, 'failed');
    assert.equal(d!.attempts.length, 2);
    assert.ok(d!.attempts.every((a) => /private or loopback/.test(a.error ?? '')), JSON.stringify(d!.attempts));
    assert.equal(r.received.length, 0);
  });
});
