/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: it can reach its database). */
import type { FastifyInstance } from 'fastify';
import { checkDatabase } from '../domain/readiness.js';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { tags: ['ops'] } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: { tags: ['ops'] } }, async (request, reply) => {
    try {
      await checkDatabase(request.ctx);
      return { ok: true };
    } catch (err) {
      request.log.warn({ err }, 'not ready: database unreachable');
      return reply.status(503).send({ error: { code: 'unavailable', message: 'The database cannot be reached' } });
    }
  });
}
