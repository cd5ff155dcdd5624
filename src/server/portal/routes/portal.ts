/** The referrer's portal as app.ts mounts it: its API (./portal-api.ts) and its page (./portal-page.ts). */
import type { FastifyInstance } from 'fastify';
import { portalApiRoutes } from './portal-api.js';
import { portalPageRoutes } from './portal-page.js';

export async function portalRoutes(app: FastifyInstance, options: { publicUrl: string | undefined }): Promise<void> {
  await app.register(portalApiRoutes, options);
  await app.register(portalPageRoutes);
}
