/** The app factory: one Fastify instance with every route, given its dependencies explicitly. */
import campaignTime from './http/campaign-time.js';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config, TrustProxy } from './config.js';
import type { Actor, Ctx } from './kernel/context.js';
import access from './http/access.js';
import auditTrail from './http/audit-trail.js';
import changeUnit from './http/change-unit.js';
import unknownFields from './http/unknown-fields.js';
import permissions from './http/permissions.js';
import idempotency from './http/idempotency.js';
import rateLimits, { DEFAULT_RATE_LIMITS, type RateLimits } from './http/rate-limit.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { sharedCompilers } from './http/schema-compilers.js';
import { closing } from './http/closing.js';
import hostCheck from './http/host.js';
import { demoLogging, loggerOptions } from './http/logging.js';
import securityHeaders from './http/security-headers.js';
import openapi from './http/openapi.js';
import requestIdHeader, { requestId } from './http/request-id.js';
import { sessionCookie } from './http/session-cookie.js';
import { extendAjv, FORMATS } from './kernel/validation.js';
import { metricsRoutes, type MetricsRouteOptions } from './operations/routes/metrics-route.js';
import { adminRoutes } from './campaigns/routes/admin.js';
import { personAdminRoutes } from './privacy/routes/person-admin.js';
import { assetRoutes } from './operations/routes/assets.js';
import { authRoutes } from './accounts/routes/auth.js';
import { browserSessionRoutes } from './referrals/routes/browser-session.js';
import { dashboardAdminRoutes } from './referrals/routes/dashboard-admin.js';
import { healthRoutes } from './operations/routes/health.js';
import { referralApiRoutes } from './referrals/routes/referral-api.js';
import { rewardCodeAdminRoutes } from './rewards/routes/reward-code-admin.js';
import { rewardAdminRoutes } from './rewards/routes/reward-admin.js';
import { disputeAdminRoutes } from './rewards/routes/dispute-admin.js';
import { fraudAdminRoutes } from './fraud/routes/fraud-admin.js';
import { stripeRoutes } from './billing/routes/stripe.js';
import { promotionRoutes } from './promotions/routes/promotion-routes.js';
import { paymentSourceRoutes } from './billing/routes/payment-sources.js';
import { payoutAdminRoutes } from './payouts/routes/payout-admin.js';
import { payoutReceiverRoutes } from './payouts/routes/payout-receivers.js';
import { webhookAdminRoutes } from './webhooks/routes/webhook-admin.js';
import { widgetRoutes } from './referrals/routes/widget.js';
import { unsubscribeRoutes } from './emails/routes/unsubscribe.js';
import { emailAdminRoutes } from './emails/routes/email-admin.js';
import { auditRoutes } from './accounts/routes/audit.js';
import { teamRoutes } from './accounts/routes/team.js';
import { accountSettingsAdminRoutes } from './accounts/routes/account-settings-admin.js';
import { portalRoutes } from './portal/routes/portal.js';

export interface AppOptions {
  ctx: Ctx;
  config: Pick<Config, 'secretKeyHash' | 'trustProxy' | 'logLevel' | 'webhookAllowPrivate'> &
    /** publicUrl: an https one makes the session cookie Secure and __Host- named (./http/session-cookie.ts). */
    Partial<Pick<Config, 'demo' | 'publicUrl'>> & { rateLimits?: RateLimits };
  /** false silences the logs (tests); otherwise pino at config.logLevel, with these options (e.g. a stream) added. */
  logger?: false | Record<string, unknown>;
  /** Who the key of config.secretKeyHash acts as (the CLI passes CLI_ACTOR); default REFKIT_SECRET_KEY's actor. */
  envKeyActor?: Actor;
  /** When metrics are on: requests are counted and timed, and `GET /metrics` served if `serve` (./operations/routes/metrics-route.ts). */
  metrics?: MetricsRouteOptions;
}

/** Request bodies are a few fields; anything bigger is a mistake or an attack. */
const BODY_LIMIT = 16 * 1024;

