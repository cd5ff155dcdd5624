/** Admin routes of the lifecycle emails: settings, texts per email and language, preview, test send, delivery log. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  EmailLogPage,
  EmailLogQuery,
  EmailPreview,
  EmailTextKey,
  EmailTextsView,
  PreviewEmailBody,
  PutEmailTextBody,
  TestEmailBody,
  UpdateEmailSettingsBody,
} from '../../../api/email-schemas.js';
import { ApiErrorBody, CampaignQuery, Ok } from '../../../api/schemas.js';
import * as admin from '../domain/email-admin.js';
import { requireActor } from '../../http/access.js';
import { previewEmail, sendTestEmail } from '../domain/preview.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('emails');
const config = { access: 'secret' as const };

/** The service's own address as this request reached it: where a preview's unsubscribe link points. */
const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export const emailAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/admin/getEmailSettings',
    {
      config,
      schema: {
        ...common,
        summary: "A campaign's lifecycle emails: which are on, the postal address, every text per email and language, the variables, and whether SMTP is configured",
        querystring: CampaignQuery,
        response: { 200: EmailTextsView, ...errors },
      },
    },
    async (request) => admin.emailTexts(request.ctx, requireActor(request), request.query.id),
  );

  app.post(
    '/api/v1/admin/updateEmailSettings',
    {
      config: { ...config, idempotent: true },
      schema: { ...common, summary: 'Turn lifecycle emails on or off, set the postal address of their footer', body: UpdateEmailSettingsBody, response: { 200: EmailTextsView, ...errors } },
    },
    async (request) => admin.updateEmailSettings(request.ctx, requireActor(request), request.body),
  );

  app.post(
    '/api/v1/admin/putEmailText',
    {
      config: { ...config, idempotent: true },
      schema: { ...common, summary: "Replace an email's subject and body in one language (with {variables})", body: PutEmailTextBody, response: { 200: EmailTextsView, ...errors } },
    },
    async (request) => admin.putEmailText(request.ctx, requireActor(request), request.body),
  );

  app.post(
    '/api/v1/admin/resetEmailText',
    {
      config: { ...config, idempotent: true },
      schema: { ...common, summary: "Go back to an email's default text in one language", body: EmailTextKey, response: { 200: EmailTextsView, ...errors } },
    },
    async (request) => admin.resetEmailText(request.ctx, requireActor(request), request.body),
  );

  // previewEmail and sendTestEmail take no Idempotency-Key: a preview changes nothing, and a test email
  // is the owner pressing a button, which pressed again is meant to send again.
  app.post(
    '/api/v1/admin/previewEmail',
    {
      // A render: it changes nothing, so every role may preview.
      config: { ...config, permission: 'read' as const },
      schema: {
        ...common,
        summary: 'Render an email for a sample participant: the saved text, or the subject and body given (nothing is saved)',
        body: PreviewEmailBody,
        response: { 200: EmailPreview, ...errors },
      },
    },
    async (request) => previewEmail(request.ctx, requireActor(request), request.body, baseOf(request)),
  );

  app.post(
    '/api/v1/admin/sendTestEmail',
    {
      // It waits on the mail server: a transaction must not be held across that (../../http/change-unit.ts).
      config: { ...config, atomic: false },
      schema: { ...common, summary: 'Send the preview to an address now (503 when SMTP_URL is not set)', body: TestEmailBody, response: { 200: Ok, 503: ApiErrorBody, ...errors } },
    },
    async (request) => {
      await sendTestEmail(request.ctx, requireActor(request), request.body, baseOf(request));
      return { ok: true as const };
    },
  );

  app.get(
    '/api/v1/admin/listEmails',
    {
      config,
      schema: { ...common, summary: "A campaign's lifecycle email log, newest first, a page at a time", querystring: EmailLogQuery, response: { 200: EmailLogPage, ...errors } },
    },
    async (request) => admin.emailLog(request.ctx, requireActor(request), request.query),
  );
};
