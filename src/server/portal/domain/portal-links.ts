/**
 * Signing in to the portal: a participant asks for a link with their email, and the link
 * (`<PUBLIC_URL>/portal/<campaign>?token=...`) is emailed to that address. The asking is answered the
 * same whatever happens (a participant, an unknown address, a throttled request, a mail server down), so
 * the answer tells no one who has joined; the work itself runs after the answer, so its time tells
 * nothing either. Only the first request within the throttle sends: one link per participant a minute,
 * LINKS_PER_HOUR an hour. A link is stored as its SHA-256, works once, for 15 minutes.
 */
import type { Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';
import { lookupCampaign } from '../../campaigns/domain/campaigns.js';
import { portalLinkMessage } from './portal-email.js';

export const LINK_TTL_MS = 15 * 60_000;
export const RESEND_INTERVAL_MS = 60_000;
export const LINKS_PER_HOUR = 5;
const HOUR_MS = 60 * 60_000;

/** The path of a campaign's portal page (the link's, and Stripe's return address). */
export const portalPath = (campaignId: string) => `/portal/${encodeURIComponent(campaignId)}`;

/** What became of a request for a link: for the log and the tests, never for the caller. */
export type LinkOutcome = 'sent' | 'throttled' | 'not_a_participant' | 'no_mail';

/** The requests of each service still at work (a test awaits them; a closing service lets them finish). */
const inFlight = new WeakMap<Ctx, Set<Promise<unknown>>>();

/**
 * Starts the work of a request for a link and returns it, never rejecting: `done` is told its outcome, or
 * why it failed (a mail server that refused: the link is then forgotten, so the participant may ask again).
 */
export function requestPortalLink(ctx: Ctx, campaignId: string, email: string, publicUrl: string | undefined, done: (outcome: LinkOutcome | Error) => void): Promise<void> {
  let running = inFlight.get(ctx);
  if (!running) inFlight.set(ctx, (running = new Set()));
  const work = sendPortalLink(ctx, campaignId, email, publicUrl).then(done, (err: unknown) => done(err instanceof Error ? err : new Error(String(err))));
  running.add(work);
  void work.finally(() => running.delete(work));
  return work;
}

/** Resolves once every request for a link this service started has done its work. */
export async function portalLinksSettled(ctx: Ctx): Promise<void> {
  while ((inFlight.get(ctx)?.size ?? 0) > 0) await Promise.allSettled([...inFlight.get(ctx)!]);
}

async function sendPortalLink(ctx: Ctx, campaignId: string, rawEmail: string, publicUrl: string | undefined): Promise<LinkOutcome> {
  const campaign = await lookupCampaign(ctx, campaignId);
  let email: string;
  try {
    email = normalizeEmail(rawEmail);
  } catch {
    return 'not_a_participant';
  }
  const participant = campaign && (await ctx.store.findParticipantByEmail(campaign.id, email));
  if (!campaign || !participant) return 'not_a_participant';
  // No link that cannot be followed: without a mailer or the service's public address, nothing is made.
  if (!ctx.mailer || !publicUrl) return 'no_mail';
  const now = ctx.now();
  const token = newSecret('pl');
  const row = { token_hash: hashSecret(token), participant_id: participant.id, campaign_id: campaign.id, expires_on: now + LINK_TTL_MS, used_on: null, created_on: now };
  const made = await ctx.store.transaction(async (tx) => {
    await tx.portal.holdLinks(participant.id);
    const recent = await tx.portal.linksSince(participant.id, now - HOUR_MS, LINKS_PER_HOUR);
    if (recent.length >= LINKS_PER_HOUR || (recent[0] !== undefined && now - recent[0] < RESEND_INTERVAL_MS)) return false;
    await tx.portal.deleteSpent(participant.id, now - HOUR_MS, now);
    await tx.portal.insertLink(row);
    return true;
  });
  if (!made) return 'throttled';
  const url = new URL(`${publicUrl.replace(/\/+$/, '')}${portalPath(campaign.id)}`);
  url.searchParams.set('token', token);
  try {
    await ctx.mailer.send(portalLinkMessage(participant.email, campaign.name, participant.locale, url.href));
  } catch (err) {
    await ctx.store.portal.deleteLink(row.token_hash);
    throw new Error('The portal sign-in link could not be sent', { cause: err });
  }
  return 'sent';
}
