/**
 * Admin routes the dashboard needs beyond the referral API's admin routes, in the same RPC style and with the same
 * credentials (a secret key, or an owner's session): campaign list, participant search and detail,
 * rejection of held participants, analytics, and CSV export and import.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CSV_FILE,
  ApiErrorBody,
  CampaignAnalytics,
  CampaignQuery,
  CampaignSettings,
  ImportRefusal,
  ImportResult,
  Participant,
  ParticipantDetail,
  ParticipantQuery,
  ParticipantSearchPage,
  ParticipantSummary,
  SearchParticipantsQuery,
} from '../../../api/schemas.js';
import { campaignAnalytics } from '../../campaigns/domain/analytics.js';
import { participantDetail, rejectParticipant, searchParticipants } from '../domain/directory.js';
import { getParticipant } from '../domain/participants.js';
import { setReferralCode } from '../domain/vanity-codes.js';
import { presentParticipant } from '../domain/present.js';
import { SetMyReferralCodeBody } from '../../../api/widget-schemas.js';
import { invalid } from '../../kernel/errors.js';
import { recordSizeGuard } from '../../kernel/csv-guard.js';
import { MAX_RECORD_BYTES, csvRows, exportParticipants, importParticipants } from '../domain/participant-csv.js';
import { withSpooledUpload } from '../../http/upload-spool.js';
import { listCampaignSettings } from '../../campaigns/domain/campaign-views.js';
import { requireActor } from '../../http/access.js';
import { acceptCsvBodies } from '../../http/csv-body.js';
import { bulkExport, participantChange } from '../../http/audit-specs.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { CsvStream } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
/** The owner's setReferralCode: the participant by email, as every admin call names them. */
const SetReferralCodeBody = Type.Object({ id: SetMyReferralCodeBody.properties.id, email: ParticipantQuery.properties.email, code: SetMyReferralCodeBody.properties.code }, { additionalProperties: false });
const common = ownerRoute('admin');
const config = { access: 'secret' as const, idempotent: true };
/** Import files are streamed, never held whole: the limit is only against an endless upload. */
const IMPORT_BODY_LIMIT = 1024 * 1024 * 1024;

