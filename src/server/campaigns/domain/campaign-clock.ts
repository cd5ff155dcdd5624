/**
 * advanceClock: moves a test campaign's time forward (../../kernel/campaign-time.ts), as if the time had passed.
 * Not a jump: it steps through what falls due on the way in time order (holds ending, reminders), each
 * run in the campaign's time of its due moment through the very functions the background loops run, so
 * a hold ending on day 10 writes its reward_unlocked event and email, stamped day 10, before day 20's.
 * Each step moves the stored clock first, so the outboxes' senders (which send what is due in a
 * campaign's own time) send what a step wrote in order, and so does the Stripe payout sender. The
 * retention pruner's pass over the campaign runs at each step too, so its data goes when its own days
 * have passed. What is read rather than run (monthly boards, caps, `end`) follows the clock by itself.
 */
import type { AdvanceClockBody, CampaignClock } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { ownCampaign } from './campaigns.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { queueReminders } from '../../emails/domain/lifecycle-emails.js';
import { readEmailSettings, sends } from '../../emails/domain/email-settings.js';
import { releaseDueRewards } from '../../rewards/domain/reward-release.js';
import { pruneExpired } from '../../privacy/domain/retention.js';
import { inCampaignTime, offsetOf, realNow } from '../../kernel/campaign-time.js';
import { DAY_MS, iso } from '../../kernel/time.js';

/** How far ahead of the real time a clock may go: a scripted year and then some. */
export const MAX_AHEAD_DAYS = 5 * 366;

const clockMoved = () => new AppError(409, 'clock_moved', "Another advanceClock moved this campaign's clock meanwhile: read its time and try again", 'id');

/** The campaign's clock as the routes show it. */
function presentClock(id: string, now: number, offset: number): CampaignClock {
  return { id, now: iso(now), offsetMs: offset };
}

/** A test campaign's time now (getCampaignClock); 400 for a live one. */
export async function getClock(ctx: Ctx, actor: Actor, id: string): Promise<CampaignClock> {
  const c = await ownCampaign(ctx, actor, id);
  if (c.test !== 1) throw invalid('id', 'A live campaign runs on the real time: only a test campaign has a clock of its own');
  const offset = await offsetOf(ctx, c);
  return presentClock(id, realNow(ctx) + offset, offset);
}

/**
 * The next moment after `after` (up to `until`, in the campaign's time) at which something of the
 * campaign falls due: a held credit's release, or a participant's reminder. Undefined: nothing.
 */
async function nextDue(ctx: Ctx, c: CampaignRow, after: number, until: number): Promise<number | undefined> {
  const release = await ctx.store.rewardEntries.nextDue(c.id, after, until);
  const reminders = ctx.store.emails.enabled && sends(c, 'reminder') ? await nextReminder(ctx, c.id, after, until, readEmailSettings(c).reminderDays * DAY_MS) : undefined;
  const times = [release, reminders].filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : Math.min(...times);
}

/**
 * When the next participant's reminder falls due, within (after, until]: a millisecond past `delay` after
 * they joined, as queueReminders takes those who joined strictly before `now - delay`.
 */
async function nextReminder(ctx: Ctx, campaignId: string, after: number, until: number, delay: number): Promise<number | undefined> {
  const joined = await ctx.store.clocks.firstJoinedBetween(campaignId, after - delay - 1, until - delay - 1);
  return joined === undefined ? undefined : joined + delay + 1;
}

/** Runs, in the campaign's time `at`, what the background loops would run for it then. */
async function runDue(ctx: Ctx, campaignId: string, offset: number): Promise<void> {
  await inCampaignTime(offset, async () => {
    await releaseDueRewards(ctx, campaignId);
    await queueReminders(ctx, campaignId);
    await pruneExpired(ctx, { campaignId });
  });
}

/**
 * Moves a test campaign's clock to `to` (forward only, at most MAX_AHEAD_DAYS ahead of the real time),
 * stepping through what falls due on the way. 400 for a live campaign, a time not ahead of the
 * campaign's, or one too far; 409 when another advance moved the clock meanwhile.
 */
export async function advanceClock(ctx: Ctx, actor: Actor, body: AdvanceClockBody): Promise<CampaignClock> {
  const c = await ownCampaign(ctx, actor, body.id);
  if (c.test !== 1) throw invalid('id', "A live campaign's time cannot be moved: only a test campaign's (createCampaign with test: true)");
  const to = Date.parse(body.to);
  let offset = await offsetOf(ctx, c);
  const real = realNow(ctx);
  if (to <= real + offset) throw invalid('to', `A clock moves forward only: the campaign's time is ${iso(real + offset)}`);
  if (to - real > MAX_AHEAD_DAYS * DAY_MS) throw invalid('to', `A clock may run at most ${MAX_AHEAD_DAYS} days ahead of the real time`);
  const move = async (at: number) => {
    // Against the real time at this moment: the steps take real time too.
    const next = at - realNow(ctx);
    if (!(await ctx.store.clocks.move(c.id, offset, next, realNow(ctx)))) throw clockMoved();
    offset = next;
  };
  for (let at = await nextDue(ctx, c, real + offset, to); at !== undefined; at = await nextDue(ctx, c, at, to)) {
    await move(at);
    await runDue(ctx, c.id, offset);
  }
  await move(to);
  await runDue(ctx, c.id, offset);
  ctx.onEventsCommitted?.();
  // The time asked for: the clock was set to it (the real time has moved on by the steps' few milliseconds since).
  return presentClock(c.id, to, offset);
}
