/**
 * What the request log may hold. Emails are personal data and query strings can carry secrets (a key or
 * token pasted into a URL), so the request URL is logged with email addresses and secret-looking
 * parameters replaced, and error messages and stacks have emails replaced too.
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';

const EMAIL = /[^\s/?&=:;,<>"'@]+@[^\s/?&=:;,<>"'@]+\.[^\s/?&=:;,<>"'@]+/g;
const SECRET_PARAM = /key|token|secret|password|passwd|signature|auth|session/i;

const scrubEmails = (text: string) => text.replace(EMAIL, '[email]');

/** The URL as logged: path kept, each query value that is an email or names a secret replaced. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return scrubEmails(url);
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(at + 1));
  } catch {
    return `${scrubEmails(url.slice(0, at))}?[unreadable]`;
  }
  const kept = [...params].map(([name, value]) => {
    const shown = SECRET_PARAM.test(name) ? '[redacted]' : /email/i.test(name) ? '[email]' : scrubEmails(value);
    return `${encodeURIComponent(scrubEmails(name))}=${shown === value ? encodeURIComponent(value) : shown}`;
  });
  return `${scrubEmails(url.slice(0, at))}?${kept.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

const serializers = {
  req: (req: LoggedRequest) => ({ method: req.method, url: redactUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }),
  err: (err: Error) => {
    const out = pino.stdSerializers.err(err);
    return { ...out, message: scrubEmails(out.message ?? ''), ...(out.stack && { stack: scrubEmails(out.stack) }) };
  },
};

/** Fastify's logger options: the level (and e.g. a stream) as given, always with the redacting serializers. */
export function loggerOptions(level: string, extra: Record<string, unknown> = {}): FastifyServerOptions['logger'] {
  return { level, ...extra, serializers };
}

/** The request lines of demo mode: one per request, once it is answered; none as it comes in. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The URL redacted as in the JSON log's serializer; the id last, as the answer's Request-Id has it (./request-id.ts).
    const line = `${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms [${request.id}]`;
    if (error) reply.log.error({ err: error }, line);
    else reply.log.info(line);
  }
}

/**
 * Demo mode (`npm start`) logs like a dev server, for a person at a terminal: one readable line per
 * request (method, URL, status, time, its Request-Id) instead of two JSON records, and readable lines for the rest.
 * Production keeps pino's JSON, one record per line, for log collectors.
 */
export async function demoLogging(level: string): Promise<Pick<FastifyServerOptions, 'logger' | 'logController'>> {
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({ singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,reqId', sync: true });
  return { logger: loggerOptions(level, { stream }), logController: new OneLinePerRequest() };
}
