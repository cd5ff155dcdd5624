/**
 * Every request's one id: Fastify's request.id (genReqId below), which its logger writes on each of the
 * request's log records (`reqId`) and which every answer carries as `Request-Id`, so that a caller
 * reporting a failure hands over the id that finds its log lines.
 *
 * A caller's own id (`Request-Id`, or `X-Request-Id` as proxies and load balancers name it) is kept when it
 * is well formed, so one id follows a call through a proxy and the caller's logs too; anything else (too
 * long, spaces, quotes, control characters: nothing that could forge or break a log line) is replaced by
 * a fresh UUID. Ids are for finding log lines only: nothing trusts them, and two callers may send the same.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const REQUEST_ID_HEADER = 'request-id';

/** Letters, digits and `.`, `_`, `:`, `-`, 1 to 128 of them: UUIDs, ULIDs, `req_...`, AWS and Heroku ids. */
const WELL_FORMED = /^[\w.:-]{1,128}$/;

/** Fastify's genReqId: the caller's well-formed id, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER] ?? req.headers['x-request-id'];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}

async function requestIdHeader(app: FastifyInstance) {
  // onRequest, the first hook: answers sent by later hooks (a refusal, a closing process's 503) carry it too.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

export default fp(requestIdHeader, { name: 'refkit-request-id' });
