/**
 * Fraud scoring of browser signups. Signals, each cheap and explainable:
 * - the email is an alias of the referrer's (same mailbox once `+tags` and gmail dots are removed): high;
 * - the email's domain is a disposable-mail provider: one point;
 * - a burst of signups from one IP in this campaign within the hour: one point.
 * Two points make `high` as well; one is `medium`; none is `low`. `high` withholds rewards until an admin
 * approves the participant. Signups made with a secret key are the product's own and are not scored.
 */
import { createRequire } from 'node:module';
import type { ParticipantRow } from '../store/store.js';
import type { Ctx } from './context.js';
import { emailDomain, emailKey } from './email.js';

export type FraudLevel = 'low' | 'medium' | 'high';

export const IP_BURST_WINDOW_MS = 60 * 60 * 1000;
export const IP_BURST_THRESHOLD = 5;

let disposable: Set<string> | undefined;
/** The list (about 120k domains) is loaded on first use, not at start-up. */
export function isDisposable(domain: string): boolean {
  disposable ??= new Set(createRequire(import.meta.url)('disposable-email-domains') as string[]);
  return disposable.has(domain);
}

export async function scoreSignup(
  ctx: Ctx,
  signup: { campaignId: string; email: string; ip: string | null; referrer: ParticipantRow | undefined },
): Promise<FraudLevel> {
  if (signup.referrer && emailKey(signup.referrer.email) === emailKey(signup.email)) return 'high';
  let points = 0;
  if (isDisposable(emailDomain(signup.email))) points++;
  if (signup.ip) {
    const recent = await ctx.store.countSignupsFromIp(signup.campaignId, signup.ip, ctx.now() - IP_BURST_WINDOW_MS);
    if (recent >= IP_BURST_THRESHOLD) points++;
  }
  return points >= 2 ? 'high' : points === 1 ? 'medium' : 'low';
}
