/**
 * The metrics' HTTP side: every answered request counted and timed by its route's pattern, and
 * `GET /metrics`, the Prometheus text, for a bearer token when one is set (docs/operate.md#monitoring).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../kernel/errors.js';
import type { ServiceMetrics } from '../domain/service-metrics.js';

export const METRICS_PATH = '/metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an Authorization header carries `token` as its bearer (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

const unauthorized = () => new AppError(401, 'unauthorized', 'A valid metrics token is required: Authorization: Bearer <METRICS_TOKEN>');

export interface MetricsRouteOptions {
  metrics: ServiceMetrics;
  /** Answer only requests that carry it as their bearer; none: anyone who reaches the listener. */
  token: string | undefined;
  /** Serve `GET /metrics` here (false on the service's port when a listener of its own serves it). */
  serve: boolean;
}

async function metricsPlugin(app: FastifyInstance, { metrics, token, serve }: MetricsRouteOptions): Promise<void> {
  // By the route's pattern, never the URL: one series per route, whatever the paths asked for. A callback
  // hook: an async one would cost every request a promise.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (!serve) return;

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) throw unauthorized();
    const text = await metrics.text();
    return reply.type(metrics.contentType).header('cache-control', 'no-store').send(text);
  };
  // Answered at onRequest, before the service's key check (./http/access.ts, registered after this): its
  // bearer is the metrics token, which is no secret key and would be refused there as a wrong one.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url !== METRICS_PATH) return done();
    answer(request, reply).then(undefined, done);
  });
  // The route exists so that it is found (and HEAD with it); onRequest above answers it.
  app.get(METRICS_PATH, { schema: { hide: true } }, async () => {
    throw new Error('answered in onRequest');
  });
}

export const metricsRoutes = fp(metricsPlugin, { name: 'refkit-metrics' });
