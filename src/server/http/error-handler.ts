/** Every failure leaves in the error envelope of docs/api.md: `{"error":{"code","message","field?"}}`. */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiErrorBody } from '../../api/schemas.js';
import { AppError, RowsRefused } from '../domain/errors.js';
import { explain } from './validation.js';

function envelope(code: string, message: string, field?: string): ApiErrorBody {
  return { error: field ? { code, message, field } : { code, message } };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
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

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(envelope('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
