/**
 * A real service for a test: the app factory over a fresh database, listening on a loopback port, and
 * typed clients for it (one with a secret key, one keyless like a browser).
 */
import { clockedNow } from '../../../src/server/kernel/campaign-time.js';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { RefkitClient } from '../../../src/api/client.js';
import type { CreateCampaignBody } from '../../../src/api/schemas.js';
import { buildApp } from '../../../src/server/app.js';
import { DEFAULT_ACCOUNT, type Ctx } from '../../../src/server/kernel/context.js';
import { createApiKey } from '../../../src/server/accounts/domain/keys.js';
import type { FraudSettings, ScryptCost } from '../../../src/server/kernel/context.js';
import { openRuntime, type Runtime } from '../../../src/server/runtime.js';
import type { DatabaseKind, TestDatabase } from './databases.js';
import type { TrustProxy } from '../../../src/server/config.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../../src/server/http/rate-limit.js';
import { RewardReleaser } from '../../../src/server/rewards/domain/reward-release.js';
import { Dispatcher, type DispatcherOptions } from '../../../src/server/webhooks/domain/dispatcher.js';
import { StripePayoutSender, type PayoutSenderOptions } from '../../../src/server/payouts/domain/stripe-payouts.js';
import { EmailSender, type EmailSenderOptions } from '../../../src/server/emails/domain/sender.js';
import { ServiceMetrics } from '../../../src/server/operations/domain/service-metrics.js';

export interface TestService {
  url: string;
  /** Client with a secret key of the default account. */
  admin: RefkitClient;
  /** Keyless client, as the widget calls. */
  browser: RefkitClient;
  secretKey: string;
  ctx: Ctx;
  app: FastifyInstance;
  /** The Stripe payout sender, when options.payouts asked for one. */
  payouts?: StripePayoutSender;
  /** The process's metrics, when options.metrics turned them on. */
  metrics?: ServiceMetrics;
  /** Creates a campaign with sensible defaults, through the admin API. */
  campaign(fields?: Partial<CreateCampaignBody>): Promise<string>;
  /** Stops the server and the database connection; the database itself stays (see drop). */
  stop(): Promise<void>;
  /** stop() and delete the database. */
  close(): Promise<void>;
  database: TestDatabase;
}

/**
 * The default limits without the keyless sign-up limits (and Redis): a browser's sign-up is then the
 * usual one, its facts assumed on PostgreSQL (../../../src/server/referrals/domain/signups.ts addParticipant).
 */
export const WITHOUT_SIGNUP_LIMITS: RateLimits = { ...DEFAULT_RATE_LIMITS, keyFailuresPerIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, redisUrl: undefined };

export interface ServiceOptions {
  database?: TestDatabase;
  now?: () => number;
  secretKeyHash?: string;
  /**
   * Default: the service's defaults, except that wrong keys and sign-ups per client are not limited
   * (suites that check every route refuses a wrong key send more of them than the default allows, and
   * many sign up dozens of browsers from the one test address; rate-limit.test.ts covers both).
   */
  rateLimits?: RateLimits;
  /** Demo mode: /demo/ is served (seeding is serve's, not the app's). */
  demo?: boolean;
  /** SMTP server the service sends magic links and confirmations through (see ./smtp.ts). */
  smtpUrl?: string;
  /** TRUST_PROXY (default false): tests of client addresses send X-Forwarded-For through a trusted hop. */
  trustProxy?: TrustProxy;
  /** Runs a webhook dispatcher in the service with these settings (short delays for tests). */
  dispatcher?: Partial<DispatcherOptions>;
  /** PUBLIC_URL (default none): an https one makes the session cookie Secure and __Host- named. */
  publicUrl?: string;
  /** Where the service's warnings and errors go, as pino's JSON lines (default: nowhere). */
  logTo?: NodeJS.WritableStream;
  /** The scrypt cost of owners' passwords (default TEST_PASSWORD_COST; PASSWORD_COST is the service's). */
  passwordCost?: ScryptCost;
  /** Run the hold's releaser, every this many ms (off unless given: tests call releaseDueRewards). */
  releaseEveryMs?: number;
  /** Runs the Stripe payout sender with these settings (a fake Stripe's address, short delays). */
  payouts?: Partial<PayoutSenderOptions>;
  /** Runs the lifecycle email sender (needs smtpUrl) with these settings; its links point at the service. */
  mail?: Partial<Omit<EmailSenderOptions, 'baseUrl'>>;
  /** Metrics on (off unless given): `GET /metrics` on the service's port, for this bearer token when given. */
  metrics?: { token?: string };
  /** TRUSTED_COUNTRY_HEADER, GEOIP and CAPTCHA_VERIFY_URL (default none). */
  fraud?: FraudSettings;
}

