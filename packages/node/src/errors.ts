/**
 * Every failure a call can have is a RefkitError, so that one `catch` and one `instanceof` cover them:
 * the service's refusals (its envelope `{"error":{"code","message","field?"}}`), an answer that is not the
 * service's (a proxy's 502 page), and no answer at all (status 0).
 */

/** The service's error envelope; an import's refusal adds the rows it refused. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    field?: string;
    rows?: { line: number; field?: string; message: string }[];
  };
}

export interface RefkitErrorInit {
  status: number;
  code: string;
  message: string;
  field?: string;
  requestId?: string;
  body?: unknown;
  retryAfter?: number;
  cause?: unknown;
}

export class RefkitError extends Error {
  /** The HTTP status; 0 when no answer came (network_error, timeout, aborted). */
  readonly status: number;
  /** The service's error code (invalid_request, not_found, rate_limited...), or network_error, timeout, aborted, http_error. */
  readonly code: string;
  /** The request field the refusal is about, when it names one. */
  readonly field: string | undefined;
  /** The answer's Request-Id: quote it when reporting a problem (the service's log lines carry it). */
  readonly requestId: string | undefined;
  /** The answer's body as parsed: the envelope (with `rows` for an import's refusal), or its text. */
  readonly body: unknown;
  /** Retry-After in seconds, when the answer had one (a wait longer than the client's maxRetryWait is not waited). */
  readonly retryAfter: number | undefined;

  constructor(init: RefkitErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'RefkitError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
    this.body = init.body;
    this.retryAfter = init.retryAfter;
  }
}

/** A webhook whose signature, timestamp or headers do not verify: answer it 400 and do not trust it. */
export class WebhookVerificationError extends RefkitError {
  constructor(message: string, cause?: unknown) {
    super({ status: 0, code: 'invalid_signature', message, cause });
    this.name = 'WebhookVerificationError';
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as ErrorEnvelope | null)?.error;
  return typeof error === 'object' && error !== null && typeof error.code === 'string';
}

/** The error of an answer that is not a 2xx, from its status, headers and body text. */
export function errorFromAnswer(status: number, headers: Headers, text: string, retryAfter: number | undefined): RefkitError {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: not the service's own answer (a proxy's error page, say); the text is kept as the body.
  }
  const requestId = headers.get('request-id') ?? undefined;
  if (isEnvelope(body)) {
    const { code, message, field } = body.error;
    return new RefkitError({ status, code, message, field, requestId, body, retryAfter });
  }
  return new RefkitError({ status, code: 'http_error', message: `HTTP ${status} without the service's error envelope`, requestId, body, retryAfter });
}
