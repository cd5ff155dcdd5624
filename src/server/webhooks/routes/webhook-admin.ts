/** Admin routes of webhooks: endpoints, the delivery log with attempts, and redelivery. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreateWebhookEndpointBody,
  IdBody,
  ListWebhookDeliveriesQuery,
  Ok,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../../api/schemas.js';
import * as deliveries from '../domain/webhook-deliveries.js';
import * as endpoints from '../domain/webhook-endpoints.js';
import { requireActor } from '../../http/access.js';
import { byObjectId, endpointChange } from '../../http/audit-specs.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('webhooks');
const config = { access: 'secret' as const, idempotent: true };
const change = { ...config, audit: byObjectId };

export const webhookAdminRoutes: FastifyPluginAsyncTypebox<{ allowPrivate: boolean }> = async (app, { allowPrivate }) => {
  app.post(
    '/api/v1/admin/createWebhookEndpoint',
    {
      // It looks the host's name up (webhook-targets): a transaction must not be held across that (../../http/change-unit.ts).
      config: { ...change, atomic: false },
      schema: {
        ...common,
        summary: 'Add a webhook endpoint; its signing secret is in this answer only',
        body: CreateWebhookEndpointBody,
        response: { 200: WebhookEndpoint, ...errors },
      },
    },
    async (request) => endpoints.createEndpoint(request.ctx, requireActor(request), request.body, allowPrivate),
  );

  app.get(
    '/api/v1/admin/listWebhookEndpoints',
    { config, schema: { ...common, summary: 'List webhook endpoints (without secrets)', response: { 200: Type.Array(WebhookEndpoint), ...errors } } },
    async (request) => endpoints.listEndpoints(request.ctx, requireActor(request)),
  );

  app.post(
    '/api/v1/admin/deleteWebhookEndpoint',
    { config: { ...config, audit: endpointChange }, schema: { ...common, summary: 'Remove a webhook endpoint', body: IdBody, response: { 200: Ok, ...errors } } },
    async (request) => {
      await endpoints.deleteEndpoint(request.ctx, requireActor(request), request.body.id);
      return { ok: true as const };
    },
  );

  app.get(
    '/api/v1/admin/listWebhookDeliveries',
    {
      config,
      schema: {
        ...common,
        summary: 'List deliveries, newest first, with their attempts',
        querystring: ListWebhookDeliveriesQuery,
        response: { 200: Type.Array(WebhookDelivery), ...errors },
      },
    },
    async (request) => deliveries.listDeliveries(request.ctx, requireActor(request), request.query),
  );

  app.post(
    '/api/v1/admin/redeliverWebhook',
    {
      config: change,
      schema: { ...common, summary: 'Send a delivery again now, with a fresh retry schedule', body: IdBody, response: { 200: Ok, ...errors } },
    },
    async (request) => {
      await deliveries.redeliver(request.ctx, requireActor(request), request.body.id);
      return { ok: true as const };
    },
  );
};
