/**
 * Security headers on every answer (helmet): a Content-Security-Policy that lets the demo page
 * run only the service's own scripts and styles, `nosniff`, a referrer policy, no framing by other sites.
 * The JSON API has a shorter set of its own (API_HEADERS), the docs (/api/docs) their own CSP, DOCS_CSP
 * (Redoc styles elements inline), and so does the dashboard (DASHBOARD_HEADERS). The widget bundle
 * is fetched by other sites' pages, so it is the one resource marked Cross-Origin-Resource-Policy:
 * cross-origin (operations/routes/assets.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * The CSP of /api/docs (./openapi.ts): Redoc's bundle and its starter are files of this origin, it reads
 * the document from here, styles elements inline (styled-components), draws icons as data: images, and
 * runs its search index in a worker it makes from a blob: URL. Nothing else, from anywhere.
 */
export const DOCS_CSP =
  "default-src 'none'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'none'; " +
  "script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; worker-src blob:";

/**
 * The dashboard's own: it runs on this origin only (no framing at all, against clickjacking; no scripts
 * from elsewhere), and lit and the charts set inline styles.
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; base-uri 'none'; form-action 'self'; object-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  'referrer-policy': 'same-origin',
});

/**
 * helmet's headers. None of them depends on the request, so helmet's middleware runs once, here, against
 * a recorder, and every answer gets the recorded set in one call: running the middleware per request
 * (eleven functions, each setting its header on the raw response, which validates it) was about a tenth
 * of a cached read's time. (@fastify/helmet also parses the CSP again for every request.)
 */
const middleware = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        formAction: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Same-origin unless a route says otherwise; API answers to other origins go by CORS, which CORP does not affect.
    crossOriginResourcePolicy: { policy: 'same-origin' },
});

function recordHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let failure: unknown = new Error('helmet did not finish at once: its headers are not all static');
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => (failure = err));
  if (failure) throw failure;
  return Object.freeze(headers);
}
export const SECURITY_HEADERS = recordHeaders();

/**
 * The JSON API's (`/api/v1/`), after OWASP's REST Security Cheat Sheet: a JSON answer loads nothing,
 * may not be framed, sniffed or stored (it may hold a participant's private fields), and stays
 * same-origin for no-cors loads. Helmet's other headers concern pages; an API answer is not one, and
 * each header is work on every answer for the service and for every client that parses it.
 */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'strict-transport-security': SECURITY_HEADERS['strict-transport-security']!,
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
});

const API_PREFIX = '/api/v1/';

async function securityHeaders(app: FastifyInstance) {
  // Routes replace one (the docs' CSP, the widget's CORP, the dashboard's) with reply.header() later on:
  // fastify writes the reply's headers over any set on the raw response, so reply.header() it must be.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.url.startsWith(API_PREFIX) ? API_HEADERS : SECURITY_HEADERS);
    done();
  });
}

export default fp(securityHeaders, { name: 'refkit-security-headers' });
