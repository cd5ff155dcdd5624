/**
 * Limits that protect without locking anyone else out, with rate-limiter-flexible: counters in process by
 * default, in Redis when REDIS_URL is set (every service process shares them; if Redis fails, each
 * process falls back to its own counters rather than refusing or admitting everyone).
 *
 * - Per client, on the public routes (keyless getCampaign, validateCode, addParticipant). A client is
 *   an IPv4 address or an IPv6 /64: one household or server gets a /64, so counting single IPv6
 *   addresses would give one attacker millions of counters.
 * - Keyless sign-ups that create someone (a participant, or a sign-up pending confirmation): per client,
 *   and per campaign, a ceiling on how fast rows can be created, far above the per-client limit so that
 *   reaching it takes dozens of networks. A sign-up reserves its place in both before it runs and gives
 *   it back when it created no one (an email that joined already, an unknown referrer, a refusal), so
 *   calls that create nothing never spend the ceiling. Reads are never limited per campaign.
 * - Wrong secret keys, per client: each key check reserves a place before it runs, so a parallel burst
 *   gets no more 401s than the limit; past it a wrong key is 429. A right key is always accepted (and gives
 *   its place back): keys are long random strings, so the limit is against floods, not against guessing,
 *   and a client must not lock out the product's backend that shares its address.
 * - Portal sign-in links asked for, per client (../portal/routes/portal-api.ts): past the limit the request
 *   is answered as every other (202: the answer never says whether a link went out) and sends nothing, so
 *   that one client cannot flood many mailboxes; each participant's own links are throttled besides.
 * Calls with a valid secret key are the product's own backend and are not limited otherwise.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../kernel/errors.js';
import type { RateLimitName } from '../kernel/metrics.js';
import type { Admission } from '../referrals/domain/signups.js';

export interface RateLimits {
  /** Keyless requests per window from one client (IPv4 address or IPv6 /64) to the public routes; 0 turns the limit off. */
  perIp: number;
  /** Keyless sign-ups that create someone, per window from one client; 0 turns the limit off. */
  signupsPerIp: number;
  /** Keyless sign-ups that create someone, per window into one campaign, from everyone together; 0 turns the limit off. */
  signupsPerCampaign: number;
  /** Calls with a wrong secret key per window from one client, before its wrong keys get 429; 0 turns it off. */
  keyFailuresPerIp: number;
  /** Portal sign-in links asked for per window from one client; past it nothing is sent (default 10; 0 turns the limit off). */
  portalSignInsPerIp?: number;
  windowMs: number;
  redisUrl: string | undefined;
  /** Prefix of the Redis keys, so that deployments (or test runs) sharing a Redis keep apart. */
  redisPrefix?: string;
}

/** What a RateLimits made before the portal (without portalSignInsPerIp) gets. */
export const DEFAULT_PORTAL_SIGNINS_PER_IP = 10;
export const DEFAULT_RATE_LIMITS: Omit<RateLimits, 'redisUrl'> = { perIp: 300, signupsPerIp: 20, signupsPerCampaign: 1000, keyFailuresPerIp: 20, portalSignInsPerIp: DEFAULT_PORTAL_SIGNINS_PER_IP, windowMs: 60_000 };

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
    /**
     * For a keyless sign-up: the admission its domain asks for just before it creates someone, which takes
     * a place in the client's and the campaign's sign-up limits (429 past either) and returns how to give
     * it back (when the write created no one after all). Undefined when no sign-up limit applies.
     */
    signupAdmission: (request: FastifyRequest) => Admission | undefined;
    /**
     * Runs a secret-key check within the client's wrong-key limit, counting a failed one (`check`
     * resolving undefined): past the limit a wrong key is 429, a right one still passes.
     */
    throttleKeyChecks: <T>(request: FastifyRequest, check: () => Promise<T | undefined>) => Promise<T | undefined>;
    /** Takes a place in the client's portal sign-in limit: false past it (the caller then sends nothing, and says nothing). */
    portalSignInAdmitted: (request: FastifyRequest) => Promise<boolean>;
  }
}

const rateLimited = (msBeforeNext: number) => {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(429, 'rate_limited', `Too many requests; retry in ${seconds} s`, undefined, { 'retry-after': String(seconds) });
};

/** How long start-up waits for Redis before serving with the fallback counters. */
const REDIS_CONNECT_WAIT_MS = 5_000;

