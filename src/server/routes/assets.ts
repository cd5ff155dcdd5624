/** The widget bundles at /widget/, the owner's dashboard at /admin/; in demo mode the demo landing page at /demo/, and `/` redirecting there. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** The package root, from src/server/routes (tsx) or dist/server/routes (compiled) alike. */
const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/dist\/$/, '/');

export async function assetRoutes(app: FastifyInstance, { demo }: { demo: boolean }): Promise<void> {
  const widgetDir = `${root}dist/widget`;
  if (existsSync(widgetDir)) {
    await app.register(fastifyStatic, {
      root: widgetDir,
      prefix: '/widget/',
      decorateReply: false,
      // Module scripts are fetched with CORS: any page may load the widget; the API checks origins.
      setHeaders: (res) => {
        res.setHeader('access-control-allow-origin', '*');
        res.setHeader('cache-control', 'public, max-age=300');
      },
    });
  } else {
    app.log.warn(`${widgetDir} is missing: run "npm run build:widget" to serve the widget`);
  }
  const dashboardDir = `${root}dist/dashboard`;
  if (existsSync(dashboardDir)) {
    await app.register(fastifyStatic, {
      root: dashboardDir,
      prefix: '/admin/',
      decorateReply: false,
      // The dashboard runs on this origin only: no framing (clickjacking), no scripts from elsewhere.
      setHeaders: (res) => {
        res.setHeader('x-frame-options', 'DENY');
        res.setHeader('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
        res.setHeader('referrer-policy', 'same-origin');
      },
    });
    app.get('/admin', { schema: { hide: true } }, (_request, reply) => reply.redirect('/admin/'));
  } else {
    app.log.warn(`${dashboardDir} is missing: run "npm run build:dashboard" to serve the dashboard`);
  }
  if (!demo) return;
  await app.register(fastifyStatic, { root: `${root}demo`, prefix: '/demo/', decorateReply: false });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/demo/'));
}
