/**
 * The portal's page: GET /portal/{campaignId} answers the built page (dist/portal/index.html, `npm run
 * build:portal`), which reads the campaign from its own path and everything else from ./portal-api.ts;
 * its scripts and styles are under /portal/assets/, named by their content's hash and cached for a year.
 * The dashboard's headers: this origin's scripts only, never framed, no referrer to other sites (the
 * page's address carries the sign-in token until the page drops it).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { Type } from '@sinclair/typebox';
import { DASHBOARD_HEADERS } from '../../http/security-headers.js';

/** The package root, from src/server/portal/routes (tsx) or dist/server/portal/routes (compiled) alike. */
const root = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/dist\/$/, '/');
const HASHED_CACHE = 'public, max-age=31536000, immutable';

export async function portalPageRoutes(app: FastifyInstance): Promise<void> {
  const dir = `${root}dist/portal`;
  if (!existsSync(`${dir}/index.html`)) {
    app.log.warn(`${dir} is missing: run "npm run build:portal" to serve the referrer's portal`);
    return;
  }
  await app.register(async (portal) => {
    portal.addHook('onRequest', async (_request, reply) => {
      reply.headers(DASHBOARD_HEADERS);
    });
    await portal.register(fastifyStatic, {
      root: `${dir}/assets`,
      prefix: '/portal/assets/',
      decorateReply: false,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('cache-control', HASHED_CACHE),
    });
    portal.get(
      '/portal/:id',
      { schema: { hide: true, params: Type.Object({ id: Type.String({ format: 'line', minLength: 1, maxLength: 64 }) }) } },
      // The same page for every campaign (it reads its campaign from its address), read at each request so
      // that a new build is served at once, as the dashboard's files are.
      async (_request, reply) => reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(await readFile(`${dir}/index.html`)),
    );
  });
}
