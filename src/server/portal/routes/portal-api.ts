/**
 * The portal's routes (/api/v1/portal/*), what the page at /portal/{campaignId} reads and sets through:
 * signIn (always 202: the answer says nothing of who has joined), verify (an emailed link for a session
 * cookie and its CSRF token), signOut, me, and the participant's payout method and tax details. Every
 * POST made with the session carries its CSRF token (x-csrf-token, 403 csrf_failed without); a session
 * is one participant's of one campaign, and any other campaign named with it is 401.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiErrorBody, Ok, Participant } from '../../../api/schemas.js';
import {
  PortalCampaignBody,
  PortalCsrf,
  PortalMe,
  PortalMeQuery,
  PortalPayoutMethodAnswer,
  PortalSetPayoutMethodBody,
  PortalSetReferralCodeBody,
  PortalSetTaxDetailsBody,
  PortalSignInAnswer,
  PortalSignInBody,
  PortalStripeLink,
  PortalTaxDetailsAnswer,
  PortalVerifyBody,
} from '../../../api/portal-schemas.js';
import { AppError } from '../../kernel/errors.js';
import { CSRF_HEADER } from '../../http/access.js';
import { requestPortalLink } from '../domain/portal-links.js';
import { closePortalSession, findPortalSession, notSignedIn, openPortalSession, PORTAL_SESSION_TTL_MS, portalCsrfMatches, type PortalSession } from '../domain/portal-sessions.js';
import { portalMe } from '../domain/portal-view.js';
import { connectMyStripe, setMyPayoutMethod, setMyReferralCode, setMyTaxDetails } from '../domain/portal-payouts.js';
import { clearPortalCookie, portalToken, PORTAL_API, setPortalCookie } from './portal-cookie.js';

const tags = ['portal'];
/** The session routes: the portal's cookie (and, for changes, its x-csrf-token). */
const SIGNED_IN = [{ portalCookie: [] }];
const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody, 503: ApiErrorBody };
const SESSION = 'With the `refkit_portal` cookie verify set; a POST also sends the session\'s CSRF token as x-csrf-token (403 csrf_failed without). 401 unauthorized without a live session of this campaign.';

const csrfFailed = () => new AppError(403, 'csrf_failed', `Changes made with the portal's cookie need the session's ${CSRF_HEADER} header`);

