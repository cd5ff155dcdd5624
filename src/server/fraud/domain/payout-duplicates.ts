/**
 * Duplicate payout methods: two participants of a campaign paid to the same PayPal address or the same
 * Stripe Connect account are most likely one person earning twice. Before a participant's payout is made
 * (../../payouts/domain/payout-runs.ts), both are held for review with the reason; the owner's approval
 * lets them be paid (the same match does not hold them again: ./fraud-holds.ts).
 */
import type { CampaignRow } from '../../store/store.js';
import type { Ctx } from '../../kernel/context.js';
import { holdForReview } from './fraud-holds.js';

const words = (to: { method: 'paypal' | 'stripe_connect'; destination: string }) => (to.method === 'paypal' ? `PayPal address ${to.destination}` : `Stripe account ${to.destination}`);

/** Holds the participant and those who share their payout destination (once: ./fraud-holds.ts); answers whether the participant is held now. */
export async function heldForSharedMethod(ctx: Ctx, campaign: CampaignRow, participantId: number, to: { method: 'paypal' | 'stripe_connect'; destination: string }): Promise<boolean> {
  const others = await ctx.store.payoutProfiles.sharing(campaign.id, participantId, to);
  if (others.length === 0) return false;
  const people = await Promise.all([participantId, ...others.map((o) => o.participant_id)].map((id) => ctx.store.findParticipant(id)));
  const [self, ...rest] = people;
  if (!self) return false;
  const emails = (besides: number) => people.filter((p) => p && p.id !== besides).map((p) => p!.email).join(', ');
  await ctx.store.transaction(async (tx) => {
    const txCtx = { ...ctx, store: tx };
    for (const p of [self, ...rest]) if (p) await holdForReview(txCtx, p, { kind: 'duplicate_payout_method', detail: `Same ${words(to)} as ${emails(p.id)}` });
  });
  // Held now, by this match or by the same match found from the other side earlier in the run.
  return (await ctx.store.findParticipant(participantId))?.approval === 0;
}
