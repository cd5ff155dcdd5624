/**
 * The Host header (or X-Forwarded-Host from a trusted proxy) is used to build absolute URLs (the paging
 * Link header) and the service's own origin; one that is not a plain `host[:port]` is refused with 400
 * before any route sees it, rather than failing (500) wherever a URL is built from it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../domain/errors.js';

export function isValidHost(host: string): boolean {
  if (!URL.canParse(`http://${host}`)) return false;
  return new URL(`http://${host}`).host === host.toLowerCase().replace(/:80$/, '');
}

async function hostCheck(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    if (request.headers.host === undefined && request.headers['x-forwarded-host'] === undefined) return;
    if (!isValidHost(request.host)) throw new AppError(400, 'invalid_request', 'The Host header is not a valid host[:port]', 'host');
  });
}

export default fp(hostCheck, { name: 'refkit-host-check' });
