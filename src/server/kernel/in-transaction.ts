import type { Ctx } from './context.js';

/**
 * Runs `fn` in one transaction, with a context whose operations join it (the store joins an outer
 * transaction); webhook events and emails queued in it are announced once it commits, not before.
 */
export async function inTransaction<T>(ctx: Ctx, fn: (tx: Ctx) => Promise<T>): Promise<T> {
  let nudge = false;
  const result = await ctx.store.transaction((store) => fn({ ...ctx, store, onEventsCommitted: () => (nudge = true) }));
  if (nudge) ctx.onEventsCommitted?.();
  return result;
}
