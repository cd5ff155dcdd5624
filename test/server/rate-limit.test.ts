import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/api/client.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startService, type TestService } from './helpers/service.js';

const [sqlite] = await databaseKinds();
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<string | undefined> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    await r.ping();
    return undefined;
  } catch (err) {
    if (process.env.CI) throw new Error(`Redis at ${REDIS_URL} is unreachable under CI: ${(err as Error).message}`);
    return `Redis at ${REDIS_URL} is unreachable`;
  } finally {
    r.disconnect();
  }
}

describe('rate limits', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    for (const s of services.splice(0)) await s.close();
  });

  it('per IP: past the limit the public routes answer 429 rate_limited with Retry-After; keyed calls are exempt', async () => {
    const s = await startService(sqlite!, { rateLimits: { perIp: 3, perCampaign: 0, windowMs: 60_000, redisUrl: undefined } });
    services.push(s);
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

  it('per campaign: one campaign past its limit does not stop another', async () => {
    const s = await startService(sqlite!, { rateLimits: { perIp: 0, perCampaign: 2, windowMs: 60_000, redisUrl: undefined } });
    services.push(s);
    const a = await s.campaign();
    const b = await s.campaign();
    await s.browser.getCampaign(a);
    await s.browser.addParticipant({ id: a, email: 'x@example.com' });
    await rejects(() => s.browser.addParticipant({ id: a, email: 'y@example.com' }), 429, 'rate_limited');
    assert.equal((await s.browser.getCampaign(b)).campaignId, b);
    assert.equal((await s.admin.getAllParticipants(a)).length, 1, 'the refused sign-up did nothing');
  });

  it('with Redis, processes share the counters', async (t) => {
    const skip = await redisReachable();
    if (skip) return t.skip(skip);
    const limits = { perIp: 4, perCampaign: 0, windowMs: 60_000, redisUrl: REDIS_URL, redisPrefix: `refkit-test-${randomUUID()}:` };
    const one = await startService(sqlite!, { rateLimits: limits });
    services.push(one);
    const two = await startService(sqlite!, { rateLimits: limits, database: undefined });
    services.push(two);
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
});
