/**
 * Fraud scoring of browser signups. Signals, each cheap and explainable:
 * - the email is an alias of the referrer's (same mailbox once `+tags` and gmail dots are removed): high;
 * - referral squatting, signing other people's emails up under one's own code before they join: the
 *   referee comes from the referrer's own sign-up network, or several referees of one referrer come
 *   from one network (an IPv4 address or an IPv6 /64): high, and the earlier ones from that network
 *   are held back with it;
 * - the email's domain is a disposable-mail provider: one point;
 * - a burst of signups from one network in this campaign within the hour: one point.
 * Two points make `high` as well; one is `medium`; none is `low`. `high` withholds rewards on both sides
 * of a referral until an admin approves (../../rewards/domain/rewards.ts). Signups made with a secret key are the product's
 * own and are not scored.
 */
import { createRequire } from 'node:module';
import type { CodeOwner } from '../../store/caches.js';
import type { Ctx } from '../../kernel/context.js';
import { emailDomain, emailKey } from '../../kernel/email.js';

export type FraudLevel = 'low' | 'medium' | 'high';

export const IP_BURST_WINDOW_MS = 60 * 60 * 1000;
export const IP_BURST_THRESHOLD = 5;
/** This many referees of one referrer from one network are one person signing others up. */
export const SQUAT_THRESHOLD = 3;

let disposable: Set<string> | undefined;

/**
 * Loads the list of disposable-mail domains (about 120k) unless it is loaded. It takes 60-100 ms in which
 * the event loop serves nothing, so a server loads it before it listens (../../serve.ts) rather than in its
 * first keyless sign-up; other commands, which never score a sign-up, never load it.
 */
export function loadDisposableDomains(): Set<string> {
  return (disposable ??= new Set(createRequire(import.meta.url)('disposable-email-domains') as string[]));
}

export function isDisposable(domain: string): boolean {
  return loadDisposableDomains().has(domain);
}

export interface Signup {
  campaignId: string;
  email: string;
  /** The network of the sign-up's address (../../kernel/network.ts), when known. */
  net: string | null;
  referrer: CodeOwner | undefined;
}

export interface FraudVerdict {
  level: FraudLevel;
  /** Set when this sign-up completes a squatting pattern: the referee group to hold back with it. */
  squat?: { referrerId: number; net: string };
}

/** The capped counts scoreSignup's rules read, for a sign-up from `net` at `now`. */
export const fraudCounts = (net: string, now: number) => ({ net, refereesCap: SQUAT_THRESHOLD - 1, signupsSince: now - IP_BURST_WINDOW_MS, signupsCap: IP_BURST_THRESHOLD });

/**
 * `counted`: the counts of fraudCounts, when the caller read them already (with the sign-up's other
 * reads, in one PostgreSQL round trip); else they are read here, only where a rule needs them.
 */
export async function scoreSignup(ctx: Ctx, signup: Signup, counted?: { referees: number; signups: number }): Promise<FraudVerdict> {
  const { referrer, net } = signup;
  if (referrer && emailKey(referrer.email) === emailKey(signup.email)) return { level: 'high' };
  const caps = net ? fraudCounts(net, ctx.now()) : undefined;
  if (referrer && caps) {
    if (referrer.signup_net === caps.net) return { level: 'high' };
    const earlier = counted?.referees ?? (await ctx.store.countRefereesFromNet(referrer.id, caps.net, caps.refereesCap));
    if (earlier + 1 >= SQUAT_THRESHOLD) return { level: 'high', squat: { referrerId: referrer.id, net: caps.net } };
  }
  let points = 0;
  if (isDisposable(emailDomain(signup.email))) points++;
  if (caps) {
    const recent = counted?.signups ?? (await ctx.store.countSignupsFromNet(signup.campaignId, caps.net, caps.signupsSince, caps.signupsCap));
    if (recent >= IP_BURST_THRESHOLD) points++;
  }
  return { level: points >= 2 ? 'high' : points === 1 ? 'medium' : 'low' };
}
