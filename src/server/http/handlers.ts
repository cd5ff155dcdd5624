/** Which requests still have a handler at work: what graceful shutdown waits for before closing the database. */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Follows every request from arrival until its reply is sent, that is until its handler has finished
 * with the database. app.close() waits for connections, not handlers: a connection the client dropped,
 * or one Node closed as idle, ends while its handler may still be running. Returns a function that
 * resolves once no handler is running.
 */
export function trackHandlers(app: FastifyInstance): () => Promise<void> {
  const running = new Set<FastifyRequest>();
  let idle: (() => void) | undefined;
  app.addHook('onRequest', (request, _reply, done) => {
    running.add(request);
    done();
  });
  // onSend runs for every reply once the handler (or the error handler) is done, even to a gone client.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (running.delete(request) && running.size === 0) idle?.();
    done(null, payload);
  });
  return () => (running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve)));
}