export const dashboardAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The raw stream goes to the CSV parser; this parser is registered in this plugin's scope only.
  acceptCsvBodies(app, IMPORT_BODY_LIMIT);

  app.get(
    '/api/v1/admin/listCampaigns',
    {
      config,
      schema: {
        ...common,
        summary: 'List the campaigns of the account, newest first, with every setting',
        response: { 200: Type.Array(CampaignSettings), ...errors },
      },
    },
    async (request) => listCampaignSettings(request.ctx, requireActor(request)),
  );

  app.get(
    '/api/v1/admin/searchParticipants',
    {
      config,
      schema: {
        ...common,
        summary: 'Search and sort the participants of a campaign',
        description:
          'q matches the start of an email or a whole referral code. sort: createdOn (default), email or totalReferrals; order desc (default) or asc. filter held: the review queue. Keyset paging: pass nextCursor as cursor.',
        querystring: SearchParticipantsQuery,
        response: { 200: ParticipantSearchPage, ...errors },
      },
    },
    async (request) => {
      const { items, next } = await searchParticipants(request.ctx, requireActor(request), request.query);
      return next ? { participants: items, nextCursor: next } : { participants: items };
    },
  );

  app.get(
    '/api/v1/admin/getParticipantDetail',
    {
      config,
      schema: {
        ...common,
        summary: 'One participant with their referrer, money and fraud signals',
        querystring: ParticipantQuery,
        response: { 200: ParticipantDetail, ...errors },
      },
    },
    async (request) => participantDetail(request.ctx, requireActor(request), request.query.id, request.query.email),
  );

  app.post(
    '/api/v1/admin/setReferralCode',
    {
      config: { ...config, audit: participantChange },
      schema: {
        ...common,
        summary: "Give a participant the referral code they asked for (a vanity code)",
        description:
          '4 to 24 of A-Z, 0-9 and -, any case (kept in capitals); 400 code_not_allowed for a reserved or offensive word; 409 code_taken when another ' +
          'participant has it (or had it); 429 past three changes a day for one participant. The old code keeps working as theirs (links and codes ' +
          'already shared), and its promotion code stays active; the new code gets its own when the campaign has a refereeDiscount.',
        body: SetReferralCodeBody,
        response: { 200: Participant, ...errors },
      },
    },
    async (request) => {
      const { participant, campaign } = await getParticipant(request.ctx, requireActor(request), request.body.id, request.body.email);
      return presentParticipant(await setReferralCode(request.ctx, campaign, participant, request.body.code), campaign);
    },
  );

  app.post(
    '/api/v1/admin/rejectParticipant',
    {
      config: { ...config, audit: participantChange },
      schema: {
        ...common,
        summary: 'Reject a participant held for review',
        description: 'They stay unapproved (earning nothing) and leave the review queue. 409 not_held for an approved participant.',
        body: ParticipantQuery,
        response: { 200: ParticipantSummary, ...errors },
      },
    },
    async (request) => rejectParticipant(request.ctx, requireActor(request), request.body.id, request.body.email),
  );

  app.get(
    '/api/v1/admin/getCampaignAnalytics',
    {
      config,
      schema: {
        ...common,
        summary: 'Funnel, sign-ups per day, top referrers, referred revenue and viral coefficient of a campaign',
        querystring: CampaignQuery,
        response: { 200: CampaignAnalytics, ...errors },
      },
    },
    async (request) => campaignAnalytics(request.ctx, requireActor(request), request.query.id),
  );

  app.get(
    '/api/v1/admin/exportParticipants',
    {
      // A bulk read of personal data: who took it, and when, is recorded (../../http/audit-trail.ts).
      config: { ...config, audit: bulkExport },
      schema: {
        ...common,
        summary: 'Every participant of a campaign as CSV',
        querystring: CampaignQuery,
        produces: ['text/csv'],
        response: { 200: CsvStream, ...errors },
      },
    },
    async (request, reply) => {
      const { campaign, csv } = await exportParticipants(request.ctx, requireActor(request), request.query.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="participants-${campaign.id}.csv"`)
        .send(csv);
    },
  );

  app.post(
    '/api/v1/admin/importParticipants',
    {
      // A retried import changes nothing already: it skips existing emails, all or nothing. Its body is a
      // stream, read once by the handler, so no fingerprint of it could be taken before it runs; and a
      // transaction must not be held while it arrives (../../http/change-unit.ts).
      config: { access: 'secret' as const, atomic: false, documentedBody: CSV_FILE },
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        ...common,
        consumes: ['text/csv'],
        summary: 'Import participants from CSV (Content-Type: text/csv)',
        description:
          'A header line, then one participant per line: email (required), firstName, lastName, referralCode, referredByCode or referredByEmail (referrers first), createdOn. ' +
          "Each row is checked by addParticipant's rules. All or nothing: if any row is refused, nothing is imported and the 400 lists the refused rows (line, field, reason). " +
          'Existing emails are skipped. A row may be at most 64 KiB (413). Imported participants are not scored and send no webhooks.',
        querystring: CampaignQuery,
        response: { 200: ImportResult, ...errors, 400: ImportRefusal, 413: ApiErrorBody },
      },
    },
    async (request) => {
      const body = request.body as NodeJS.ReadableStream | undefined;
      if (!body || typeof body.pipe !== 'function') throw invalid('file', 'Send the CSV file as the body, with Content-Type: text/csv');
      const actor = requireActor(request);
      return withSpooledUpload(body, recordSizeGuard(MAX_RECORD_BYTES), (file) => importParticipants(request.ctx, actor, request.query.id, csvRows(file)));
    },
  );
};
