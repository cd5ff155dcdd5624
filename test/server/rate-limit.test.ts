/**
 * Limits that protect without locking out: per client (IPv4 address, IPv6 /64) on the public routes, a
 * ceiling on keyless sign-ups per campaign that never blocks reads, wrong secret keys throttled per
 * client, and TRUST_PROXY that believes only the proxies it is told about.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError, RefkitClient } from '../../src/api/client.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/server/http/rate-limit.js';
import { REDIS_URL, redisProblem } from '../requirements.js';
import { rejects } from './helpers/assert.js';
import { statuses } from './helpers/bursts.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type ServiceOptions, type TestService } from './helpers/service.js';

const kinds = await databaseKinds();
const [sqlite] = kinds;
const OFF: RateLimits = { perIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, keyFailuresPerIp: 0, windowMs: 60_000, redisUrl: undefined };

async function redisReachable(): Promise<string | undefined> {
  const problem = await redisProblem();
  if (problem === undefined) return undefined;
  if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${problem}`);
  return `Redis at ${REDIS_URL} is unreachable`;
}

/** A keyless call as if from `client` behind one trusted proxy (the test is the proxy, on loopback). */
function from(s: TestService, client: string | undefined, path: string, init: { body?: unknown; key?: string; forwardedFor?: string } = {}) {
  const headers: Record<string, string> = {};
  if (client !== undefined) headers['x-forwarded-for'] = init.forwardedFor ?? client;
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${s.url}/api/v1/${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
}

describe('rate limits', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    for (const s of services.splice(0)) await s.close();
  });
  async function start(rateLimits: Partial<RateLimits>, options: Omit<ServiceOptions, 'rateLimits'> = {}) {
    const s = await startService(sqlite!, { rateLimits: { ...OFF, ...rateLimits }, ...options });
    services.push(s);
    return s;
  }

  it('per client: past the limit the public routes answer 429 rate_limited with Retry-After; keyed calls are exempt', async () => {
    const s = await start({ perIp: 3 });
    const id = await s.campaign();
    for (let i = 0; i < 3; i++) await s.browser.getCampaign(id);
    const err = await rejects(() => s.browser.validateCode(id, 'X'), 429, 'rate_limited');
    assert.ok(err.retryAfter! > 0 && err.retryAfter! <= 60);
    const res = await fetch(`${s.url}/api/v1/getCampaign?id=${id}`);
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    // The product's backend, with its key, is not limited by browser limits.
    for (let i = 0; i < 5; i++) await s.admin.getCampaign(id);
  });

  it('a flood from 50 addresses: sign-ups hit the campaign ceiling, but a new address still reads the campaign and checks codes', async () => {
    const s = await start({ perIp: 6, signupsPerCampaign: 10 }, { trustProxy: 1 });
    const id = await s.campaign();
    const other = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    let signedUp = 0;
    for (let i = 0; i < 50; i++) {
      const ip = `203.0.113.${i + 1}`;
      const signup = await from(s, ip, 'addParticipant', { body: { id, email: `flood${i}@example.com` } });
      if (signup.status === 200) signedUp++;
      else assert.equal(signup.status, 429);
      // Each address reads until its own limit refuses it.
      let reads = 0;
      while ((await from(s, ip, `getCampaign?id=${id}`)).status === 200) reads++;
      assert.equal(reads, 5, 'the sign-up counted toward the address, the rest were reads');
    }
    assert.equal(signedUp, 10, 'the sign-up ceiling of the campaign');
    assert.equal((await s.admin.getCampaign(id)).participants, 11, 'refused sign-ups created nothing');

    const newcomer = '198.51.100.77';
    assert.equal((await from(s, newcomer, `getCampaign?id=${id}`)).status, 200, 'reads are not limited per campaign');
    assert.equal((await from(s, newcomer, `validateCode?campaignId=${id}&code=${ann.referralCode}`)).status, 200);
    assert.equal((await from(s, newcomer, 'addParticipant', { body: { id, email: 'late@example.com' } })).status, 429, 'sign-ups wait for the window');
    assert.equal((await from(s, newcomer, 'addParticipant', { body: { id: other, email: 'late@example.com' } })).status, 200, 'another campaign is not affected');
    // The product's backend signs up with its key, beyond the browser ceiling.
    assert.equal((await s.admin.addParticipant({ id, email: 'backend@example.com' })).email, 'backend@example.com');
  });

  it('IPv6 clients are counted per /64; IPv4-mapped addresses as IPv4', async () => {
    const s = await start({ perIp: 2 }, { trustProxy: 1 });
    const id = await s.campaign();
    const read = (ip: string) => from(s, ip, `getCampaign?id=${id}`).then((r) => r.status);
    assert.equal(await read('2001:db8:1:2::1'), 200);
    assert.equal(await read('2001:db8:1:2:ffff:ffff:ffff:9'), 200);
    assert.equal(await read('2001:db8:1:2:abcd::42'), 429, 'another address of the same /64');
    assert.equal(await read('2001:db8:1:3::1'), 200, 'the next /64 is another client');
    assert.equal(await read('198.51.100.7'), 200);
    assert.equal(await read('::ffff:198.51.100.7'), 200);
    assert.equal(await read('198.51.100.7'), 429);
  });

  it('TRUST_PROXY: a hop count or a list of proxies decides the client; X-Forwarded-For from anyone else is ignored', async () => {
    // Not trusted: whatever X-Forwarded-For says, every call comes from the loopback socket.
    let s = await start({ perIp: 2 });
    let id = await s.campaign();
    assert.equal((await from(s, '203.0.113.1', `getCampaign?id=${id}`)).status, 200);
    assert.equal((await from(s, '203.0.113.2', `getCampaign?id=${id}`)).status, 200);
    assert.equal((await from(s, '203.0.113.3', `getCampaign?id=${id}`)).status, 429);

    // One hop: the address our proxy appended is the client; what the client wrote before it is not.
    s = await start({ perIp: 2 }, { trustProxy: 1 });
    id = await s.campaign();
    for (const spoof of ['1.1.1.1', '2.2.2.2']) {
      assert.equal((await from(s, 'x', `getCampaign?id=${id}`, { forwardedFor: `${spoof}, 203.0.113.9` })).status, 200);
    }
    assert.equal((await from(s, 'x', `getCampaign?id=${id}`, { forwardedFor: '3.3.3.3, 203.0.113.9' })).status, 429);

    // A list: hops from listed proxies are skipped, the first other address is the client.
    s = await start({ perIp: 1 }, { trustProxy: ['127.0.0.1', '10.0.0.0/8'] });
    id = await s.campaign();
    assert.equal((await from(s, 'x', `getCampaign?id=${id}`, { forwardedFor: '203.0.113.5, 10.1.2.3' })).status, 200);
    assert.equal((await from(s, 'x', `getCampaign?id=${id}`, { forwardedFor: '9.9.9.9, 203.0.113.5' })).status, 429, 'the same client behind a spoofed hop');
    assert.equal((await from(s, 'x', `getCampaign?id=${id}`, { forwardedFor: '203.0.113.6' })).status, 200);
  });

  it('without a trusted proxy, X-Forwarded-For cannot hide a burst of sign-ups from the fraud signal', async () => {
    const s = await start({});
    const id = await s.campaign();
    for (let i = 0; i < 6; i++) {
      assert.equal((await from(s, `203.0.113.${i}`, 'addParticipant', { body: { id, email: `burst${i}@example.com` } })).status, 200);
    }
    assert.equal((await s.admin.getParticipant(id, 'burst0@example.com')).fraudScore, 'low');
    assert.equal((await s.admin.getParticipant(id, 'burst5@example.com')).fraudScore, 'medium', 'one IP, five sign-ups before it');
  });

  it('wrong secret keys: past the limit a wrong key from that client is 429, a right one still works; other clients are unaffected', async () => {
    const s = await start({ keyFailuresPerIp: 5 }, { trustProxy: 1 });
    const attacker = '203.0.113.66';
    for (let i = 0; i < 5; i++) {
      assert.equal((await from(s, attacker, 'admin/listApiKeys', { key: `sk_guess_${i}_0123456789abcdef` })).status, 401);
    }
    const refused = await from(s, attacker, 'admin/listApiKeys', { key: 'sk_guess_x_0123456789abcdef' });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal((await from(s, attacker, 'admin/listApiKeys', { key: s.secretKey })).status, 200, 'a right key is never locked out');
    assert.equal((await from(s, '203.0.113.67', 'admin/listApiKeys', { key: s.secretKey })).status, 200);
    assert.equal((await from(s, attacker, `getCampaign?id=${await s.campaign()}`)).status, 200, 'keyless calls are another matter');
  });

  it('with Redis, processes share the counters', async (t) => {
    const skip = await redisReachable();
    if (skip) return t.skip(skip);
    const limits = { ...OFF, perIp: 4, redisUrl: REDIS_URL, redisPrefix: `refkit-test-${randomUUID()}:` };
    const one = await start(limits);
    const two = await start(limits);
    const idOne = await one.campaign();
    const idTwo = await two.campaign();
    await one.browser.getCampaign(idOne);
    await one.browser.getCampaign(idOne);
    await two.browser.getCampaign(idTwo);
    await two.browser.getCampaign(idTwo);
    const err = await two.browser.getCampaign(idTwo).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && err.code === 'rate_limited', 'the fifth call, across both, is limited');
    const r = new Redis(REDIS_URL);
    try {
      assert.ok((await r.keys(`${limits.redisPrefix}*`)).length > 0, 'counters live in Redis');
    } finally {
      r.disconnect();
    }
  });

  it('with Redis down, limits still hold in each process and calls are answered', async () => {
    const s = await start({ perIp: 2, redisUrl: 'redis://127.0.0.1:1', redisPrefix: `refkit-test-${randomUUID()}:` });
    const id = await s.campaign();
    const browser = new RefkitClient({ baseUrl: s.url });
    await browser.getCampaign(id);
    await browser.getCampaign(id);
    await rejects(() => browser.getCampaign(id), 429, 'rate_limited');
  });
});

