/**
 * Waitlist mode: each participant who signs up while it is on joins a queue in sign-up order; each
 * counted referral (a referred sign-up, or with counts 'qualified' a credited referral) moves the
 * referrer `spotsPerReferral` places up; the owner lets in the first N, or named participants
 * (grantAccess), each with an access_granted event. Turning it off is the launch: the campaign goes on as
 * a normal one, codes, links and referrals unchanged, and it cannot be turned on again (the queue's keys
 * would no longer match the referrals made meanwhile).
 *
 * Participants who joined before the waitlist began have no place in it and count as let in.
 */
import type { GrantAccessBody, GrantAccessResult, WaitlistView } from '../../../api/schemas.js';
import type { MyWaitlist } from '../../../api/widget-schemas.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { AppError } from '../../kernel/errors.js';
import { outboxEmail, writesEmail } from '../../emails/domain/email-outbox.js';
import { emit } from '../../webhooks/domain/webhook-events.js';
import { waitlistOf } from './waitlist-settings.js';

/** In a new participant's sign-up transaction: their place at the back, and their referrer's move. */
export async function joinWaitlist(tx: Store, campaign: CampaignRow, p: ParticipantRow): Promise<void> {
  const settings = waitlistOf(campaign);
  if (!settings) return;
  await tx.waitlists.join(campaign.id, p.id);
  if (p.referred_by_id !== null && settings.counts === 'signups') await tx.waitlists.move(campaign.id, p.referred_by_id, -settings.spotsPerReferral);
}

/** In a credit's (+1) or a refund's (-1) transaction: moves the referrer when qualified referrals count. */
export async function moveForQualified(tx: Store, campaign: CampaignRow, referrerId: number, delta: 1 | -1): Promise<void> {
  const settings = waitlistOf(campaign);
  if (settings?.counts === 'qualified') await tx.waitlists.move(campaign.id, referrerId, -delta * settings.spotsPerReferral);
}

/** A participant's place in the campaign's waitlist; undefined when the campaign is not in waitlist mode. */
export async function myWaitlist(ctx: Ctx, campaign: CampaignRow, p: ParticipantRow): Promise<MyWaitlist | undefined> {
  const settings = waitlistOf(campaign);
  if (!settings) return undefined;
  const standing = (await ctx.store.waitlists.standing(campaign.id, p.id)) ?? { position: null, of: (await ctx.store.waitlists.counts(campaign.id)).waiting };
  return { position: standing.position, of: standing.of, granted: standing.position === null, spotsPerReferral: settings.spotsPerReferral };
}

const noWaitlist = () => new AppError(404, 'not_found', 'This campaign is not in waitlist mode', 'id');

/** The front of the queue with positions (the first of the queue are 1, 2, 3, ...), and the counts. */
export async function getWaitlist(ctx: Ctx, actor: Actor, id: string, limit = 50): Promise<WaitlistView> {
  const campaign = await ownCampaign(ctx, actor, id);
  if (!waitlistOf(campaign)) throw noWaitlist();
  const [counts, front] = await Promise.all([ctx.store.waitlists.counts(campaign.id), ctx.store.waitlists.queue(campaign.id, limit)]);
  return { ...counts, queue: front.map((e, i) => ({ position: i + 1, ...e })) };
}

/**
 * Lets in the first `count` of the queue, or the participants with `emails` (emails of no participant
 * are answered in `unknown`; those let in before are not let in again, nor listed). Each one let in
 * gets an access_granted event, in the grant's transaction.
 */
export async function grantAccess(ctx: Ctx, actor: Actor, body: GrantAccessBody): Promise<GrantAccessResult> {
  const campaign = await ownCampaign(ctx, actor, body.id);
  if (!waitlistOf(campaign)) throw noWaitlist();
  const unknown: string[] = [];
  const emailOf = new Map<number, string>();
  if ('emails' in body) {
    for (const email of new Set(body.emails.map((e) => normalizeEmail(e, 'emails')))) {
      const p = await ctx.store.findParticipantByEmail(campaign.id, email);
      if (p) emailOf.set(p.id, p.email);
      else unknown.push(email);
    }
  }
  const now = ctx.now();
  let queued = false;
  const granted = await ctx.store.transaction(async (tx) => {
    const rows = await tx.waitlists.grant(campaign.id, 'count' in body ? { count: body.count } : { participantIds: [...emailOf.keys()] }, now);
    const out: GrantAccessResult['granted'] = [];
    for (const g of rows) {
      const p = (await tx.findParticipant(g.participantId))!;
      queued = (await emit(tx, 'access_granted', p, campaign, now)) || queued;
      out.push({ participantId: p.id, email: p.email });
    }
    // The "you're in" email of each, with the grant (a participant is let in once: one email each).
    if (out.length > 0 && writesEmail(tx, campaign, 'access_granted')) {
      await tx.emails.insert(out.map((g) => outboxEmail(campaign, g.participantId, 'access_granted', 'access', {}, now)));
      queued = true;
    }
    return out;
  });
  if (queued) ctx.onEventsCommitted?.();
  return { granted, unknown };
}
