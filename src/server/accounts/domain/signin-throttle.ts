/**
 * The throttle on sign-ins, counted in the database so every service process shares it. Three counts,
 * each reserved atomically before the password is checked (and given back when it was right), so a
 * parallel burst gets exactly as many checks as the same calls made one after another:
 *
 * - per client and email (`pair`): a few tries, then each next one waits longer (1 s, 2 s, 4 s ... up
 *   to the window). Never a lock: whoever hammers an email delays only themselves.
 * - per email, a looser backstop against guessing one password from many addresses; it holds back only
 *   clients that have failed on this email already, so a stranger cannot lock the owner out.
 * - per client, against trying many emails from one place.
 *
 * A client is an IPv4 address or an IPv6 /64 (../../http/rate-limit.ts clientKey).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import type { OwnerStore } from '../store/owner-store.js';

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** Failed tries of one client on one email before its next tries are spaced out. */
export const FREE_TRIES = 3;
/** The wait after FREE_TRIES failures, doubled with each further one, up to the window. */
export const FIRST_DELAY_MS = 1000;
export const MAX_FAILURES_PER_EMAIL = 30;
export const MAX_FAILURES_PER_IP = 20;
/** No cap (a count the window cannot reach), for counts that only delay. */
const UNCAPPED = 2 ** 31 - 1;

/** Wait before the next try once `n` failures are counted: 0, then FIRST_DELAY_MS doubling, at most the window. */
export function delayAfter(n: number): number {
  return n < FREE_TRIES ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (n - FREE_TRIES), THROTTLE_WINDOW_MS);
}

/** delayAfter as SQL of a count: a ladder of its steps (literals, so that PostgreSQL types them as numbers). */
function delaySql(n: RawBuilder<number>): RawBuilder<number> {
  const steps: RawBuilder<unknown>[] = [];
  let i = FREE_TRIES - 1;
  for (; delayAfter(i) < THROTTLE_WINDOW_MS; i++) steps.push(sql`when ${n} <= ${sql.lit(i)} then ${sql.lit(delayAfter(i))}`);
  return sql<number>`(case ${sql.join(steps, sql` `)} else ${sql.lit(THROTTLE_WINDOW_MS)} end)`;
}
const noDelay = () => sql<number>`0`;

function throttled(seconds: number): AppError {
  const wait = seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
  return new AppError(429, 'rate_limited', `Too many failed sign-ins; try again in ${wait}`, undefined, { 'retry-after': String(seconds) });
}

const PAIR = 'pair:';
const emailKey = (email: string) => `email:${email}`;

/**
 * Forgets every failed sign-in on `email`, from every client (an owner reset by whoever runs the service);
 * the clients' own counts over all emails stay.
 */
export async function forgetFailures(ctx: Ctx, email: string): Promise<void> {
  await ctx.store.owners.clearFailures(emailKey(email));
  await ctx.store.owners.clearFailuresAround(PAIR, ` ${email}`);
}

export interface SignInAttempt {
  /** The password was right: the attempt is given back, and this client's failures on the email forgotten. */
  succeeded(): Promise<void>;
}

/**
 * Reserves a sign-in attempt of `client` on `email`, or throws 429 rate_limited with Retry-After. The
 * reservation is the failure: it stays unless `succeeded()` is called.
 */
export async function reserveSignIn(ctx: Ctx, email: string, client: string, device?: string): Promise<SignInAttempt> {
  const now = ctx.now();
  const since = now - THROTTLE_WINDOW_MS;
  /** The 429 for a key that is held back. */
  const refuse = async (owners: OwnerStore, key: string, max: number) => {
    const at = (await owners.retryAt(key, THROTTLE_WINDOW_MS, max)) ?? now;
    return throttled(Math.max(1, Math.ceil((at - now) / 1000)));
  };
  if (device !== undefined) {
    // A browser the owner trusted (./trusted-devices.ts): its own few tries and growing waits, and nothing
    // anyone else did counts against it.
    const key = `device:${device}`;
    const { owners } = ctx.store;
    if ((await owners.reserveAttempt(key, since, now, UNCAPPED, delaySql)) === undefined) throw await refuse(owners, key, UNCAPPED);
    return { succeeded: () => owners.clearFailures(key) };
  }
  const ip = `ip:${client}`;
  // A space cannot be in an address, so no two pairs share a key.
  const pair = `${PAIR}${client} ${email}`;
  const byEmail = emailKey(email);

  // The three reservations are one transaction: a refusal by a later count rolls back the earlier ones
  // rather than giving them back afterwards, so a parallel burst never sees a count briefly full with
  // attempts that are then returned (it would refuse more than the same calls made one after another, and
  // leave the count short of its limit). The rows are always taken in this order, so no two wait on each other.
  await ctx.store.transaction(async ({ owners }) => {
    if ((await owners.reserveAttempt(ip, since, now, MAX_FAILURES_PER_IP, noDelay)) === undefined) throw await refuse(owners, ip, MAX_FAILURES_PER_IP);
    const tries = await owners.reserveAttempt(pair, since, now, UNCAPPED, delaySql);
    if (tries === undefined) throw await refuse(owners, pair, UNCAPPED);
    // Counted for every client, but a client with no failures on this email is never held back by it.
    const emailMax = tries === 1 ? UNCAPPED : MAX_FAILURES_PER_EMAIL;
    if ((await owners.reserveAttempt(byEmail, since, now, emailMax, noDelay)) === undefined) throw await refuse(owners, byEmail, MAX_FAILURES_PER_EMAIL);
  });

  const { owners } = ctx.store;
  return {
    async succeeded() {
      // The email's and the client's other failures stay: one success must not reset a sweep.
      await owners.clearFailures(pair);
      await owners.releaseAttempt(byEmail);
      await owners.releaseAttempt(ip);
    },
  };
}