export const portalApiRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string | undefined }> = async (app, options) => {
  // Links still being made and sent when the service closes are let finish before the database closes.
  const sending = new Set<Promise<void>>();
  app.addHook('onClose', async () => void (await Promise.allSettled([...sending])));

  /** PUBLIC_URL: the payouts' setting when the service has one, else the app's. */
  const publicUrl = (request: FastifyRequest) => request.ctx.payouts?.publicUrl ?? options.publicUrl;

  /** The live session of the cookie, for `campaignId`; on a POST, only with its CSRF token. */
  async function session(request: FastifyRequest, campaignId: string): Promise<PortalSession> {
    const token = portalToken(request);
    const found = token === undefined ? undefined : await findPortalSession(request.ctx, token);
    if (!found || found.campaignId !== campaignId) throw notSignedIn();
    if (request.method === 'POST') {
      const csrf = request.headers[CSRF_HEADER];
      if (!portalCsrfMatches(found, typeof csrf === 'string' ? csrf : undefined)) throw csrfFailed();
    }
    return found;
  }

  app.post(
    `${PORTAL_API}/signIn`,
    {
      schema: {
        tags,
        summary: 'Email a participant a link that signs them in to the portal',
        description:
          'Always 202 {"sent": true}, for a participant, an unknown address or campaign, and a request that sends nothing because one was sent moments ago alike. ' +
          'The link (<PUBLIC_URL>/portal/{campaignId}?token=...) works once, within 15 minutes. One link a minute per participant and 5 an hour; ' +
          'past 10 requests a minute from one client, nothing is sent either.',
        body: PortalSignInBody,
        response: { 202: PortalSignInAnswer, 400: ApiErrorBody },
      },
    },
    async (request, reply) => {
      const { id, email } = request.body;
      if (await app.portalSignInAdmitted(request)) {
        // The work runs after the answer: its time must not tell whether the address has joined.
        const work = requestPortalLink(request.ctx, id, email, publicUrl(request), (outcome) => {
          if (outcome instanceof Error) request.log.error({ err: outcome }, 'portal sign-in link not sent');
          else if (outcome === 'no_mail') request.log.warn('portal sign-in link not sent: no SMTP_URL or no PUBLIC_URL');
        });
        sending.add(work);
        void work.finally(() => sending.delete(work));
      }
      return reply.status(202).send({ sent: true as const });
    },
  );

  app.post(
    `${PORTAL_API}/verify`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        summary: 'Follow an emailed link: a session cookie for its participant, and the CSRF token',
        description:
          'Sets the httpOnly cookie `refkit_portal` (Path=/api/v1/portal, SameSite=Lax, Secure when PUBLIC_URL is https) for one day. ' +
          'A link works once: 401 link_not_found when its token is unknown, used, expired or of another campaign.',
        body: PortalVerifyBody,
        response: { 200: PortalCsrf, ...errors },
      },
    },
    async (request, reply) => {
      const { token, csrfToken } = await openPortalSession(request.ctx, request.body.id, request.body.token);
      setPortalCookie(request, reply, publicUrl(request), token, PORTAL_SESSION_TTL_MS);
      return { csrfToken };
    },
  );

  app.post(
    `${PORTAL_API}/signOut`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: 'Sign out of the portal: the session ends, the cookie is cleared',
        description: SESSION,
        body: PortalCampaignBody,
        response: { 200: Ok, ...errors },
      },
    },
    async (request, reply) => {
      await session(request, request.body.id);
      await closePortalSession(request.ctx, portalToken(request)!);
      clearPortalCookie(request, reply, publicUrl(request));
      return { ok: true as const };
    },
  );

  app.get(
    `${PORTAL_API}/me`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: "The signed-in participant's own portal: link, friends, ledger, payouts, payout method, tax details (masked)",
        description: `${SESSION} Also answers the session's CSRF token, for a page opened again.`,
        querystring: PortalMeQuery,
        response: { 200: PortalMe, ...errors },
      },
    },
    async (request) => portalMe(request.ctx, await session(request, request.query.id), request.query.id),
  );

  app.post(
    `${PORTAL_API}/setPayoutMethod`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: 'Where the signed-in participant is paid: PayPal (with its address) or Stripe Connect',
        description: `${SESSION} One of the campaign's cashPayouts.methods (400 method otherwise; 409 cash_payouts_off when it pays no cash). PayPal needs paypalEmail the first time.`,
        body: PortalSetPayoutMethodBody,
        response: { 200: PortalPayoutMethodAnswer, ...errors },
      },
    },
    async (request) => {
      const { id, ...input } = request.body;
      return setMyPayoutMethod(request.ctx, await session(request, id), id, input);
    },
  );

  app.post(
    `${PORTAL_API}/setReferralCode`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: 'The signed-in participant chooses their referral code (a vanity code)',
        description:
          `${SESSION} 4 to 24 of A-Z, 0-9 and -, any case (kept in capitals); 400 code_not_allowed for a reserved or offensive word; 409 code_taken ` +
          'when another participant has it (or had it); 429 past three changes a day. The old code keeps working, and its promotion code stays active.',
        body: PortalSetReferralCodeBody,
        response: { 200: Participant, ...errors },
      },
    },
    async (request) => setMyReferralCode(request.ctx, await session(request, request.body.id), request.body.id, request.body.code),
  );

  app.post(
    `${PORTAL_API}/connectStripe`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: "The signed-in participant's Stripe Connect onboarding link",
        description: `${SESSION} Makes their Express account on the first call; Stripe sends them back to /portal/{campaignId}. 409 when the campaign does not pay by Stripe Connect or it is not set up.`,
        body: PortalCampaignBody,
        response: { 200: PortalStripeLink, ...errors, 502: ApiErrorBody },
      },
    },
    async (request) => connectMyStripe(request.ctx, await session(request, request.body.id), request.body.id, publicUrl(request)),
  );

  app.post(
    `${PORTAL_API}/setTaxDetails`,
    {
      preHandler: app.publicRateLimit,
      schema: {
        tags,
        security: SIGNED_IN,
        summary: "The signed-in participant's tax details (a W-9 or a W-8BEN), answered masked",
        description: `${SESSION} The TIN is stored encrypted (409 encryption_key_missing without REFKIT_ENCRYPTION_KEY) and only its last four characters are ever shown.`,
        body: PortalSetTaxDetailsBody,
        response: { 200: PortalTaxDetailsAnswer, ...errors },
      },
    },
    async (request) => {
      const { id, ...input } = request.body;
      return setMyTaxDetails(request.ctx, await session(request, id), id, input);
    },
  );
};
