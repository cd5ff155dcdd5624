/**
 * Security headers on every answer (helmet): a Content-Security-Policy that lets the demo page
 * run only the service's own scripts and styles, `nosniff`, a referrer policy, no framing by other sites.
 * The docs (/api/docs) have their own, DOCS_CSP (swagger-ui sets inline styles). The widget bundle
 * is fetched by other sites' pages, so it is the one resource marked Cross-Origin-Resource-Policy:
 * cross-origin (routes/assets.ts).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/** The CSP of /api/docs: swagger-ui's scripts are files, but it styles elements inline. */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'self'; form-action 'self'; " +
  "script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'";

/**
 * helmet's middleware, built once. (@fastify/helmet builds it again for every request, parsing the CSP
 * each time, behind two hooks, one of them async.)
 */
const setHeaders = helmet({
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

async function securityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => setHeaders(request.raw, reply.raw, (err) => done(err as Error | undefined)));
}

export default fp(securityHeaders, { name: 'refkit-security-headers' });
