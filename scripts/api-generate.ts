/**
 * `npm run api:generate`: writes the wire contract (./api-contract.ts) from the OpenAPI document of a
 * service started on a scratch SQLite database, asked through Fastify's inject (no port, no network).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/server/app.js';
import { DEFAULT_RATE_LIMITS } from '../src/server/http/rate-limit.js';
import { openRuntime } from '../src/server/runtime.js';
import { contractFiles } from './api-contract.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'refkit-contract-'));
const runtime = await openRuntime({ databaseUrl: `sqlite://${join(dir, 'db.sqlite')}` });
try {
  const app = await buildApp({
    ctx: runtime.ctx,
    config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent', webhookAllowPrivate: false, demo: false, rateLimits: { ...DEFAULT_RATE_LIMITS, redisUrl: undefined } },
    logger: false,
  });
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
  await app.close();
  for (const [path, text] of Object.entries(await contractFiles(res.json()))) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
} finally {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
