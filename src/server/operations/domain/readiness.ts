import type { Ctx } from '../../kernel/context.js';

/** Resolves when the database answers a trivial query, rejects when it cannot be reached (`/readyz`). */
export async function checkDatabase(ctx: Ctx): Promise<void> {
  await ctx.store.ping();
}
