/**
 * Rate limits of the public (keyless) routes, counted per client IP and per campaign, with
 * @fastify/rate-limit's stores: in process by default, in Redis when REDIS_URL is set, so that every
 * service process shares the same counters. Calls with a secret key are the product's own backend and
 * are not limited here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { AppError } from '../domain/errors.js';

export interface RateLimits {
  /** Requests per window from one IP to the public routes; 0 turns the limit off. */
  perIp: number;
  /** Keyless requests per window naming one campaign; 0 turns the limit off. */
  perCampaign: number;
  windowMs: number;
  redisUrl: string | undefined;
  /** Prefix of the Redis keys, so that deployments (or test runs) sharing a Redis keep apart. */
  redisPrefix?: string;
}

export const DEFAULT_RATE_LIMITS: Omit<RateLimits, 'redisUrl'> = { perIp: 300, perCampaign: 6000, windowMs: 60_000 };

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for public routes: 429 rate_limited with Retry-After past either limit. */
    publicRateLimit: (request: FastifyRequest) => Promise<void>;
  }
}

type Limiter = (request: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttlInSeconds?: number }>;

async function rateLimits(app: FastifyInstance, limits: RateLimits) {
  const redis = limits.redisUrl ? new Redis(limits.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit()));
  await app.register(rateLimit, { global: false, ...(redis && { redis, nameSpace: limits.redisPrefix ?? 'refkit-rl:' }) });

  const limiters: Limiter[] = [];
  const keyless = (request: FastifyRequest) => request.actor !== undefined;
  // createRateLimit, not rateLimit: the plugin runs only its first limiter per request, and both count.
  if (limits.perIp > 0) {
    limiters.push(app.createRateLimit({ max: limits.perIp, timeWindow: limits.windowMs, keyGenerator: (r) => `ip:${r.ip}`, allowList: keyless }) as Limiter);
  }
  if (limits.perCampaign > 0) {
    limiters.push(
      app.createRateLimit({
        max: limits.perCampaign,
        timeWindow: limits.windowMs,
        keyGenerator: (r) => `campaign:${r.routeOptions.config.campaignOf?.(r) ?? ''}`,
        allowList: keyless,
      }) as Limiter,
    );
  }

  app.decorate('publicRateLimit', async (request: FastifyRequest) => {
    for (const limiter of limiters) {
      const result = await limiter(request);
      if (!result.isAllowed && result.isExceeded) {
        throw new AppError(429, 'rate_limited', `Too many requests; retry in ${result.ttlInSeconds} s`, undefined, {
          'retry-after': String(result.ttlInSeconds ?? 1),
        });
      }
    }
  });
}

export default fp(rateLimits, { name: 'refkit-rate-limits', dependencies: ['refkit-access'] });
