/** Reading participants: one by email, the lists, and checking a referral code. */
import type { PagingQuery } from '../../../api/schemas.js';
import type { AnsweredParticipant } from '../store/answer-reads.js';
import type { CampaignRow } from '../../store/store.js';
import { findCampaign, ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { participantNotFound } from '../../kernel/errors.js';
import { countImpression, type Visitor } from './impressions.js';
import { fetchPage, pageRequest, type PageResult } from '../../kernel/paging.js';
import type { ParticipantView } from './present.js';

/** Codes are shown in capitals; people type them in any case and with stray spaces. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();

/** A participant of one of the actor's campaigns. */
export const getParticipant = (ctx: Ctx, actor: Actor, campaignId: string, rawEmail: string): Promise<ParticipantView> =>
  participantBy(ctx, actor, campaignId, rawEmail, (id, email) => ctx.store.findParticipantByEmail(id, email));

/** The same participant, only what an answer shows of them (the getParticipant route's read). */
export const answerParticipant = (ctx: Ctx, actor: Actor, campaignId: string, rawEmail: string): Promise<ParticipantView<AnsweredParticipant>> =>
  participantBy(ctx, actor, campaignId, rawEmail, (id, email) => ctx.store.answers.byEmail(id, email));

async function participantBy<P extends AnsweredParticipant>(
  ctx: Ctx,
  actor: Actor,
  campaignId: string,
  rawEmail: string,
  read: (campaignId: string, email: string) => Promise<P | undefined>,
): Promise<ParticipantView<P>> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const participant = await read(campaign.id, normalizeEmail(rawEmail));
  if (!participant) throw participantNotFound();
  return { participant, campaign };
}

export async function listParticipants(ctx: Ctx, actor: Actor, campaignId: string, paging: PagingQuery) {
  const req = pageRequest(paging);
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const page = await fetchPage(req, (start, limit) => ctx.store.answers.page({ campaignId: campaign.id }, start, limit));
  return { campaign, ...page };
}

export async function listReferrals(
  ctx: Ctx,
  actor: Actor,
  campaignId: string,
  email: string,
  paging: PagingQuery,
): Promise<PageResult<AnsweredParticipant> & { campaign: CampaignRow }> {
  const req = pageRequest(paging);
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const page = await fetchPage(req, async (start, limit) => {
    const rows = await ctx.store.answers.referralsOf(campaign.id, normalizeEmail(email), start, limit);
    if (!rows) throw participantNotFound();
    return rows;
  });
  return { campaign, ...page };
}

/**
 * True when the code belongs to a participant of the campaign. A browser's check (`visitor` given)
 * counts an impression for the code's owner, once per visitor and day.
 */
export async function validateCode(ctx: Ctx, campaignId: string, rawCode: string, visitor: Visitor | undefined): Promise<boolean> {
  const campaign = await findCampaign(ctx, campaignId);
  const owner = await ctx.store.codeOwner(campaign.id, normalizeCode(rawCode));
  if (owner && visitor) await countImpression(ctx, owner.id, visitor);
  return owner !== undefined;
}
