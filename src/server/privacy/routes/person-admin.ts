/** Exporting and erasing a person across the account's campaigns (docs/privacy.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErasePersonBody, ErasureResult, PersonExport, PersonQuery } from '../../../api/person-schemas.js';
import { erasePerson } from '../domain/erasure.js';
import { exportPerson } from '../domain/person-export.js';
import { requireActor } from '../../http/access.js';
import { maskEmail } from '../../kernel/email.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

/** An erasure's entry target: the participants erased, by id. */
const erasedTarget = (_fields: unknown, answer: unknown) => {
  const ids = (answer as ErasureResult | null)?.participants.map((p) => `#${p.participantId}`) ?? [];
  return ids.length > 0 ? `participants ${ids.join(', ')}` : 'nobody';
};

/** An export's entry target: the address, if anything is stored about it; else masked (after an erasure, it must not come back). */
const exportedTarget = (fields: Record<string, unknown>, answer: unknown) => {
  const email = String(fields.email ?? '');
  const found = answer as PersonExport | null;
  const stored = found && [found.participants, found.pendingSignups, found.emailLinks, found.webhookEvents, found.stripeEvents].some((rows) => rows.length > 0);
  return stored ? email : maskEmail(email);
};

const errors = ownerErrors;
const common = ownerRoute('admin');

export const personAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/admin/exportPerson',
    {
      // Reading a person's data is recorded too (who looked, for whom), without the data itself; an
      // address nothing is stored about (an erased one, say) as masked, so the log does not keep it again.
      config: { access: 'secret' as const, audit: { campaign: null, snapshot: async () => null, target: exportedTarget } },
      schema: {
        ...common,
        summary: 'Everything stored about an email across the campaigns, as JSON',
        description:
          'Their participant rows with their ledger, payments, consent, impressions and email log, their referrals masked, ' +
          'pending sign-ups and emailed links, and the webhook and Stripe events that carried them. An address nothing is stored about answers empty lists.',
        querystring: PersonQuery,
        response: { 200: PersonExport, ...errors },
      },
    },
    async (request) => exportPerson(request.ctx, requireActor(request), request.query.email),
  );

  app.post(
    '/api/v1/admin/erasePerson',
    {
      // The entry names the participants by id: the address is gone (and the log keeps no trace of it).
      config: { access: 'secret' as const, idempotent: true, audit: { campaign: null, target: erasedTarget } },
      schema: {
        ...common,
        summary: "Erase a person's data across the campaigns",
        description:
          'In one transaction: their participants are anonymised (they read as "Deleted participant"; referrals, totals and balances stay), ' +
          'and their address, names, sign-up addresses, tokens, emailed links, pending sign-ups, email log and the webhook payloads and stored answers ' +
          'holding them are deleted or rewritten. Each erased participant emits participant_erased. The same address signing up again earns no referral ' +
          'credit for ERASURE_BLOCK_DAYS. Erasing again, or an address nothing is stored about, answers 200 with no participants.',
        body: ErasePersonBody,
        response: { 200: ErasureResult, ...errors },
      },
    },
    async (request) => erasePerson(request.ctx, requireActor(request), request.body.email),
  );
};
