/**
 * The HTTP side of a browser's sign-up: the proof it sends (headers), who it is for impressions, and
 * the answer it gets: the participant at the visibility it earned, with the outcome and any new token
 * in headers (src/api/headers.ts), so the interface's bodies stay exactly as specified.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Participant } from '../../../api/schemas.js';
import { EMAIL_LINK_REQUEST, LOCALE_HEADER, OUTCOME_HEADERS, PROOF_HEADERS } from '../../../api/headers.js';
import { supportedLocale, type Locale } from '../../../api/locales.js';
import type { Visitor } from '../domain/impressions.js';
import { presentParticipant } from '../domain/present.js';
import type { Proof } from '../domain/proof.js';
import type { SignupResult } from '../domain/signups.js';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export function proofOf(request: FastifyRequest): Proof {
  const token = header(request, PROOF_HEADERS.token);
  const emailSignature = header(request, PROOF_HEADERS.emailSignature);
  const sendLink = header(request, EMAIL_LINK_REQUEST.header) === EMAIL_LINK_REQUEST.value;
  return { ...(token !== undefined && { token }), ...(emailSignature !== undefined && { emailSignature }), ...(sendLink && { sendLink }) };
}

/** The language a request's Refkit-Locale header names (its schema checked the tag), if it has one. */
export function localeOf(request: FastifyRequest): Locale | undefined {
  const tag = header(request, LOCALE_HEADER);
  return tag === undefined ? undefined : supportedLocale(tag);
}

export const visitorOf = (request: FastifyRequest): Visitor => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

/** The answer body and headers of a sign-up or a followed email link. */
export function presentSignup(reply: FastifyReply, result: SignupResult): Participant {
  reply.header(OUTCOME_HEADERS.signup, result.outcome);
  if (result.emailLink) reply.header(OUTCOME_HEADERS.emailLink, result.emailLink);
  if (result.token) reply.header(PROOF_HEADERS.token, result.token).header('cache-control', 'no-store');
  // A pending sign-up is no participant yet: it has no code or link to show.
  if (!result.participant) return { email: result.email, campaignId: result.campaign.id };
  return presentParticipant(result.participant, result.campaign, result.visibility);
}
