/** Reward code pools' admin routes: filling a pool (JSON or a CSV file) and reading what pools have left. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AddRewardCodesBody, ApiErrorBody, CampaignQuery, CSV_FILE, ImportRefusal, RewardCodePool, RewardCodesAdded, RewardCodesQuery } from '../../../api/schemas.js';
import { invalid } from '../../kernel/errors.js';
import { MAX_CODE_RECORD_BYTES, addRewardCodes, checkCode, codesOfCsv, listRewardCodePools } from '../domain/reward-codes.js';
import { recordSizeGuard } from '../../kernel/csv-guard.js';
import { requireActor } from '../../http/access.js';
import { acceptCsvBodies } from '../../http/csv-body.js';
import { withSpooledUpload } from '../../http/upload-spool.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('admin');
/** A file of MAX_REWARD_CODES_PER_FILE codes at their longest is about 10 MB; this leaves room for quoting. */
const CODES_BODY_LIMIT = 32 * 1024 * 1024;
const ADDING =
  'Codes are trimmed; one already in the pool, or repeated, is skipped and counted as a duplicate. A bad code (empty, longer than 100 ' +
  'characters, control characters) is a 400 naming it, and nothing is added. The credits waiting for a code get one, oldest first, in ' +
  'the same call, each with a reward_unlocked carrying it (rewardCode).';

export const rewardCodeAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The raw stream goes to the CSV reader; this parser is registered in this plugin's scope only.
  acceptCsvBodies(app, CODES_BODY_LIMIT);

  app.post(
    '/api/v1/admin/addRewardCodes',
    {
      config: { access: 'secret' as const, idempotent: true },
      schema: {
        ...common,
        summary: "Add codes to one of a campaign's reward code pools (creating it)",
        description:
          'A campaign with a pool of a kind gives each credit of that kind one code as it becomes available: `referral` the ' +
          "referrer's fixed referral rewards, `referee` the referee's own reward, `milestone` milestone bonuses. " +
          ADDING,
        body: AddRewardCodesBody,
        response: { 200: RewardCodesAdded, ...errors },
      },
    },
    async (request) => {
      const { id, kind, codes } = request.body;
      return addRewardCodes(request.ctx, requireActor(request), id, kind, codes.map((c, i) => checkCode(c, `codes.${i}`)));
    },
  );

  app.post(
    '/api/v1/admin/importRewardCodes',
    {
      // Like importParticipants: the body is a stream read once by the handler, so no fingerprint of it
      // could be taken for an Idempotency-Key, nor a transaction held while it arrives (../../http/change-unit.ts).
      // A retry is harmless: what was added is skipped as duplicates.
      config: { access: 'secret' as const, atomic: false, documentedBody: CSV_FILE },
      bodyLimit: CODES_BODY_LIMIT,
      schema: {
        ...common,
        consumes: ['text/csv'],
        summary: "Add codes to a campaign's reward code pool from CSV (Content-Type: text/csv)",
        description:
          'One code per line, or a header line naming a `code` column and the codes in it; at most 100,000 codes. ' +
          ADDING +
          ' The 400 of a file with bad codes lists them (line, reason).',
        querystring: RewardCodesQuery,
        response: { 200: RewardCodesAdded, ...errors, 400: ImportRefusal, 413: ApiErrorBody },
      },
    },
    async (request) => {
      const body = request.body as NodeJS.ReadableStream | undefined;
      if (!body || typeof body.pipe !== 'function') throw invalid('file', 'Send the CSV file as the body, with Content-Type: text/csv');
      const actor = requireActor(request);
      const codes = await withSpooledUpload(body, recordSizeGuard(MAX_CODE_RECORD_BYTES), (file) => codesOfCsv(file));
      return addRewardCodes(request.ctx, actor, request.query.id, request.query.kind, codes);
    },
  );

  app.get(
    '/api/v1/admin/listRewardCodePools',
    {
      config: { access: 'secret' as const },
      schema: {
        ...common,
        summary: "A campaign's reward code pools: codes available and used, and credits waiting for a code",
        description: 'Credits wait when their pool is empty: the dashboard shows them as a warning until the pool is refilled.',
        querystring: CampaignQuery,
        response: { 200: Type.Array(RewardCodePool), ...errors },
      },
    },
    async (request) => listRewardCodePools(request.ctx, requireActor(request), request.query.id),
  );
};
