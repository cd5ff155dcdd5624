/** Runs the service: migrate, seed a fresh database, listen, and shut down gracefully on a signal. */
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openRuntime } from './runtime.js';
import { DEMO_CAMPAIGN_ID, seedIfEmpty } from './seed.js';
import { Dispatcher } from './webhooks/dispatcher.js';

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function serve(config: Config): Promise<void> {
  const runtime = await openRuntime(config);
  const newKey = await seedIfEmpty(runtime.ctx, config.publicUrl);
  const app = await buildApp({ ctx: runtime.ctx, config });
  const dispatcher = new Dispatcher(runtime.ctx, { ...config.webhooks, allowPrivate: config.webhookAllowPrivate }, app.log.child({ component: 'webhooks' }));
  runtime.ctx.onEventsCommitted = () => dispatcher.nudge();
  await app.listen({ port: config.port, host: config.host });
  dispatcher.start();

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.port === 0 ? config.publicUrl.replace(/:\d+$/, `:${port}`) : config.publicUrl;
  const key = config.secretKeyHash
    ? 'the value of REFKIT_SECRET_KEY'
    : (newKey ?? 'shown at first start only; make another with: npx refkit key create --name dev');
  process.stdout.write(
    [
      '',
      `Refkit is listening on ${base}`,
      `  API:           ${base}/api/v1`,
      `  API docs:      ${base}/api/docs`,
      `  Demo page:     ${base}/demo/`,
      `  Widget:        ${base}/widget/referral-widget.js`,
      `  Demo campaign: ${DEMO_CAMPAIGN_ID}`,
      `  Secret key:    ${key}`,
      '',
    ].join('\n') + '\n',
  );

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await dispatcher.stop();
    await runtime.close();
  });
}
