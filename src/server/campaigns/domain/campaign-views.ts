/** Campaigns as the routes answer with them: wire shapes carrying the participant count as it stands. */
import type { Campaign, CampaignSettings } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { presentCampaign, presentCampaignSettings } from '../../referrals/domain/present.js';
import { seesMode } from '../../kernel/test-mode.js';

/** The wire Campaign. The count is read on each call: it moves with every sign-up, so cached rows lack it. */
export async function campaignView(ctx: Ctx, c: CampaignRow): Promise<Campaign> {
  return presentCampaign(c, await ctx.store.countParticipants(c.id), ctx.now());
}

/** One campaign as listCampaigns shows it, with every setting: what the owner's changes answer. */
export async function campaignSettingsView(ctx: Ctx, c: CampaignRow): Promise<CampaignSettings> {
  const held = await ctx.store.directory.countHeld([c.id]);
  return presentCampaignSettings(c, { participants: await ctx.store.countParticipants(c.id), reviewQueue: held.get(c.id) ?? 0 }, ctx.now());
}

/** The account's campaigns, newest first, with every setting and their counts (one query for all of each). */
export async function listCampaignSettings(ctx: Ctx, actor: Actor): Promise<CampaignSettings[]> {
  const rows = (await ctx.store.listCampaigns(actor.accountId)).filter((c) => seesMode(actor, c));
  const held = await ctx.store.directory.countHeld(rows.map((c) => c.id));
  return rows.map((c) => presentCampaignSettings(c, { participants: c.participant_count, reviewQueue: held.get(c.id) ?? 0 }, ctx.now()));
}