/** Fastify's form of TRUST_PROXY: a hop count as "the first n hops are our proxies". */
function proxyTrust(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

export async function buildApp({ ctx, config, logger, envKeyActor, metrics }: AppOptions): Promise<FastifyInstance> {
  const readable = logger === undefined && config.demo === true;
  const app = Fastify({
    ...(readable ? await demoLogging(config.logLevel) : { logger: logger === false ? false : loggerOptions(config.logLevel, logger ?? {}) }),
    bodyLimit: BODY_LIMIT,
    // One id per request, in its log lines and its Request-Id header (./http/request-id.ts).
    genReqId: requestId,
    trustProxy: proxyTrust(config.trustProxy),
    // Unknown fields are an error where a schema forbids them, never silently dropped.
    ajv: { customOptions: { removeAdditional: false }, onCreate: extendAjv },
    schemaController: { compilersFactory: sharedCompilers },
    serializerOpts: { ajv: { formats: FORMATS } },
    // Requests refused before any route runs are answered in the envelope too (./http/error-handler.ts); a
    // missing Host is refused by ./http/host.ts, where Node would answer with a bare 400.
    frameworkErrors,
    clientErrorHandler,
    http: { requireHostHeader: false },
    // A closing process answers in the envelope, with Retry-After (./http/closing.ts).
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const cookieName = sessionCookie(config.publicUrl);
  app.decorate('sessionCookie', cookieName);
  registerErrorHandling(app);
  await app.register(requestIdHeader);
  await app.register(securityHeaders);
  await app.register(closing);
  await app.register(hostCheck);

  // Before the routes: the OpenAPI document records them as they are added (./http/openapi.ts).
  await app.register(openapi, { publicUrl: config.publicUrl, sessionCookieName: cookieName.name });

  // Decorators only (parseCookie, serializeCookie): its hooks would parse cookies and allocate a Map on
  // every request, and only the session cookie of the dashboard's routes is ever read (./http/access.ts).
  await app.register(cookie, { hook: false });
  // Before access: /metrics is answered before the key check, as its bearer is no secret key.
  if (metrics) await app.register(metricsRoutes, metrics);
  // Rate limits first: the key check in access counts wrong keys with them.
  await app.register(rateLimits, { ...(config.rateLimits ?? { ...DEFAULT_RATE_LIMITS, redisUrl: undefined }), refused: (limit) => ctx.metrics?.rateLimited(limit) });
  await app.register(access, { ctx, secretKeyHash: config.secretKeyHash, ...(envKeyActor && { envKeyActor }) });
  // Roles, after access has named the actor; before idempotency, so a refusal claims no key.
  await app.register(permissions);
  // Before the routes: it closes the owner's bodies and checks the interface's fields as routes are added.
  await app.register(unknownFields);
  // Before the layers that join its units (idempotency, audit trail) and the routes whose handlers it runs.
  await app.register(changeUnit, { ctx });
  // After access (its preHandler names the account a key belongs to), before the routes it documents.
  await app.register(idempotency, { ctx });
  // After idempotency: a replayed answer is marked by then, and writes no entry.
  await app.register(auditTrail, { ctx });
  // Last before the routes: a test campaign's handler runs in its time (./http/campaign-time.ts).
  await app.register(campaignTime, { ctx });
  await app.register(referralApiRoutes);
  await app.register(browserSessionRoutes);
  await app.register(adminRoutes);
  await app.register(personAdminRoutes);
  await app.register(authRoutes);
  await app.register(dashboardAdminRoutes);
  await app.register(rewardAdminRoutes);
  await app.register(disputeAdminRoutes);
  await app.register(fraudAdminRoutes);
  await app.register(stripeRoutes);
  await app.register(promotionRoutes);
  await app.register(paymentSourceRoutes);
  await app.register(payoutAdminRoutes);
  await app.register(payoutReceiverRoutes);
  await app.register(rewardCodeAdminRoutes);
  await app.register(webhookAdminRoutes, { allowPrivate: config.webhookAllowPrivate });
  await app.register(unsubscribeRoutes, { ctx });
  await app.register(emailAdminRoutes);
  await app.register(teamRoutes, { publicUrl: config.publicUrl });
  await app.register(auditRoutes);
  await app.register(accountSettingsAdminRoutes);
  await app.register(healthRoutes);
  await app.register(widgetRoutes);
  await app.register(portalRoutes, { publicUrl: config.publicUrl });
  await app.register(assetRoutes, { ctx, demo: config.demo ?? false });
  return app;
}
