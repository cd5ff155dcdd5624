/**
 * The throttle on failed sign-ins: per email (guessing one owner's password) and per IP (trying many
 * owners from one place). Counted in the database, so every service process shares the counts.
 */
import type { Ctx } from './context.js';
import { AppError } from './errors.js';

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 20;

const keys = (email: string, ip: string) => [
  { key: `email:${email}`, max: MAX_FAILURES_PER_EMAIL },
  { key: `ip:${ip}`, max: MAX_FAILURES_PER_IP },
];

/** Throws 429 rate_limited (with Retry-After) while either the email or the IP has used up its failures. */
export async function assertNotThrottled(ctx: Ctx, email: string, ip: string): Promise<void> {
  const now = ctx.now();
  for (const { key, max } of keys(email, ip)) {
    const f = await ctx.store.owners.failures(key, now - THROTTLE_WINDOW_MS);
    if (f && f.failures >= max) {
      const seconds = Math.max(1, Math.ceil((f.windowStart + THROTTLE_WINDOW_MS - now) / 1000));
      throw new AppError(429, 'rate_limited', `Too many failed sign-ins; try again in ${Math.ceil(seconds / 60)} min`, undefined, {
        'retry-after': String(seconds),
      });
    }
  }
}

export async function recordFailure(ctx: Ctx, email: string, ip: string): Promise<void> {
  const now = ctx.now();
  for (const { key } of keys(email, ip)) await ctx.store.owners.addFailure(key, now - THROTTLE_WINDOW_MS, now);
}

/** A right password forgets the email's failures (not the IP's: one success must not reset a sweep). */
export const recordSuccess = (ctx: Ctx, email: string) => ctx.store.owners.clearFailures(`email:${email}`);
