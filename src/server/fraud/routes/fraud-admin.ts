/**
 * The owner's fraud cases (../domain/fraud-cases.ts): list a campaign's cases with their signals, and
 * approve or reject one as a whole. Secret key or the dashboard's session, in the admin routes' RPC style;
 * deciding needs the permission of the review queue's approve and reject (`change`), and is recorded in the
 * audit log with the case before and after.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FraudCaseList, FraudCaseView, ListFraudCasesQuery, ResolveFraudCaseBody } from '../../../api/fraud-schemas.js';
import { getFraudCase, listFraudCases, resolveFraudCase } from '../domain/fraud-cases.js';
import { requireActor } from '../../http/access.js';
import type { AuditSpec } from '../../http/audit-trail.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('admin');
const config = { access: 'secret' as const, idempotent: true };

/** A decision's audit entry: the case (target `case <id>`), before and after. */
const caseChange: AuditSpec = {
  target: (f) => (typeof f.caseId === 'number' ? `case ${f.caseId}` : undefined),
  snapshot: (ctx, actor, f) => getFraudCase(ctx, actor, String(f.id), Number(f.caseId)),
};

export const fraudAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/admin/listFraudCases',
    {
      config,
      schema: {
        ...common,
        summary: "List a campaign's fraud cases, newest first, each with its signals",
        description:
          'A case groups the participants a fraud control held (a blocklist, a payment with the referrer\'s card, a shared payout method, an ' +
          'auto-approval limit) under the referrer they are about: each signal says the rule, what matched and the participant. status: open ' +
          '(default), approved or rejected; limit: at most this many (50 by default, 100 at most).',
        querystring: ListFraudCasesQuery,
        response: { 200: FraudCaseList, ...errors },
      },
    },
    async (request) => listFraudCases(request.ctx, requireActor(request), request.query),
  );

  app.post(
    '/api/v1/admin/resolveFraudCase',
    {
      config: { ...config, audit: caseChange },
      schema: {
        ...common,
        summary: 'Approve or reject a fraud case as a whole',
        description:
          'approve: every participant with a signal in the case is approved, and what they earned while held is credited (both sides of each ' +
          'referral, once). reject: each one still held is rejected: they stay unapproved, earn nothing and leave the review queue. One ' +
          'transaction; a rule matching the same participant again does not hold them again. 404 fraud_case_not_found for an unknown case or ' +
          "another campaign's; 409 fraud_case_resolved for a case decided already.",
        body: ResolveFraudCaseBody,
        response: { 200: FraudCaseView, ...errors },
      },
    },
    async (request) => resolveFraudCase(request.ctx, requireActor(request), request.body),
  );
};
