/**
 * The widget bundles at /widget/, the owner's dashboard at /admin/, and in demo mode the demo landing
 * page at /demo/ (with the campaign's Open Graph preview, ./landing.ts) and `/` redirecting there.
 *
 * The bundles are served precompressed (the build writes .br and .gz beside each file; the best one the
 * browser accepts is sent). Chunks carry a content hash in their names and are cached for a year; the
 * entry scripts keep their names, so pages pick up a new release within five minutes.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Ctx } from '../../kernel/context.js';
import { DASHBOARD_HEADERS } from '../../http/security-headers.js';
import { landingPageRoutes } from './landing.js';

/** The package root, from src/server/operations/routes (tsx) or dist/server/operations/routes (compiled) alike. */
const root = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/dist\/$/, '/');

/** Where the build puts content-hashed files (vite.config.ts). */
export const HASHED_DIR = '/chunks/';
export const ENTRY_CACHE = 'public, max-age=300';
export const HASHED_CACHE = 'public, max-age=31536000, immutable';

export async function assetRoutes(app: FastifyInstance, { ctx, demo }: { ctx: Ctx; demo: boolean }): Promise<void> {
  const widgetDir = `${root}dist/widget`;
  if (existsSync(widgetDir)) {
    await app.register(async (widget) => {
      // Any page may load the widget (the API checks origins): module scripts are fetched with CORS, and
      // the classic script without it, which Cross-Origin-Resource-Policy would otherwise block.
      widget.addHook('onSend', async (_request, reply) => {
        reply.header('access-control-allow-origin', '*').header('cross-origin-resource-policy', 'cross-origin');
      });
      await widget.register(fastifyStatic, {
        root: widgetDir,
        prefix: '/widget/',
        decorateReply: false,
        preCompressed: true,
        // Our own Cache-Control below, instead of send's `max-age=0`.
        cacheControl: false,
        setHeaders: (res, path) => res.setHeader('cache-control', path.includes(HASHED_DIR) ? HASHED_CACHE : ENTRY_CACHE),
      });
    });
  } else {
    app.log.warn(`${widgetDir} is missing: run "npm run build:widget" to serve the widget`);
  }
  const dashboardDir = `${root}dist/dashboard`;
  if (existsSync(dashboardDir)) {
    await app.register(async (dashboard) => {
      dashboard.addHook('onRequest', async (_request, reply) => {
        reply.headers(DASHBOARD_HEADERS);
      });
      await dashboard.register(fastifyStatic, { root: dashboardDir, prefix: '/admin/', decorateReply: false });
    });
    app.get('/admin', { schema: { hide: true } }, (_request, reply) => reply.redirect('/admin/'));
  } else {
    app.log.warn(`${dashboardDir} is missing: run "npm run build:dashboard" to serve the dashboard`);
  }
  if (!demo) return;
  landingPageRoutes(app, ctx, `${root}demo/index.html`);
  await app.register(fastifyStatic, { root: `${root}demo`, prefix: '/demo/', decorateReply: false, index: false });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/demo/'));
}