/**
 * A cheap scrypt for tests (about 1 ms, against a tenth of a second and more for the service's cost):
 * sign-in tests hash and check passwords by the dozen. owner-auth.test.ts checks the service's own cost.
 */
export const TEST_PASSWORD_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

export async function startService(kind: DatabaseKind, options: ServiceOptions = {}): Promise<TestService> {
  const database = options.database ?? (await kind.create());
  const metrics = options.metrics && new ServiceMetrics();
  const runtime: Runtime = await openRuntime(
    { databaseUrl: database.url, smtpUrl: options.smtpUrl, mailFrom: 'Refkit tests <refkit@example.test>', ...(options.fraud && { fraud: options.fraud }) },
    { metrics },
  );
  // Wrapped as the service's own clock is, so that test campaigns' clocks move it (campaign-time.ts).
  if (options.now) runtime.ctx.now = clockedNow(options.now);
  runtime.ctx.passwordCost = options.passwordCost ?? TEST_PASSWORD_COST;
  const app = await buildApp({
    ctx: runtime.ctx,
    config: {
      secretKeyHash: options.secretKeyHash,
      trustProxy: options.trustProxy ?? false,
      logLevel: options.logTo ? 'warn' : 'silent',
      webhookAllowPrivate: true,
      demo: options.demo ?? false,
      ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
      rateLimits: options.rateLimits ?? { ...DEFAULT_RATE_LIMITS, keyFailuresPerIp: 0, signupsPerIp: 0, redisUrl: undefined },
    },
    logger: options.logTo ? { stream: options.logTo } : process.env.TEST_LOG ? { level: process.env.TEST_LOG } : false,
    ...(metrics && { metrics: { metrics, token: options.metrics!.token, serve: true } }),
  });
  const dispatcher = options.dispatcher ? new Dispatcher(runtime.ctx, { allowPrivate: true, ...options.dispatcher }) : undefined;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const { mailer } = runtime.ctx;
  const sender = options.mail && mailer ? new EmailSender(runtime.ctx, mailer, { ...options.mail, baseUrl: url }) : undefined;
  runtime.ctx.onEventsCommitted = () => {
    dispatcher?.nudge();
    sender?.nudge();
  };
  dispatcher?.start();
  sender?.start();
  const releaser = options.releaseEveryMs !== undefined ? new RewardReleaser(runtime.ctx, options.releaseEveryMs) : undefined;
  releaser?.start();
  const payouts = options.payouts ? new StripePayoutSender(runtime.ctx, options.payouts) : undefined;
  payouts?.start();
  const { key: secretKey } = await createApiKey(runtime.ctx, DEFAULT_ACCOUNT, 'test');
  const admin = new RefkitClient({ baseUrl: url, secretKey });
  const stop = async () => {
    await app.close();
    await dispatcher?.stop();
    await sender?.stop();
    await releaser?.stop();
    await payouts?.stop();
    await runtime.close();
  };
  return {
    url,
    admin,
    browser: new RefkitClient({ baseUrl: url }),
    secretKey,
    ctx: runtime.ctx,
    app,
    payouts,
    metrics,
    database,
    async campaign(fields = {}) {
      const c = await admin.createCampaign({
        campaignName: 'Test campaign',
        hostURL: 'https://shop.example/join',
        referrerRewardValue: 10,
        refereeRewardValue: 5,
        ...fields,
      });
      return c.campaignId!;
    },
    stop,
    async close() {
      await stop();
      await database.drop();
    },
  };
}