/** Resolves when the client is ready, has failed to connect, or `ms` have passed, whichever is first. */
function redisSettled(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done).once('error', done);
  });
}

/** `refused`: told each refusal, by the limit's name (the metrics). */
async function rateLimits(app: FastifyInstance, limits: RateLimits & { refused?: (limit: RateLimitName) => void }) {
  // ioredis is loaded only when configured: most processes never use it, and it is slow to load.
  const redis = limits.redisUrl
    ? new (await import('ioredis')).Redis(limits.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  // Errors are the limiter's to handle (it falls back to memory); an unhandled 'error' event would crash.
  redis?.on('error', (err) => app.log.warn({ err }, 'rate-limit store unavailable; counting in this process'));
  // quit() when connected; a client still trying to connect stops only on disconnect().
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  // Serve only once Redis has answered or failed: with no offline queue, a call made while the client is still
  // connecting counts in this process's fallback counters instead, so a burst at start-up would get the limit
  // once in Redis and again in memory.
  if (redis) await redisSettled(redis, REDIS_CONNECT_WAIT_MS);
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
  const signupsPerClient = limiter('signups-ip', limits.signupsPerIp);
  const perCampaign = limiter('signups', limits.signupsPerCampaign);
  const keyFailures = limiter('keyfail', limits.keyFailuresPerIp);
  const portalSignIns = limiter('portal-signin-ip', limits.portalSignInsPerIp ?? DEFAULT_PORTAL_SIGNINS_PER_IP);
  const names = new Map<RateLimiterAbstract | undefined, RateLimitName>([
    [perClient, 'per_ip'],
    [signupsPerClient, 'signups_per_ip'],
    [perCampaign, 'signups_per_campaign'],
    [keyFailures, 'key_failures_per_ip'],
  ]);
  /** The refusal of `counter`'s limit, counted. */
  const refusal = (counter: RateLimiterAbstract, refused: RateLimiterRes) => {
    limits.refused?.(names.get(counter)!);
    return rateLimited(refused.msBeforeNext);
  };

  /** Takes a place in `counter` for `key`: true, or the refusal (how long until a place frees up). */
  async function reserve(counter: RateLimiterAbstract, key: string): Promise<true | RateLimiterRes> {
    try {
      await counter.consume(key);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err;
      throw err;
    }
  }

  async function consume(counter: RateLimiterAbstract | undefined, key: string): Promise<void> {
    const taken = counter ? await reserve(counter, key) : true;
    if (taken !== true) throw refusal(counter!, taken);
  }

  // The client's key is worked out only when a limit will count it (parsing the address is not free).
  app.decorate('publicRateLimit', async (request: FastifyRequest) => {
    if (request.actor || !perClient) return;
    await consume(perClient, clientKey(request.ip));
  });

  app.decorate('signupAdmission', (request: FastifyRequest): Admission | undefined => {
    if (request.actor || (!signupsPerClient && !perCampaign)) return undefined;
    return async () => {
      const places: [RateLimiterAbstract, string][] = [];
      if (signupsPerClient) places.push([signupsPerClient, clientKey(request.ip)]);
      if (perCampaign) places.push([perCampaign, request.routeOptions.config.campaignOf?.(request) ?? '']);
      const release = async (taken: [RateLimiterAbstract, string][]) => {
        for (const [counter, key] of taken) await counter.reward(key);
      };
      for (let i = 0; i < places.length; i++) {
        const taken = await reserve(...places[i]!);
        if (taken !== true) {
          await release(places.slice(0, i));
          throw refusal(places[i]![0], taken);
        }
      }
      return () => release(places);
    };
  });

  app.decorate('portalSignInAdmitted', async (request: FastifyRequest) => (portalSignIns ? (await reserve(portalSignIns, clientKey(request.ip))) === true : true));

  app.decorate('throttleKeyChecks', async <T>(request: FastifyRequest, check: () => Promise<T | undefined>) => {
    if (!keyFailures) return check();
    const client = clientKey(request.ip);
    const taken = await reserve(keyFailures, client);
    const result = await check();
    if (result !== undefined) {
      if (taken === true) await keyFailures.reward(client);
      return result;
    }
    if (taken !== true) throw refusal(keyFailures, taken);
    return undefined;
  });
}

export default fp(rateLimits, { name: 'refkit-rate-limits' });
