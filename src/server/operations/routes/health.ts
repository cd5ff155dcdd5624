/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: it can reach its database). */
import type { FastifyInstance } from 'fastify';
import { ApiErrorBody, Ok } from '../../../api/schemas.js';
import { checkDatabase } from '../domain/readiness.js';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { tags: ['ops'], summary: 'Liveness: the process answers', response: { 200: Ok } } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: { tags: ['ops'], summary: 'Readiness: the process can reach its database', response: { 200: Ok, 503: ApiErrorBody } } }, async (request, reply) => {
    try {
      await checkDatabase(request.ctx);
      return { ok: true };
    } catch (err) {
      request.log.warn({ err }, 'not ready: database unreachable');
      return reply.status(503).send({ error: { code: 'unavailable', message: 'The database cannot be reached' } });
    }
  });
}