// Parallel bursts against each limit, on both databases (what a burst may create is rows), in memory and in Redis.
for (const kind of kinds) {
  for (const store of ['memory', 'redis'] as const) {
    describe(`bursts [${kind.name}, ${store}]`, { skip: kind.skip }, () => {
      const services: TestService[] = [];
      afterEach(async () => {
        for (const s of services.splice(0)) await s.close();
      });
      async function start(t: TestContext, rateLimits: Partial<RateLimits>): Promise<TestService | undefined> {
        const skip = store === 'redis' ? await redisReachable() : undefined;
        if (skip) return void t.skip(skip);
        const redis = store === 'redis' ? { redisUrl: REDIS_URL, redisPrefix: `refkit-test-${randomUUID()}:` } : {};
        const s = await startService(kind, { rateLimits: { ...OFF, ...rateLimits, ...redis }, trustProxy: 1 });
        services.push(s);
        return s;
      }

      it('300 wrong keys at once from one client: exactly the limit are checked (401), the rest 429; a right key from it still works', async (t) => {
        const s = await start(t, { keyFailuresPerIp: 20 });
        if (!s) return;
        const attacker = '203.0.113.66';
        const burst = Array.from({ length: 300 }, (_, i) => from(s, attacker, 'admin/listApiKeys', { key: `sk_guess_${i}_0123456789abcdef` }));
        assert.deepEqual(await statuses(burst), { 401: 20, 429: 280 });
        assert.equal((await from(s, attacker, 'admin/listApiKeys', { key: s.secretKey })).status, 200);
      });

      it('sign-ups that create no one never spend the campaign ceiling: 4 clients, hundreds of calls at once, then a newcomer joins', async (t) => {
        const s = await start(t, { signupsPerIp: 3, signupsPerCampaign: 10 });
        if (!s) return;
        const id = await s.campaign();
        await s.admin.addParticipant({ id, email: 'ann@example.com' });
        const calls = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'].flatMap((ip) =>
          Array.from({ length: 90 }, (_, i) => {
            if (i % 3 === 0) return from(s, ip, 'addParticipant', { body: { id, email: 'ann@example.com' } });
            if (i % 3 === 1) return from(s, ip, 'addParticipant', { body: { id, email: `x${i}@example.com`, referredByCode: 'NOSUCHCODE' } });
            return from(s, ip, 'verifyEmail', { body: { id, token: `ev_nosuchlink${i}` } });
          }),
        );
        assert.deepEqual(await statuses(calls), { 200: 120, 404: 240 });
        assert.equal((await s.admin.getCampaign(id)).participants, 1, 'they created no one');
        // Each of those clients can still sign someone up, and so can a newcomer.
        for (const ip of ['203.0.113.1', '198.51.100.7']) {
          assert.equal((await from(s, ip, 'addParticipant', { body: { id, email: `new-${ip}@example.com` } })).status, 200);
        }
      });

      it('one client creates only its own few sign-ups; the campaign ceiling, far above, takes many networks to reach', async (t) => {
        const s = await start(t, { signupsPerIp: 3, signupsPerCampaign: 10 });
        if (!s) return;
        const id = await s.campaign();
        const one = Array.from({ length: 50 }, (_, i) => from(s, '203.0.113.9', 'addParticipant', { body: { id, email: `burst${i}@example.com` } }));
        assert.deepEqual(await statuses(one), { 200: 3, 429: 47 });
        const refused = await from(s, '203.0.113.9', 'addParticipant', { body: { id, email: 'more@example.com' } });
        assert.equal(refused.status, 429);
        assert.ok(Number(refused.headers.get('retry-after')) > 0);
        const many = await Promise.all(Array.from({ length: 20 }, (_, i) => from(s, `198.51.100.${i + 1}`, 'addParticipant', { body: { id, email: `net${i}@example.com` } })));
        // Which seven of the twenty win is the race's; one of them is asked again below.
        const joined = many.findIndex((res) => res.status === 200);
        assert.deepEqual(await statuses(many.map((res) => Promise.resolve(res))), { 200: 7, 429: 13 }, 'the ceiling: 10 in all');
        assert.equal((await s.admin.getCampaign(id)).participants, 10);
        // A participant who joined already still gets their answer (it creates no one).
        assert.equal((await from(s, '198.51.100.99', 'addParticipant', { body: { id, email: `net${joined}@example.com` } })).status, 200);
      });
    });
  }
}

