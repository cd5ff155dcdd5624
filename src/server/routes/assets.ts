/** The widget bundles at /widget/, the demo landing page at /demo/, and `/` redirecting there. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** The package root, from src/server/routes (tsx) or dist/server/routes (compiled) alike. */
const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/dist\/$/, '/');

export async function assetRoutes(app: FastifyInstance): Promise<void> {
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
        setHeaders: (res) => res.setHeader('cache-control', 'public, max-age=300'),
      });
    });
  } else {
    app.log.warn(`${widgetDir} is missing: run "npm run build:widget" to serve the widget`);
  }
  await app.register(fastifyStatic, { root: `${root}demo`, prefix: '/demo/', decorateReply: false });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/demo/'));
}
