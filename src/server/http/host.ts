/**
 * The Host header (or X-Forwarded-Host from a trusted proxy) is used to build absolute URLs (the paging
 * Link header) and the service's own origin; one that is not a plain `host[:port]` is refused with 400
 * before any route sees it, rather than failing (500) wherever a URL is built from it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../kernel/errors.js';

export function isValidHost(host: string): boolean {
  if (!URL.canParse(`http://${host}`)) return false;
  return new URL(`http://${host}`).host === host.toLowerCase().replace(/:80$/, '');
}

/** Hosts already found valid: a service is reached under a handful of names, so parsing each once is enough. */
const VALID_HOSTS_KEPT = 100;

async function hostCheck(app: FastifyInstance) {
  const valid = new Set<string>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host === undefined && request.headers['x-forwarded-host'] === undefined) {
      // HTTP/1.1 requires a Host; refused here (Node's own check is off, ../app.ts) so the answer is in the envelope.
      return done(request.raw.httpVersion === '1.0' ? undefined : new AppError(400, 'invalid_request', 'The Host header is required', 'host'));
    }
    const host = request.host;
    if (valid.has(host)) return done();
    if (!isValidHost(host)) return done(new AppError(400, 'invalid_request', 'The Host header is not a valid host[:port]', 'host'));
    if (valid.size < VALID_HOSTS_KEPT) valid.add(host);
    done();
  });
}

export default fp(hostCheck, { name: 'refkit-host-check' });
