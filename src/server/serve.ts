/**
 * Runs the service: migrate, seed a fresh database, listen, deliver webhooks, and shut down gracefully
 * on a signal. With WORKERS=N the process becomes a node cluster primary that prepares the database
 * once and keeps N worker processes serving one port (each is stateless; see docs/deployment.md).
 */
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { trackHandlers } from './http/handlers.js';
import type { Config } from './config.js';
import { openRuntime } from './runtime.js';
import { loadDisposableDomains } from './referrals/domain/fraud.js';
import { hasOwners } from './accounts/domain/owners.js';
import { printBanner } from './banner.js';
import { seedIfEmpty } from './seed.js';
import { RewardReleaser } from './rewards/domain/reward-release.js';
import { Dispatcher } from './webhooks/domain/dispatcher.js';
import { StripePayoutSender } from './payouts/domain/stripe-payouts.js';
import { stripeApiTarget } from './kernel/stripe-clients.js';
import { PromotionCodeSync } from './promotions/domain/promotion-code-sync.js';
import { CashPayoutSender } from './payouts/domain/cash-payout-sender.js';
import { EmailSender } from './emails/domain/sender.js';
import { ReminderScan } from './emails/domain/lifecycle-emails.js';
import { RetentionPruner } from './privacy/domain/retention.js';
import { ReferralFolder } from './referrals/domain/referral-folder.js';
import { PlannerStatisticsKeeper } from './operations/domain/planner-statistics-keeper.js';
import { listenForMetrics } from './operations/routes/metrics-listener.js';
import { ServiceMetrics } from './operations/domain/service-metrics.js';

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  return runServer(config, { seed: cluster.isPrimary && config.demo, banner: cluster.isPrimary });
}

/** Migrates (and seeds) once, then keeps `workers` servers running until SIGTERM/SIGINT. */
async function runPrimary(config: Config): Promise<void> {
  const runtime = await openRuntime(config);
  const newKey = config.demo ? await seedIfEmpty(runtime.ctx, config.publicUrl) : undefined;
  const owners = await hasOwners(runtime.ctx);
  await runtime.close();

  let stopping = false;
  let bannerShown = false;
  const fork = () => cluster.fork();
  cluster.on('listening', (_worker, address) => {
    if (bannerShown) return;
    bannerShown = true;
    printBanner(config, address.port, newKey, config.workers, owners);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  for (let i = 0; i < config.workers; i++) fork();

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const w of workers) {
      w.once('exit', () => --left === 0 && process.exit(0));
      w.process.kill(signal);
    }
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 2_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function runServer(config: Config, role: { seed: boolean; banner: boolean }): Promise<void> {
  const metrics = config.metrics && new ServiceMetrics();
  const runtime = await openRuntime(config, { metrics });
  const newKey = role.seed ? await seedIfEmpty(runtime.ctx, config.publicUrl) : undefined;
  const app = await buildApp({
    ctx: runtime.ctx,
    config,
    // Served on the service's port only when no listener of its own is asked for (METRICS_BIND).
    ...(metrics && { metrics: { metrics, token: config.metrics!.token, serve: config.metrics!.bind === undefined } }),
  });
  const handlersDone = trackHandlers(app);
  const dispatcher = new Dispatcher(runtime.ctx, { ...config.webhooks, allowPrivate: config.webhookAllowPrivate }, app.log.child({ component: 'webhooks' }));
  // Lifecycle emails are written and sent only when SMTP_URL is set (docs/emails.md).
  const mailer = runtime.ctx.mailer;
  const sender = mailer && new EmailSender(runtime.ctx, mailer, { ...config.mail, baseUrl: config.publicUrl }, app.log.child({ component: 'email' }));
  const reminders = mailer && new ReminderScan(runtime.ctx, undefined, app.log.child({ component: 'email' }));
  runtime.ctx.onEventsCommitted = () => {
    dispatcher.nudge();
    sender?.nudge();
  };
  // Now, not in the first sign-up: loading it holds the event loop for 60-100 ms.
  loadDisposableDomains();
  await app.listen({ port: config.port, host: config.host });
  // A rolled-back deploy: served as it is (expand/contract), but said, so that it does not go unnoticed.
  if (runtime.schema.unknown.length > 0) {
    app.log.warn({ unknownMigrations: runtime.schema.unknown }, 'the database has migrations this release does not know: this code is older than the schema');
  }
  const metricsListener = metrics && config.metrics!.bind && (await listenForMetrics(metrics, config.metrics!.bind, config.metrics!.token));
  if (metricsListener) app.log.info({ address: metricsListener.listeningOrigin }, 'metrics listening');
  dispatcher.start();
  sender?.start();
  reminders?.start();
  // Credits held by a campaign's holdDays become available on their own, once across all processes.
  const releaser = new RewardReleaser(runtime.ctx, undefined, app.log.child({ component: 'rewards' }));
  releaser.start();
  // Credits of campaigns that pay rewards into Stripe (stripeRewardMode), from the outbox; one sender per payout.
  const payouts = new StripePayoutSender(runtime.ctx, { api: stripeApiTarget(config.payoutApis.stripeApiUrl) }, app.log.child({ component: 'stripe-payouts' }));
  payouts.start();
  // The friend's discount: each discount campaign's coupon and its participants' promotion codes, made once.
  const promotions = new PromotionCodeSync(runtime.ctx, {}, app.log.child({ component: 'promotion-codes' }));
  promotions.start();
  // Cash payouts (PayPal, Stripe Connect) approved or made without approval; one sender per payout or PayPal batch.
  const cash = new CashPayoutSender(runtime.ctx, config.cashPayouts, app.log.child({ component: 'cash-payouts' }));
  cash.start();
  // Data past each account's retention periods, in small batches; one process at a time (its lease).
  const pruner = new RetentionPruner(runtime.ctx, config.retentionIntervalMs, app.log.child({ component: 'retention' }));
  pruner.start();
  // Sign-ups' additions to their referrers' counts, moved into the referrers' rows (referrals/store/referral-count-store.ts).
  const folder = new ReferralFolder(runtime.ctx, undefined, app.log.child({ component: 'referral-counts' }));
  folder.start();
  // PostgreSQL: participants analysed as it grows, so that the planner knows each campaign's size (store/planner-statistics.ts).
  const statistics = new PlannerStatisticsKeeper(runtime.ctx, undefined, undefined, app.log.child({ component: 'planner-statistics' }));
  statistics.start();

  if (role.banner) {
    const address = app.server.address();
    printBanner(config, typeof address === 'object' && address ? address.port : config.port, newKey, 1, await hasOwners(runtime.ctx));
  }

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    // In this order: stop taking requests and let open connections finish (new requests on them get 503),
    // then wait for handlers whose client has gone away (their work still runs), and only then close the
    // database they write to. The grace delay above bounds the whole.
    await app.close();
    if (metricsListener) await metricsListener.close();
    await handlersDone();
    await dispatcher.stop();
    await reminders?.stop();
    await sender?.stop();
    await releaser.stop();
    await payouts.stop();
    await promotions.stop();
    await cash.stop();
    await pruner.stop();
    await folder.stop();
    await statistics.stop();
    await runtime.close();
  });
}
