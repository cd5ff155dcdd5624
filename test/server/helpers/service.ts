/**
 * A real service for a test: the app factory over a fresh database, listening on a loopback port, and
 * typed clients for it (one with a secret key, one keyless like a browser).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { RefkitClient } from '../../../src/api/client.js';
import type { CreateCampaignBody } from '../../../src/api/schemas.js';
import { buildApp } from '../../../src/server/app.js';
import { DEFAULT_ACCOUNT, type Ctx } from '../../../src/server/domain/context.js';
import { createApiKey } from '../../../src/server/domain/keys.js';
import { openRuntime, type Runtime } from '../../../src/server/runtime.js';
import type { DatabaseKind, TestDatabase } from './databases.js';

export interface TestService {
  url: string;
  /** Client with a secret key of the default account. */
  admin: RefkitClient;
  /** Keyless client, as the widget calls. */
  browser: RefkitClient;
  secretKey: string;
  ctx: Ctx;
  app: FastifyInstance;
  /** Creates a campaign with sensible defaults, through the admin API. */
  campaign(fields?: Partial<CreateCampaignBody>): Promise<string>;
  /** Stops the server and the database connection; the database itself stays (see drop). */
  stop(): Promise<void>;
  /** stop() and delete the database. */
  close(): Promise<void>;
  database: TestDatabase;
}

export async function startService(kind: DatabaseKind, options: { database?: TestDatabase; now?: () => number } = {}): Promise<TestService> {
  const database = options.database ?? (await kind.create());
  const runtime: Runtime = await openRuntime({ databaseUrl: database.url });
  if (options.now) runtime.ctx.now = options.now;
  const app = await buildApp({ ctx: runtime.ctx, config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'silent' }, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const { key: secretKey } = await createApiKey(runtime.ctx, DEFAULT_ACCOUNT, 'test');
  const admin = new RefkitClient({ baseUrl: url, secretKey });
  const stop = async () => {
    await app.close();
    await runtime.close();
  };
  return {
    url,
    admin,
    browser: new RefkitClient({ baseUrl: url }),
    secretKey,
    ctx: runtime.ctx,
    app,
    database,
    async campaign(fields = {}) {
      const c = await admin.createCampaign({
        campaignName: 'Test campaign',
        hostURL: 'https://shop.example/join',
        referrerRewardValue: 10,
        refereeRewardValue: 5,
        ...fields,
      });
      return c.campaignId!;
    },
    stop,
    async close() {
      await stop();
      await database.drop();
    },
  };
}
