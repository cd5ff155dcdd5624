/**
 * The OpenAPI 3.1 document (GET /api/openapi.json), generated from the route schemas by @fastify/swagger
 * and finished by ./openapi-document.ts, and the page that shows it (/api/docs): Redoc, served from the
 * installed `redoc` package under DOCS_CSP, nothing from elsewhere. Registered before the routes, whose
 * additions @fastify/swagger records as they are made.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { finishDocument, SHARED_HEADERS, WEBHOOK_PARAMETERS } from './openapi-document.js';
import { DOCS_CSP } from './security-headers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A body the route reads raw (a signed webhook, whose signature is over the bytes): documented, never parsed against it. */
    documentedBody?: object;
  }
}

export interface OpenApiOptions {
  /** The service's public URL (the document's `servers`); without one, the document is relative to where it is served. */
  publicUrl?: string;
  /** The owner session cookie's name (./session-cookie.ts). */
  sessionCookieName: string;
}

const TAGS = [
  ['interface', 'The Referral Program Service Interface: what the widget (public) and your backend (secret key) call'],
  ['browser', "What the widget calls beyond the interface: a participant's own record, the widget's settings, emailed links"],
  ['admin', 'Campaigns, participants, rewards, keys and settings: a secret key or the dashboard session'],
  ['auth', "The dashboard's sign-in and sessions"],
  ['portal', "The referrer's portal: a participant's own sign-in by emailed link, their view, their payout method and tax details"],
  ['integrations', 'Webhook receivers: events other services send in'],
  ['webhooks', 'Your webhook endpoints and their deliveries'],
  ['events', 'The webhook events the service sends to your endpoints'],
  ['emails', 'Lifecycle emails and their unsubscribe links'],
  ['team', 'Members, invitations and the audit log'],
  ['ops', 'Liveness and readiness'],
].map(([name, description]) => ({ name: name!, description: description! }));

const require = createRequire(import.meta.url);
const REDOC_VERSION = (require('redoc/package.json') as { version: string }).version;
const REDOC_PATH = `/api/docs/redoc-${REDOC_VERSION}.js`;

/**
 * Redoc's bundle as served: its sidebar's attribution shows a logo from Redocly's CDN, which the page
 * neither needs nor may load (DOCS_CSP); its address becomes an empty data: URL, which Redoc's own onError
 * takes as a missing logo and leaves out. Read on the first request (1 MB), not by every process that starts.
 */
let redocBundle: string | undefined;
const redoc = () => (redocBundle ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8').replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:,'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Refkit API reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; }</style>
</head>
<body>
<main id="redoc" data-spec-url="/api/openapi.json"><noscript>The reference needs JavaScript; the OpenAPI document is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript></main>
<script src="${REDOC_PATH}"></script>
<script src="/api/docs/docs.js"></script>
</body>
</html>
`;

/**
 * Starts Redoc. Its sections' headings (h5) come right under its operations' titles (h2): each is announced
 * one level below the title, so that the outline skips no level (axe's heading-order), also in what Redoc
 * renders later (a response opened).
 */
const SCRIPT = `const root = document.getElementById('redoc');
const level = () => { for (const h of root.querySelectorAll('h5:not([aria-level])')) h.setAttribute('aria-level', '3'); };
new MutationObserver(level).observe(root, { childList: true, subtree: true });
Redoc.init(root.dataset.specUrl, { requiredPropsFirst: true }, root);
`;

async function openapi(app: FastifyInstance, { publicUrl, sessionCookieName }: OpenApiOptions) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Refkit referral service',
        version: '1.0.0',
        description:
          'The Referral Program Service Interface, plus Refkit admin routes. Errors: {"error":{"code","message","field?"}}. ' +
          'Every answer carries Request-Id, the id of its log lines.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl ?? '/', description: 'This service' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A secret key, sk_...' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: sessionCookieName, description: 'A dashboard owner’s session (changes also need x-csrf-token)' },
          portalCookie: { type: 'apiKey', in: 'cookie', name: 'refkit_portal', description: 'A participant’s portal session (changes also need x-csrf-token)' },
        },
        headers: SHARED_HEADERS,
        parameters: WEBHOOK_PARAMETERS,
      },
    },
    transform: ({ schema, url, route }) => {
      const body = route.config?.documentedBody;
      return { schema: body ? { ...schema, body } : schema, url };
    },
    transformObject: (made) => ('openapiObject' in made ? finishDocument(made.openapiObject) : made.swaggerObject),
  });

  // The document is made once, on its first request; so is its text.
  let documentText: string | undefined;
  app.get('/api/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    documentText ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(documentText);
  });

  for (const path of ['/api/docs', '/api/docs/']) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).header('x-frame-options', 'DENY').send(PAGE),
    );
  }
  app.get('/api/docs/docs.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(SCRIPT),
  );
  // Its name has the version: cached for good, a new release is a new address.
  app.get(REDOC_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(redoc()),
  );
}

export default fp(openapi, { name: 'refkit-openapi' });
