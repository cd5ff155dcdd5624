/**
 * A request that reaches a closing process (on a connection kept alive from before its SIGTERM) is
 * answered 503 `service_closing` in the error envelope, with `Retry-After` and `Connection: close`,
 * before any other hook or handler runs: nothing is done, and a load balancer or client sends it again,
 * to another process. Fastify's own answer there (its return503OnClosing, off in ../app.ts) had a body of
 * its own shape and no Retry-After.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../domain/errors.js';

/** Retry-After of a 503 service_closing: another process is there already. */
export const CLOSING_RETRY_AFTER_S = 1;

async function refuseWhileClosing(app: FastifyInstance) {
  let closing = false;
  // preClose runs as close() begins, when Fastify stops routing to the handlers of a closing server.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(
      new AppError(503, 'service_closing', 'This process is shutting down; send the request again (to another process) after the time in Retry-After', undefined, {
        'retry-after': String(CLOSING_RETRY_AFTER_S),
        connection: 'close',
      }),
    );
  });
}

export const closing = fp(refuseWhileClosing, { name: 'refkit-closing' });
