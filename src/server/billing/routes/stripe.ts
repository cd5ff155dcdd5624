/**
 * Stripe in (../domain/stripe-events.ts): the webhook endpoint a campaign's Stripe account sends events
 * to, and the owner's view of what arrived (with unmatched events to match by hand). Stripe out
 * (../../payouts/domain/stripe-payouts.ts): the owner's view of rewards paid into Stripe, and retrying one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListStripeEventsQuery, ListStripePayoutsQuery, MatchStripeEventBody, RetryStripePayoutBody, StripeEventBody, StripeEventView, StripePayoutView, StripeReceived } from '../../../api/billing-schemas.js';
import { requireActor } from '../../http/access.js';
import { listStripeEvents, matchStripeEvent, receiveStripeEvent } from '../domain/stripe-events.js';
import { listStripePayouts, presentStripePayout, retryStripePayout } from '../../payouts/domain/stripe-payout-views.js';
import { linkNext } from '../../http/link-next.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
/** Stripe's events are a few KB; its documented limit for a payload is far under this. */
const STRIPE_BODY_LIMIT = 1024 * 1024;

/** The webhook route, in a scope of its own: the signature is over the raw bytes, so JSON is not parsed here. */
const stripeWebhook: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.post(
    '/api/v1/integrations/stripe/:campaignId',
    {
      // The body is Stripe's signed bytes, read raw: described in the OpenAPI document, not parsed against it.
      config: { access: 'public' as const, documentedBody: StripeEventBody },
      schema: {
        tags: ['integrations'],
        summary: "Receive a campaign's Stripe webhook events",
        description:
          "Add this URL as an endpoint in Stripe (Developers, Webhooks) with the events invoice.paid, checkout.session.completed, charge.refunded and " +
          "charge.dispute.created, and set the endpoint's signing secret as the campaign's stripeWebhookSecret. Verified with Stripe-Signature; " +
          'a bad or missing signature is 400 and changes nothing. Each event id is applied once. Other event types are answered 200 and ignored; ' +
          'an event for no participant is kept as unmatched (listStripeEvents, matchStripeEvent); one whose amount is in another currency than the ' +
          "campaign's rewardCurrency is kept as held, with its reason, and not applied. A signed event with no object, a negative or fractional " +
          'amount or no currency is kept as ignored with its reason (200, so that Stripe does not send it again).',
        params: Type.Object({ campaignId: Type.String({ format: 'line', minLength: 1, maxLength: 64 }) }),
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 4096 })) }),
        response: { 200: StripeReceived, ...errors },
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { outcome, reason } = await receiveStripeEvent(request.ctx, request.params.campaignId, body, request.headers['stripe-signature']);
      return { received: true as const, outcome, ...(reason && { reason }) };
    },
  );
};

export const stripeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(stripeWebhook);

  app.get(
    '/api/v1/admin/listStripeEvents',
    {
      config: { access: 'secret' as const },
      schema: {
        ...ownerRoute('admin'),
        summary: 'The Stripe events a campaign received, newest first (status unmatched: those to match by hand)',
        querystring: ListStripeEventsQuery,
        response: { 200: Type.Array(StripeEventView), ...errors },
      },
    },
    async (request) => listStripeEvents(request.ctx, requireActor(request), request.query.id, request.query.status, request.query.limit ?? 50),
  );

  app.post(
    '/api/v1/admin/matchStripeEvent',
    {
      config: { access: 'secret' as const, idempotent: true },
      schema: {
        ...ownerRoute('admin'),
        summary: 'Apply an unmatched Stripe event to a participant',
        body: MatchStripeEventBody,
        response: { 200: StripeEventView, ...errors },
      },
    },
    async (request) => matchStripeEvent(request.ctx, requireActor(request), request.body.id, request.body.eventId, request.body.email),
  );

  app.get(
    '/api/v1/admin/listStripePayouts',
    {
      config: { access: 'secret' as const },
      schema: {
        ...ownerRoute('admin'),
        summary: "The rewards a campaign paid (or is paying) into its participants' Stripe customers, newest first",
        description:
          'One per credit that became available while stripeRewardMode was on: its status (queued, waiting with the reason, paid with ' +
          "Stripe's object id, failed with Stripe's error), attempts and next attempt. Paged as getAllParticipants (page/pageSize, or the " +
          'cursor of the Link header); status filters.',
        querystring: ListStripePayoutsQuery,
        response: { 200: Type.Array(StripePayoutView), ...errors },
      },
    },
    async (request, reply) => {
      const page = await listStripePayouts(request.ctx, requireActor(request), request.query);
      linkNext(request, reply, page.next);
      return page.rows.map(presentStripePayout);
    },
  );

  app.post(
    '/api/v1/admin/retryStripePayout',
    {
      config: { access: 'secret' as const, idempotent: true },
      schema: {
        ...ownerRoute('admin'),
        summary: 'Send a failed or waiting Stripe payout again now',
        description:
          'A failed payout is sent as a new Stripe request (Stripe would answer its old idempotency key with the same error for 24 hours); ' +
          'a waiting one is looked at again at once. 409 invalid_transition when it is paid or being sent at this moment.',
        body: RetryStripePayoutBody,
        response: { 200: StripePayoutView, ...errors },
      },
    },
    async (request) => retryStripePayout(request.ctx, requireActor(request), request.body.id, request.body.payoutId),
  );
};
