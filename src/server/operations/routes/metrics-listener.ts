/** METRICS_BIND: `GET /metrics` on a listener of its own (a port the outside world does not reach), apart from the service's. */
import Fastify, { type FastifyInstance } from 'fastify';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from '../../http/error-handler.js';
import { metricsRoutes } from './metrics-route.js';
import type { ServiceMetrics } from '../domain/service-metrics.js';

/** Listens at `bind` (port 0: any free one); close() the answer to stop it. */
export async function listenForMetrics(metrics: ServiceMetrics, bind: { host: string; port: number }, token: string | undefined): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, frameworkErrors, clientErrorHandler });
  registerErrorHandling(app);
  await app.register(metricsRoutes, { metrics, token, serve: true });
  await app.listen(bind);
  return app;
}
