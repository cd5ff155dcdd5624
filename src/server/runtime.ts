/** Opening the store for a process: connect, migrate, and the domain context over it. */
import type { Config } from './config.js';
import type { Ctx } from './domain/context.js';
import { connect } from './store/connect.js';
import { migrate } from './store/migrations.js';
import { Store } from './store/store.js';

export interface Runtime {
  ctx: Ctx;
  close(): Promise<void>;
}

export async function openRuntime(config: Pick<Config, 'databaseUrl'>): Promise<Runtime> {
  const { db, dialect, close } = connect(config.databaseUrl);
  try {
    await migrate(db, dialect);
  } catch (err) {
    await close();
    throw err;
  }
  return { ctx: { store: new Store(db, dialect), now: Date.now }, close };
}
