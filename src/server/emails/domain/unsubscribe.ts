/**
 * One-click unsubscribe from a campaign's lifecycle emails. Every email carries a link (in its footer,
 * and as RFC 8058's List-Unsubscribe header) naming the campaign and the participant, signed with the
 * campaign's own key (HMAC-SHA256 of both, email_secret): nothing is stored per email, a link works for
 * as long as the participant exists, and one cannot be made for someone else. Following it with GET
 * shows a confirmation page (mail scanners fetch links); POST, which mail clients send for one-click
 * unsubscribe, unsubscribes at once. The sender skips an unsubscribed participant's emails from then on.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CampaignRow, Store } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { newSecret } from '../../kernel/secrets.js';

export const UNSUBSCRIBE_PATH = '/email/unsubscribe';

/** A campaign's unsubscribe key (made now for a campaign that has none yet). */
async function secretOf(store: Store, campaign: CampaignRow): Promise<string> {
  return campaign.email_secret ?? store.emails.emailSecret(campaign.id, newSecret('es'));
}

const sign = (secret: string, campaignId: string, participantId: number) =>
  createHmac('sha256', secret).update(`unsubscribe ${campaignId} ${participantId}`).digest('base64url');

/** The participant's unsubscribe link: on the service (`baseUrl`), signed. */
export async function unsubscribeUrl(store: Store, baseUrl: string, campaign: CampaignRow, participantId: number): Promise<string> {
  const url = new URL(UNSUBSCRIBE_PATH, baseUrl);
  url.searchParams.set('c', campaign.id);
  url.searchParams.set('p', String(participantId));
  url.searchParams.set('t', sign(await secretOf(store, campaign), campaign.id, participantId));
  return url.href;
}

export interface UnsubscribeLink {
  c: string;
  p: string;
  t: string;
}

const linkNotValid = () => new AppError(404, 'link_not_found', 'This unsubscribe link is not valid', 't');

/** The campaign and participant a link names, or 404 when its signature does not match. */
export async function checkUnsubscribeLink(ctx: Ctx, link: UnsubscribeLink): Promise<{ campaign: CampaignRow; participantId: number }> {
  const campaign = await ctx.store.findCampaign(link.c);
  const participantId = Number(link.p);
  if (!campaign || !Number.isSafeInteger(participantId) || participantId <= 0) throw linkNotValid();
  const expected = Buffer.from(sign(await secretOf(ctx.store, campaign), campaign.id, participantId));
  const given = Buffer.from(link.t);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw linkNotValid();
  const participant = await ctx.store.findParticipant(participantId);
  if (!participant || participant.campaign_id !== campaign.id) throw linkNotValid();
  return { campaign, participantId };
}

/** Unsubscribes the participant a valid link names, at once (again: nothing changes). */
export async function unsubscribe(ctx: Ctx, link: UnsubscribeLink): Promise<CampaignRow> {
  const { campaign, participantId } = await checkUnsubscribeLink(ctx, link);
  await ctx.store.emails.unsubscribe(participantId, campaign.id, ctx.now());
  return campaign;
}
