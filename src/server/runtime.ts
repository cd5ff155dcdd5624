/** Opening the store for a process: connect, migrate, and the domain context over it. */
import type { Config } from './config.js';
import { databaseOpenError } from './database-url.js';
import type { Ctx } from './kernel/context.js';
import { smtpMailer } from './emails/domain/smtp.js';
import { Caches, watchChanges } from './store/caches.js';
import { connect } from './store/connect.js';
import { migrate, type SchemaStatus } from './store/migrations.js';
import { MonitoringStore } from './operations/store/monitoring-store.js';
import type { ServiceMetrics } from './operations/domain/service-metrics.js';
import { Store } from './store/store.js';
import { clockedNow } from './kernel/campaign-time.js';

export interface Runtime {
  ctx: Ctx;
  /** The schema after migrating: `unknown` names migrations of a newer release (this code is older). */
  schema: SchemaStatus;
  close(): Promise<void>;
}

/** `metrics`: the process's metrics (when on), told what the database and the domain do. */
export async function openRuntime(
  config: Pick<Config, 'databaseUrl'> & Partial<Pick<Config, 'smtpUrl' | 'mailFrom' | 'erasureBlockDays' | 'databaseConnectTimeoutMs' | 'publicUrl' | 'payoutApis' | 'sealer' | 'fraud'>>,
  { metrics }: { metrics?: ServiceMetrics } = {},
): Promise<Runtime> {
  const { db, dialect, waiting, close } = connect(config.databaseUrl, { connectTimeoutMs: config.databaseConnectTimeoutMs, observer: metrics });
  let schema: SchemaStatus;
  try {
    schema = await migrate(db, dialect);
  } catch (err) {
    await close();
    throw databaseOpenError(err, config.databaseUrl);
  }
  const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom ?? 'Refkit <no-reply@localhost>') : undefined;
  const caches = new Caches();
  // Other processes' changes to what is cached reach this one through the database (./store/caches.ts).
  const stopWatching = watchChanges(caches, db, dialect, config.databaseUrl);
  const store = new Store(db, dialect, { caches, emailOutbox: mailer !== undefined });
  const ctx: Ctx = {
    store,
    now: clockedNow(Date.now),
    ...(mailer && { mailer }),
    ...(metrics && { metrics }),
    ...(config.erasureBlockDays !== undefined && { erasureBlockDays: config.erasureBlockDays }),
    ...(config.sealer && { sealer: config.sealer }),
    ...(config.fraud && { fraud: config.fraud }),
    ...(config.publicUrl !== undefined && { payouts: { publicUrl: config.publicUrl, ...config.payoutApis } }),
  };
  metrics?.watch({ monitoring: new MonitoringStore(db), waiting, now: () => ctx.now() });
  return {
    ctx,
    schema,
    async close() {
      mailer?.close();
      await stopWatching();
      // Impressions still waiting are written before the database closes.
      await store.flushImpressions();
      await close();
    },
  };
}
