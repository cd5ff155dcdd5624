/**
 * Each test campaign's own time: the real time plus its clock's offset (../store/campaign-clock-store.ts),
 * moved forward by advanceClock (../campaigns/domain/campaign-clock.ts). Ctx.now stays one function for all: it reads the
 * offset of the campaign being worked on from an AsyncLocalStorage scope, which the HTTP layer enters for
 * a request about a test campaign (../http/campaign-time.ts) and the background loops and advanceClock
 * enter for each test campaign they run. So every domain rule that reads ctx.now() (holds, caps, monthly
 * boards, `end`, email and webhook timestamps) reads the campaign's time without being told of clocks.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CampaignRow } from '../store/store.js';
import type { Ctx } from './context.js';

/**
 * Entered only where a clock is ahead (or to leave such a scope): the first run() or enterWith() turns
 * on Node's async hooks for the whole process, for good, and every promise then costs more (about 5% of a
 * getParticipant's CPU in a profile). A process whose campaigns are all on the real time never pays it.
 */
const scope = new AsyncLocalStorage<number>();

/** `base` (the real clock) moved by the offset of the campaign in scope, if any: what Ctx.now is made of. */
export const clockedNow =
  (base: () => number): (() => number) =>
  () =>
    base() + (scope.getStore() ?? 0);

/** Runs `fn` in a campaign's time: ctx.now() inside (and in all it awaits) is `offset` ahead. */
export const inCampaignTime = <T>(offset: number, fn: () => T): T => (offset === (scope.getStore() ?? 0) ? fn() : scope.run(offset, fn));

/** Enters a campaign's time for the rest of this asynchronous flow (a request's handler). */
export const enterCampaignTime = (offset: number): void => scope.enterWith(offset);

/** The real time, whatever campaign's time is in scope. */
export const realNow = (ctx: Ctx): number => inCampaignTime(0, () => ctx.now());

/** How far ahead of the real time a campaign's clock is: 0 for a live one (no read) and an unmoved one. */
export const offsetOf = (ctx: Ctx, c: Pick<CampaignRow, 'id' | 'test'>): Promise<number> => (c.test === 1 ? ctx.store.clocks.offset(c.id) : Promise.resolve(0));

/**
 * The campaign's time now: ctx.now() in a campaign's scope (the caller's), else the real time plus its
 * offset. For loops that go through every campaign in one pass (reminders).
 */
export async function campaignNow(ctx: Ctx, c: Pick<CampaignRow, 'id' | 'test'>): Promise<number> {
  return scope.getStore() !== undefined ? ctx.now() : ctx.now() + (await offsetOf(ctx, c));
}

/**
 * Runs `fn` for each test campaign whose clock is ahead, in its time: a background loop's pass over what
 * is due in those campaigns' time and not yet in the real time (the loop's own pass does the rest).
 */
export async function eachMovedCampaign(ctx: Ctx, fn: (campaignId: string) => Promise<unknown>): Promise<void> {
  for (const { campaignId, offset } of await ctx.store.clocks.moved()) await inCampaignTime(offset, () => fn(campaignId));
}
