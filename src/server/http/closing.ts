/**
 * What a closing process answers. A request that reaches it (on a connection kept alive from before its
 * SIGTERM) is answered 503 `service_closing` in the error envelope, with `Retry-After`, before any other
 * hook or handler runs: nothing is done, and a load balancer or client sends it again, to another process.
 * Fastify's own answer there (its return503OnClosing, off in ../app.ts) had a body of its own shape and no
 * Retry-After. Every reply sent once closing has begun, those and the ones in flight, says
 * `Connection: close`, so that each connection ends with it: Fastify marks only requests that arrive
 * after closing begins, and a connection whose request was in flight then stayed open and idle, and
 * app.close() waited for it until the grace delay ended the process (exit 1) in a rolling restart.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../kernel/errors.js';

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
      }),
    );
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing && !reply.raw.headersSent) reply.header('connection', 'close');
    done(null, payload);
  });
}

export const closing = fp(refuseWhileClosing, { name: 'refkit-closing' });
