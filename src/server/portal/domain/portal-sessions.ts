/**
 * Portal sessions: following an emailed link (once, within its 15 minutes) opens a session for that
 * participant of that campaign and no other. Its token goes in an httpOnly cookie and is stored only as
 * its SHA-256; a CSRF token per session, which every change made with the cookie must echo in a header.
 * A session ends on sign-out, or after PORTAL_SESSION_TTL_MS.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';

/** A day: long enough to finish what one came for, short for a page that shows tax details. */
export const PORTAL_SESSION_TTL_MS = 24 * 60 * 60_000;

export interface PortalSession {
  participantId: number;
  campaignId: string;
  csrfToken: string;
}

export const notSignedIn = () => new AppError(401, 'unauthorized', 'Not signed in to this campaign’s portal: ask for a sign-in link (portal/signIn)');
const linkRefused = () => new AppError(401, 'link_not_found', 'This sign-in link is unknown, already used or expired; ask for a new one', 'token');

/**
 * Uses the link `token` of `campaignId` and opens a session, in one transaction: a link works once even
 * when followed twice at the same moment, and a link is never used up without its session. 401
 * link_not_found for a token unknown, used, expired or of another campaign (all alike to a guesser).
 */
export async function openPortalSession(ctx: Ctx, campaignId: string, token: string): Promise<{ token: string; csrfToken: string }> {
  const now = ctx.now();
  return ctx.store.transaction(async (tx) => {
    const participantId = await tx.portal.useLink(hashSecret(token), campaignId, now);
    if (participantId === undefined) throw linkRefused();
    const session = { token: newSecret('ps'), csrfToken: newSecret('csrf') };
    await tx.portal.insertSession({
      token_hash: hashSecret(session.token),
      participant_id: participantId,
      campaign_id: campaignId,
      csrf_token: session.csrfToken,
      expires_on: now + PORTAL_SESSION_TTL_MS,
      created_on: now,
    });
    return session;
  });
}

/** The live session a cookie token names, if any. */
export async function findPortalSession(ctx: Ctx, token: string): Promise<PortalSession | undefined> {
  const row = await ctx.store.portal.findLiveSession(hashSecret(token), ctx.now());
  return row && { participantId: row.participant_id, campaignId: row.campaign_id, csrfToken: row.csrf_token };
}

export function portalCsrfMatches(session: PortalSession, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const closePortalSession = (ctx: Ctx, token: string) => ctx.store.portal.deleteSession(hashSecret(token));
