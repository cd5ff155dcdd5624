/**
 * What proves that a keyless caller (a browser) is a given participant, so that it may read that
 * participant's private fields. Anyone can type anyone's email; only these count:
 * - a participant token: issued to the browser that signed up or followed an emailed link, stored
 *   hashed, sent back in the `Refkit-Participant-Token` header. It expires TOKEN_TTL_MS after it was
 *   issued, ends when the campaign's signing secret is rotated, and when the participant follows an
 *   emailed link (the mailbox's owner outranks whoever typed the address first), or is revoked;
 * - an email signature: HMAC-SHA256 of the (trimmed, lower-cased) email with the campaign's signing
 *   secret, computed by the host's backend for a visitor it has signed in, sent in
 *   `Refkit-Email-Signature`;
 * - a followed email link (./email-links.ts), which yields a token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CampaignRow, Store } from '../../store/store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { AppError, participantNotFound } from '../../kernel/errors.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';
import { DAY_MS } from '../../kernel/time.js';

/** How long a participant token proves anything: after that, the browser proves itself again (an emailed link). */
export const TOKEN_TTL_MS = 30 * DAY_MS;

/** The proofs a keyless request may carry. */
export interface Proof {
  token?: string;
  emailSignature?: string;
  /** Without proof, email the participant a link that is (the visitor typed the address just now). */
  sendLink?: boolean;
}

/** A new participant token and the hash the store keeps of it; the browser alone keeps the token. */
export function newToken(): { token: string; hash: string } {
  const token = newSecret('pt');
  return { token, hash: hashSecret(token) };
}

/** Issues a new participant token; the caller hands it to the browser, which alone keeps it. */
export async function issueToken(store: Store, participantId: number, now: number): Promise<string> {
  const { token, hash } = newToken();
  await store.insertParticipantToken(hash, participantId, now);
  return token;
}

/**
 * A new token for a participant that has just proven their mailbox, and the end of every earlier one:
 * whoever signed the address up first, or got a token for it otherwise, loses it.
 */
export function reissueToken(ctx: Ctx, participantId: number): Promise<string> {
  return ctx.store.transaction(async (tx) => {
    await tx.tokens.revokeAll(participantId, ctx.now());
    return issueToken(tx, participantId, ctx.now());
  });
}

/** The participant a token proves (any campaign's), unless it is unknown, revoked or expired. */
export const tokenParticipant = (ctx: Ctx, token: string) => ctx.store.tokens.participantOf(hashSecret(token), ctx.now() - TOKEN_TTL_MS);

/** The signature a host's backend computes for an email: hex HMAC-SHA256 with the campaign secret. */
export const signEmail = (secret: string, email: string) => createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');

const invalidSignature = () =>
  new AppError(401, 'invalid_signature', 'The email signature does not match this email and campaign', 'emailSignature');

/**
 * Whether the request proves it is the participant with this id and email. A wrong signature is an
 * error (the host's integration is broken, and it should hear so); an unknown or revoked token is
 * merely no proof, as a browser may keep a token an admin has since revoked.
 */
export async function proves(ctx: Ctx, campaign: CampaignRow, participant: { id: number; email: string }, proof: Proof): Promise<boolean> {
  if (proof.emailSignature !== undefined) {
    if (!signatureMatches(campaign, participant.email, proof.emailSignature)) throw invalidSignature();
    return true;
  }
  if (proof.token !== undefined) return (await tokenParticipant(ctx, proof.token)) === participant.id;
  return false;
}

/** Checks an email signature for an email that is not (yet) a participant's. */
export function assertSignature(campaign: CampaignRow, email: string, signature: string): void {
  if (!signatureMatches(campaign, email, signature)) throw invalidSignature();
}

function signatureMatches(campaign: CampaignRow, email: string, signature: string): boolean {
  if (!campaign.signing_secret || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signEmail(campaign.signing_secret, email), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/**
 * The campaign's signing secret, made on first use; `rotate` replaces it: old signatures stop working,
 * and so does every participant token of the campaign (one may have been got with a signature made by
 * the secret that is being retired, if it leaked).
 */
export async function signingSecret(ctx: Ctx, actor: Actor, campaignId: string, rotate: boolean): Promise<string> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  if (campaign.signing_secret && !rotate) return campaign.signing_secret;
  const secret = newSecret('cs');
  await ctx.store.transaction(async (tx) => {
    await tx.updateCampaign(campaign.id, { signing_secret: secret, updated_on: ctx.now() });
    if (rotate) await tx.tokens.revokeCampaign(campaign.id, ctx.now());
  });
  return secret;
}

/** Sign-out: the browser gives its token up. Unknown tokens are fine: the outcome is the same. */
export async function revokeToken(ctx: Ctx, token: string): Promise<void> {
  await ctx.store.tokens.revoke(hashSecret(token), ctx.now());
}

/** An admin revokes every token of a participant, e.g. after a shared computer was used. */
export async function revokeTokens(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<number> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const participant = await ctx.store.findParticipantByEmail(campaign.id, normalizeEmail(email));
  if (!participant) throw participantNotFound();
  return ctx.store.tokens.revokeAll(participant.id, ctx.now());
}
