/**
 * The string formats and the `x-finite` keyword that request schemas use (src/api/schemas.ts names them),
 * added to Fastify's ajv. One rule per kind of value, checked before any handler runs, so no route sees a
 * value it cannot store, parse or show: a NUL byte (PostgreSQL refuses it), control or
 * bidirectional-override characters (they disguise what an email or name says), unpaired surrogates, a
 * URL `new URL` cannot parse, a date that is no instant (a leap second), an infinite number.
 */
import type { FastifyServerOptions } from 'fastify';
import { isLine, isText, LINE_RULE } from '../domain/text-rules.js';

type Ajv = Parameters<NonNullable<NonNullable<FastifyServerOptions['ajv']>['onCreate']>>[0];
type Validate = (s: string) => boolean;

/** An absolute http(s) URL that the WHATWG parser (what `new URL` and fetch use) accepts, sent encoded. */
export function isHttpUrl(s: string): boolean {
  if (!isLine(s) || /\s/.test(s) || !URL.canParse(s)) return false;
  const url = new URL(s);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** `scheme://host[:port]` and nothing more. */
const isHttpOrigin = (s: string) => /^https?:\/\/[^/?#@]+$/i.test(s) && isHttpUrl(s);

/**
 * Refkit's own string formats. Response schemas name them too, and fast-json-stringify compiles some
 * of those (unions) with an ajv of its own, which warns of each format it does not know: it gets
 * these as well (app.ts, serializerOpts).
 */
export const FORMATS: Record<string, Validate> = { line: isLine, text: isText, 'http-url': isHttpUrl, 'http-origin': isHttpOrigin };

/** What each format promises, for error messages: `email must be ...`. */
export const FORMAT_RULES: Record<string, string> = {
  line: LINE_RULE,
  text: 'must be text without control characters (other than tabs and line breaks) or bidirectional overrides',
  'http-url': 'must be an absolute http or https URL (percent-encoded, with a valid host and port)',
  'http-origin': 'must be an origin: http(s)://host[:port], without a path',
  'date-time': 'must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T12:00:00Z',
};

/** What a failed keyword means, for error messages. */
export const KEYWORD_RULES: Record<string, string> = { 'x-finite': 'must be a finite number' };

/** Adds Refkit's formats and keywords to an ajv that already has ajv-formats (Fastify's `ajv.onCreate`). */
export function extendAjv(ajv: Ajv): void {
  // ajv coerces the query text "Infinity" or "1e400" to Infinity, and skips minimum/maximum for
  // non-finite numbers; this keyword (on every request integer) closes that gap after coercion.
  ajv.addKeyword({
    keyword: 'x-finite',
    schemaType: 'boolean',
    errors: false,
    validate: (on: boolean, data: unknown) => !on || typeof data !== 'number' || Number.isFinite(data),
  });
  for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  // ajv-formats' date-time accepts leap seconds (23:59:60), which Date cannot represent: a date-time
  // here must also be an instant JavaScript can hold.
  const dateTime = (ajv.formats['date-time'] as { validate: Validate }).validate;
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => dateTime(s) && Number.isFinite(Date.parse(s)) });
}
