/** Every failure leaves in the error envelope of docs/api.md: `{"error":{"code","message","field?"}}`. */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiErrorBody } from '../../api/schemas.js';
import { AppError, RowsRefused } from '../kernel/errors.js';
import { outageThrottle } from '../kernel/outage-log.js';
import { isDatabaseUnavailable } from '../kernel/unavailable.js';
import { explain } from '../kernel/validation.js';

function envelope(code: string, message: string, field?: string): ApiErrorBody {
  return { error: field ? { code, message, field } : { code, message } };
}

/** Retry-After of a 503 database_unavailable: a restarting PostgreSQL is usually back within seconds. */
export const DATABASE_RETRY_AFTER_S = 2;
export function registerErrorHandling(app: FastifyInstance): void {
  const outage = outageThrottle();
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isDatabaseUnavailable(err)) {
      const alsoRefused = outage();
      if (alsoRefused !== undefined) request.log.warn({ err, alsoRefused }, 'database unavailable: answering 503');
      return reply
        .status(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_S))
        .send(envelope('database_unavailable', 'The database cannot be reached right now; retry after the time in Retry-After'));
    }
    if (err instanceof AppError) {
      if (err.status >= 500 && err.cause !== undefined) request.log.error({ err: err.cause }, err.message);
      if (err.headers) reply.headers(err.headers);
      const body = envelope(err.code, err.message, err.field);
      return reply.status(err.status).send(err instanceof RowsRefused ? { error: { ...body.error, rows: err.rows } } : body);
    }
    if (err.validation) {
      const first = err.validation[0];
      const { field, message } = first ? explain(first, err.validationContext) : { field: undefined, message: err.message };
      return reply.status(400).send(envelope('invalid_request', message, field));
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send(envelope('payload_too_large', 'The request body is too large'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(400).send(envelope('invalid_request', 'The body must be JSON (Content-Type: application/json)'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send(envelope('invalid_request', 'The JSON body is empty'));
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send(envelope('invalid_request', 'Content-Length does not match the body'));
    }
    if (err.statusCode === 429) {
      return reply.status(429).send(envelope('rate_limited', 'Too many requests; retry after the time in Retry-After'));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors, e.g. malformed JSON (a SyntaxError with status 400).
      return reply.status(400).send(envelope('invalid_request', err.message));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(envelope('internal', 'Something went wrong on our side; it has been logged'));
  });

  // An Expect header other than 100-continue: Node answers 417 itself, with no body, unless it is heard here.
  app.server.on('checkExpectation', (_request: unknown, response: ServerResponse) => {
    const body = JSON.stringify(envelope('invalid_request', 'The only Expect this service knows is 100-continue'));
    response.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(envelope('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}

/**
 * Fastify's router errors, given to its `frameworkErrors` option: a path that is no valid percent-encoding
 * (`/api/docs/%zz`), a route parameter too long. Fastify answers them in a shape of its own otherwise.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Refused before any hook runs: the Request-Id the hooks would have set (./request-id.ts), here.
  void reply.status(400).header('request-id', request.id).send(envelope('invalid_request', err.code === 'FST_ERR_BAD_URL' ? 'The path is not valid percent-encoding' : err.message));
}

/** The answers to requests Node's HTTP parser refuses, which never reach Fastify (see clientErrorHandler). */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request took too long to arrive' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP' };

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a Content-Length that is no number,
 * two of them, a header with a NUL, headers past the size limit) is answered on the socket, in the
 * envelope, and the connection closed; Fastify's default answers in a shape of its own.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, reason, message } = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify(envelope('invalid_request', message));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
