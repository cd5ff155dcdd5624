/**
 * @refkit/node: the typed Node.js client of the Refkit referral service.
 *
 *   import { Refkit, RefkitError, verifyWebhook } from '@refkit/node';
 *   const refkit = new Refkit({ apiKey: process.env.REFKIT_SECRET_KEY!, baseUrl: 'https://refkit.example.com' });
 */
export { Refkit, DEFAULT_BASE_URL, type RefkitOptions } from './client.js';
export { RefkitError, WebhookVerificationError, type ErrorEnvelope } from './errors.js';
export { PagedList } from './paging.js';
export { verifyWebhook, type WebhookEvent, type WebhookEventOf, type WebhookEventType, type WebhookHeaders } from './webhooks.js';
export type { Answer, Item, Methods, Params, RequestOptions } from './types.js';
export { OPERATIONS, type OperationId } from './operations.js';
export { VERSION } from './version.js';
// The whole generated contract, for types the methods do not name (a response's other statuses, headers).
export type { components, operations, paths, webhooks } from './openapi.js';