describe('configuration of limits, proxies and the environment key', () => {
  const strongKey = 'sk_Qm4r9XvT2bLp8WzK1nYc7HdJ3sFg6AeU';
  it('TRUST_PROXY takes a hop count or proxy addresses; true is refused with what to set instead', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,loopback,fd00::/8' }).trustProxy, ['10.0.0.0/8', '192.168.1.5', 'loopback', 'fd00::/8']);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'true' }), (e: unknown) => e instanceof ConfigError && /TRUST_PROXY=1/.test(e.message) && /addresses/.test(e.message));
    assert.throws(() => loadConfig({ TRUST_PROXY: 'my-proxy' }), ConfigError);
  });

  it('the limits have defaults that protect, each can be set or turned off, and the old per-campaign read limit is refused', () => {
    const { rateLimits } = loadConfig({});
    assert.deepEqual({ ...rateLimits, redisUrl: undefined }, { ...DEFAULT_RATE_LIMITS, redisUrl: undefined });
    assert.ok(DEFAULT_RATE_LIMITS.perIp > 0 && DEFAULT_RATE_LIMITS.signupsPerCampaign > 0 && DEFAULT_RATE_LIMITS.keyFailuresPerIp > 0);
    const set = loadConfig({ RATE_LIMIT_PER_IP: '10', RATE_LIMIT_SIGNUPS_PER_IP: '4', RATE_LIMIT_SIGNUPS_PER_CAMPAIGN: '0', RATE_LIMIT_KEY_FAILURES_PER_IP: '3', RATE_LIMIT_PORTAL_SIGNINS_PER_IP: '0' }).rateLimits;
    assert.deepEqual([set.perIp, set.signupsPerIp, set.signupsPerCampaign, set.keyFailuresPerIp, set.portalSignInsPerIp], [10, 4, 0, 3, 0]);
    assert.ok(DEFAULT_RATE_LIMITS.signupsPerIp * 20 <= DEFAULT_RATE_LIMITS.signupsPerCampaign, 'reaching the ceiling takes dozens of networks');
    assert.throws(() => loadConfig({ RATE_LIMIT_PER_CAMPAIGN: '6000' }), /RATE_LIMIT_SIGNUPS_PER_CAMPAIGN/);
  });

  it('REFKIT_SECRET_KEY must be as strong as a generated key', () => {
    for (const weak of ['a'.repeat(40), 'abcdefghijklmnopqrst', 'sk_0123456789', 'ababababababababababababababababab', `${strongKey.slice(0, 20)} ${strongKey}`]) {
      assert.throws(() => loadConfig({ REFKIT_SECRET_KEY: weak }), (e: unknown) => e instanceof ConfigError && /REFKIT_SECRET_KEY/.test(e.message), weak);
    }
    assert.ok(loadConfig({ REFKIT_SECRET_KEY: strongKey }).secretKeyHash);
  });
});
