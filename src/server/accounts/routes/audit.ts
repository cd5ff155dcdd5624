/** The audit log's routes: a filtered, paged list and a CSV export. Read by every role; nothing changes it. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuditEntry, AuditFilterQuery, AuditLogQuery } from '../../../api/team-schemas.js';
import { exportAuditLog, listAuditLog, presentAuditEntry } from '../domain/audit.js';
import { requireActor } from '../../http/access.js';
import { linkNext } from '../../http/link-next.js';
import { accessErrors, ownerRoute } from '../../http/owner-route-docs.js';
import { CsvStream } from '../../http/owner-route-docs.js';

const errors = accessErrors;
const common = ownerRoute('team');
const config = { access: 'secret' as const };

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/admin/listAuditLog',
    {
      config,
      schema: {
        ...common,
        summary: 'The audit log: every change made through the dashboard, the admin API or the CLI, newest first',
        description:
          'Filters (together): actor (an email, a key prefix, or cli), action (an operation id), campaignId, from and to (ISO instants). ' +
          'Paged as getAllParticipants (page and pageSize, or the cursor of the Link header).',
        querystring: AuditLogQuery,
        response: { 200: Type.Array(AuditEntry), ...errors },
      },
    },
    async (request, reply) => {
      const page = await listAuditLog(request.ctx, requireActor(request), request.query);
      linkNext(request, reply, page.next);
      return page.rows.map((r) => presentAuditEntry(r.row));
    },
  );

  app.get(
    '/api/v1/admin/exportAuditLog',
    {
      config,
      schema: {
        ...common,
        summary: 'The audit log as CSV, oldest first, with the filters of listAuditLog',
        querystring: AuditFilterQuery,
        produces: ['text/csv'],
        response: { 200: CsvStream, ...errors },
      },
    },
    async (request, reply) => {
      const csv = exportAuditLog(request.ctx, requireActor(request), request.query);
      return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="audit-log.csv"').send(csv);
    },
  );
};
