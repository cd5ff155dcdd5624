/**
 * The friend's reward at checkout (../domain): the public read of the promotion code a visitor's checkout
 * applies, and the owner's list of the campaign's codes with their state.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiErrorBody } from '../../../api/schemas.js';
import { GetPromotionCodeQuery, ListPromotionCodesQuery, PromotionCodeOffer, PromotionCodeView } from '../../../api/promotion-schemas.js';
import { requireActor } from '../../http/access.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { getPromotionCode, listPromotionCodes } from '../domain/promotion-views.js';

const publicErrors = { 400: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody };

export const promotionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.options('/api/v1/getPromotionCode', { schema: { hide: true } }, app.corsPreflight);

  app.get(
    '/api/v1/getPromotionCode',
    {
      config: { access: 'public', campaignOf: (r) => (r.query as { campaignId?: string }).campaignId },
      preHandler: app.publicRateLimit,
      schema: {
        tags: ['widget'],
        summary: "The promotion code a visitor's checkout applies: their referrer's, with what it takes off",
        description:
          'Public (CORS as getCampaign). `code` is the referral code the visitor arrived with (the widget keeps it: window.refkit.getPromotionCode). ' +
          "Put `id` in a Checkout Session's `discounts: [{promotion_code: id}]`, or prefill `code` on a Payment Link. " +
          '404 promotion_code_not_found when the campaign has no refereeDiscount, the code is no participant\'s, or its promotion code is not made yet.',
        querystring: GetPromotionCodeQuery,
        response: { 200: PromotionCodeOffer, ...publicErrors },
      },
    },
    async (request) => getPromotionCode(request.ctx, request.query.campaignId, request.query.code),
  );

  app.get(
    '/api/v1/admin/listPromotionCodes',
    {
      config: { access: 'secret' as const },
      schema: {
        ...ownerRoute('admin'),
        summary: "A campaign's Stripe promotion codes with their state, newest first",
        description:
          'One per participant and code of each discount: queued (to be made), active (made, with Stripe\'s id), failed (Stripe refused it: ' +
          'see reason; a text already active in the Stripe account wants promotionCodePrefix), deactivating or inactive (an earlier discount\'s). ' +
          'current: of the campaign\'s current discount. status filters.',
        querystring: ListPromotionCodesQuery,
        response: { 200: Type.Array(PromotionCodeView), ...ownerErrors },
      },
    },
    async (request) => listPromotionCodes(request.ctx, requireActor(request), request.query.id, request.query.status, request.query.limit ?? 50),
  );
};
