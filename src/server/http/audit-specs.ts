/**
 * What the change routes declare for their audit entries (./audit-trail.ts): which target they
 * change, and how to read its state before and after. A route with none of these is still recorded.
 */
import { listCampaignSettings } from '../campaigns/domain/campaign-views.js';
import type { Actor, Ctx } from '../kernel/context.js';
import { listApiKeys } from '../accounts/domain/keys.js';
import { getParticipant } from '../referrals/domain/participants.js';
import { presentView } from '../referrals/domain/present.js';
import { findInvitation, findMember } from '../accounts/domain/team.js';
import { listEndpoints } from '../webhooks/domain/webhook-endpoints.js';
import type { AuditSpec, CallFields } from './audit-trail.js';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const answerId = (answer: unknown) => str((answer as { id?: unknown } | null)?.id);

/** For routes whose `id` names a key, an endpoint, a delivery or an invitation (never a campaign): the target is that id, or the new one's. */
export const byObjectId: AuditSpec = { campaign: null, target: (f, answer) => str(f.id) ?? answerId(answer) };

/** A bulk export (exportParticipants, exportRewardEntries): recorded with its campaign, and no copy of what was read. */
export const bulkExport: AuditSpec = { snapshot: async () => null };

/** A campaign's settings before and after (updateCampaign, setCampaignStatus, ...). */
export const campaignChange: AuditSpec = {
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => (await listCampaignSettings(ctx, actor)).find((c) => c.campaignId === f.id) ?? null,
};

/** A participant before and after (approve, reject, redeem, refund). */
export const participantChange: AuditSpec = {
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => presentView(await getParticipant(ctx, actor, String(f.id), String(f.email))),
};

/** A secret key before and after (revokeApiKey). */
export const keyChange: AuditSpec = {
  ...byObjectId,
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => (await listApiKeys(ctx, actor)).find((k) => k.id === f.id) ?? null,
};

/** A webhook endpoint before and after (deleteWebhookEndpoint). */
export const endpointChange: AuditSpec = {
  ...byObjectId,
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => (await listEndpoints(ctx, actor)).find((e) => e.id === f.id) ?? null,
};

/** A member before and after (changeMemberRole, removeMember). */
export const memberChange: AuditSpec = {
  campaign: null,
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => (await findMember(ctx, actor, String(f.email))) ?? null,
};

/** An invitation before and after (revokeInvitation). */
export const invitationChange: AuditSpec = {
  ...byObjectId,
  snapshot: async (ctx: Ctx, actor: Actor, f: CallFields) => {
    const invitation = await findInvitation(ctx, actor, String(f.id));
    return invitation && { ...invitation, open: (await ctx.store.invitations.listOpen(actor.accountId, ctx.now())).some((i) => i.id === invitation.id) };
  },
};
