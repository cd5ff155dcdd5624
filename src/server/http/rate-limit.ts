/**
 * Limits that protect without locking anyone else out, with rate-limiter-flexible: counters in process by
 * default, in Redis when REDIS_URL is set (every service process shares them; if Redis fails, each
 * process falls back to its own counters rather than refusing or admitting everyone).
 *
 * - Per client, on the public routes (keyless getCampaign, validateCode, addParticipant). A client is
 *   an IPv4 address or an IPv6 /64: one household or server gets a /64, so counting single IPv6
 *   addresses would give one attacker millions of counters.
 * - Per campaign, on keyless sign-ups only: a ceiling on how fast rows can be created. Reads are never
 *   limited per campaign, so a flood from a few addresses cannot make a campaign unreadable to others.
 * - Wrong secret keys, per client: past the limit every call with a key from that client is refused
 *   until the window passes, without checking the key (so a correct guess is not confirmed either).
 * Calls with a valid secret key are the product's own backend and are not limited otherwise.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../domain/errors.js';

export interface RateLimits {
  /** Keyless requests per window from one client (IPv4 address or IPv6 /64) to the public routes; 0 turns the limit off. */
  perIp: number;
  /** Keyless sign-ups per window into one campaign, from everyone together; 0 turns the limit off. */
  signupsPerCampaign: number;
  /** Calls with a wrong secret key per window from one client, before all its keyed calls get 429; 0 turns it off. */
  keyFailuresPerIp: number;
  windowMs: number;
  redisUrl: string | undefined;
  /** Prefix of the Redis keys, so that deployments (or test runs) sharing a Redis keep apart. */
  redisPrefix?: string;
}

export const DEFAULT_RATE_LIMITS: Omit<RateLimits, 'redisUrl'> = { perIp: 300, signupsPerCampaign: 1000, keyFailuresPerIp: 20, windowMs: 60_000 };

/** The client a limit counts: the IPv4 address, or the /64 of an IPv6 address (IPv4-mapped ones as IPv4). */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`);
  return `${prefix.toString()}/64`;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler of the public reads: 429 rate_limited with Retry-After past the per-client limit. */
    publicRateLimit: (request: FastifyRequest) => Promise<void>;
    /** preHandler of addParticipant: the per-client limit, then the keyless sign-up ceiling of the campaign. */
    signupRateLimit: (request: FastifyRequest) => Promise<void>;
    /**
     * Runs a secret-key check unless the client has had too many wrong keys lately (then 429), and
     * counts a failed one (`check` resolving undefined).
     */
    throttleKeyChecks: <T>(request: FastifyRequest, check: () => Promise<T | undefined>) => Promise<T | undefined>;
  }
}

const rateLimited = (msBeforeNext: number) => {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(429, 'rate_limited', `Too many requests; retry in ${seconds} s`, undefined, { 'retry-after': String(seconds) });
};

async function rateLimits(app: FastifyInstance, limits: RateLimits) {
  // ioredis is loaded only when configured: most processes never use it, and it is slow to load.
  const redis = limits.redisUrl
    ? new (await import('ioredis')).Redis(limits.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  // Errors are the limiter's to handle (it falls back to memory); an unhandled 'error' event would crash.
  redis?.on('error', (err) => app.log.warn({ err }, 'rate-limit store unavailable; counting in this process'));
  // quit() when connected; a client still trying to connect stops only on disconnect().
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  const prefix = limits.redisPrefix ?? 'refkit-rl:';
  const duration = Math.max(1, Math.ceil(limits.windowMs / 1000));

  /** A counter of `points` per window, or undefined when turned off (0). */
  function limiter(name: string, points: number): RateLimiterAbstract | undefined {
    if (points <= 0) return undefined;
    const options = { keyPrefix: `${prefix}${name}`, points, duration };
    const memory = new RateLimiterMemory(options);
    return redis ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory }) : memory;
  }
  const perClient = limiter('ip', limits.perIp);
  const perCampaign = limiter('signups', limits.signupsPerCampaign);
  const keyFailures = limiter('keyfail', limits.keyFailuresPerIp);

  async function consume(counter: RateLimiterAbstract | undefined, key: string): Promise<void> {
    try {
      await counter?.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw rateLimited(err.msBeforeNext);
      throw err;
    }
  }

  // The client's key is worked out only when a limit will count it (parsing the address is not free).
  app.decorate('publicRateLimit', async (request: FastifyRequest) => {
    if (request.actor || !perClient) return;
    await consume(perClient, clientKey(request.ip));
  });

  app.decorate('signupRateLimit', async (request: FastifyRequest) => {
    if (request.actor) return;
    if (perClient) await consume(perClient, clientKey(request.ip));
    await consume(perCampaign, request.routeOptions.config.campaignOf?.(request) ?? '');
  });

  app.decorate('throttleKeyChecks', async <T>(request: FastifyRequest, check: () => Promise<T | undefined>) => {
    if (!keyFailures) return check();
    const client = clientKey(request.ip);
    const seen = await keyFailures.get(client);
    if (seen && seen.consumedPoints >= limits.keyFailuresPerIp) throw rateLimited(seen.msBeforeNext);
    const result = await check();
    if (result === undefined) await keyFailures.penalty(client);
    return result;
  });
}

export default fp(rateLimits, { name: 'refkit-rate-limits' });
