/**
 * The string formats and the `x-finite` keyword that request schemas use (src/api/schemas.ts names them),
 * added to Fastify's ajv. One rule per kind of value, checked before any handler runs, so no route sees a
 * value it cannot store, parse or show: a NUL byte (PostgreSQL refuses it), control, bidirectional-override
 * or zero-width characters (they disguise what an email or name says), unpaired surrogates, a URL
 * `new URL` cannot parse, a date that is no instant (a leap second), an infinite number. `checker` applies
 * the same rules to values that arrive outside a request's schema (the rows of a CSV import).
 */
import { Ajv as AjvClass, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyServerOptions } from 'fastify';
import { isLine, isText, LINE_RULE } from './text-rules.js';

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
  text: 'must be text without control characters (other than tabs and line breaks), bidirectional overrides or zero-width spaces',
  'http-url': 'must be an absolute http or https URL (percent-encoded, with a valid host and port)',
  'http-origin': 'must be an origin: http(s)://host[:port], without a path',
  'date-time': 'must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T12:00:00Z',
};

/** What a failed keyword means, for error messages. */
export const KEYWORD_RULES: Record<string, string> = { 'x-finite': 'must be a finite number' };

/** A value's first failure against its schema: the field (`email`, `shareMessages.x`) and a sentence saying why. */
export interface Problem {
  field?: string;
  message: string;
}

/** Says what a JSON-schema failure means, in the words of the error envelope. */
export function explain(v: Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'>, context = 'request'): Problem {
  const missing = (v.params as { missingProperty?: string }).missingProperty;
  const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // A missing field, and an unknown one, are named by their own path (`retention.ipDayz`), not their object's.
  const named = missing ?? (v.keyword === 'additionalProperties' ? (v.params as { additionalProperty?: string }).additionalProperty : undefined);
  const field = named ? (path ? `${path}.${named}` : named) : path || undefined;
  let message: string;
  if (v.keyword === 'required') message = `${field} is required`;
  else if (v.keyword === 'additionalProperties') message = `Unknown field ${field}`;
  else {
    const rule = v.keyword === 'format' ? FORMAT_RULES[(v.params as { format: string }).format] : KEYWORD_RULES[v.keyword];
    message = `${field ?? context} ${rule ?? v.message ?? 'is invalid'}`;
  }
  return field ? { field, message } : { message };
}

let standalone: AjvClass | undefined;

/** A problem with where it is: the path to the value at fault (an unknown field's own key; a missing field's object). */
export interface LocatedProblem extends Problem {
  path: string[];
}

/**
 * A check of values against a request schema outside a request (a file the CLI reads), by an Ajv with
 * the very formats and keywords the routes' validators have: the value's first problem, or undefined.
 * `context` names a value that is wrong as a whole (`file must be object`).
 */
export function locatedChecker(schema: TSchema, context = 'request'): (value: unknown) => LocatedProblem | undefined {
  if (!standalone) {
    standalone = new AjvClass({ allErrors: false, strict: false });
    addFormats.default(standalone);
    extendAjv(standalone as unknown as Ajv);
  }
  const validate = standalone.compile(schema);
  return (value) => {
    if (validate(value)) return undefined;
    // Of a union's errors, the deepest says most: `waitlist.spotsPerReferral must be >= 1`, not `waitlist must be null`.
    const error = validate.errors!.reduce((a, b) => (b.instancePath.split('/').length > a.instancePath.split('/').length ? b : a));
    // A JSON pointer: /a/b~1c is a, b/c.
    const path = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const unknown = (error.params as { additionalProperty?: string }).additionalProperty;
    return { ...explain(error, context), path: error.keyword === 'additionalProperties' && unknown !== undefined ? [...path, unknown] : path };
  };
}

/** The same check without the path (the rows of an import). */
export function checker(schema: TSchema): (value: unknown) => Problem | undefined {
  const check = locatedChecker(schema);
  return (value) => {
    const problem = check(value);
    return problem && (problem.field === undefined ? { message: problem.message } : { field: problem.field, message: problem.message });
  };
}

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
