/**
 * What a signed-in participant sets of their own in the portal: their payout method (a PayPal address,
 * or Stripe Connect, whose onboarding link they are sent to) and their tax details. The rules are
 * payouts' (../../payouts/domain/payout-methods.ts, tax-details.ts); this names the participant by the
 * session alone, so that no one sets another's.
 */
import type { PayoutMethodView, TaxDetailsView } from '../../../api/payout-schemas.js';
import type { Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { connectStripe, setPayoutMethod, type PayoutMethodInput } from '../../payouts/domain/payout-methods.js';
import { setTaxDetails, taxDetailsView, type TaxDetailsInput } from '../../payouts/domain/tax-details.js';
import { portalPath } from './portal-links.js';
import { sessionSubject } from './portal-view.js';
import type { PortalSession } from './portal-sessions.js';
import type { Participant } from '../../../api/schemas.js';
import { setReferralCode } from '../../referrals/domain/vanity-codes.js';
import { presentParticipant } from '../../referrals/domain/present.js';

export async function setMyPayoutMethod(ctx: Ctx, session: PortalSession, campaignId: string, input: PayoutMethodInput): Promise<PayoutMethodView> {
  const { campaign, participant } = await sessionSubject(ctx, session, campaignId);
  return setPayoutMethod(ctx, campaign, participant.id, input);
}

/** The signed-in participant chooses their referral code (../../referrals/domain/vanity-codes.ts has the rules). */
export async function setMyReferralCode(ctx: Ctx, session: PortalSession, campaignId: string, code: string): Promise<Participant> {
  const { campaign, participant } = await sessionSubject(ctx, session, campaignId);
  return presentParticipant(await setReferralCode(ctx, campaign, participant, code), campaign, 'self');
}

/** Stripe's onboarding link; Stripe sends the participant back to their portal page when they are done. */
export async function connectMyStripe(ctx: Ctx, session: PortalSession, campaignId: string, publicUrl: string | undefined): Promise<{ url: string }> {
  const { campaign, participant } = await sessionSubject(ctx, session, campaignId);
  if (!publicUrl) throw new AppError(503, 'unavailable', 'This service does not know its public address (PUBLIC_URL), which Stripe sends the participant back to');
  return connectStripe(ctx, campaign, { id: participant.id, email: participant.email }, `${publicUrl.replace(/\/+$/, '')}${portalPath(campaign.id)}`);
}

/** Stores the tax details and answers them as shown from now on: masked. */
export async function setMyTaxDetails(ctx: Ctx, session: PortalSession, campaignId: string, input: TaxDetailsInput): Promise<TaxDetailsView> {
  const { participant } = await sessionSubject(ctx, session, campaignId);
  await setTaxDetails(ctx, participant.id, input);
  return (await taxDetailsView(ctx, participant.id))!;
}
