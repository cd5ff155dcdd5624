/** Admin routes of the account's settings: how long its data is kept (docs/privacy.md#retention). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccountSettings, UpdateAccountSettingsBody } from '../../../api/settings-schemas.js';
import { getAccountSettings, updateAccountSettings } from '../domain/account-settings.js';
import { requireActor } from '../../http/access.js';
import { BLOCKLIST_BODY_LIMIT } from '../../fraud/domain/blocklists.js';
import { invalid } from '../../kernel/errors.js';
import { accessErrors, ownerRoute } from '../../http/owner-route-docs.js';

/**
 * The validator coerces a JSON null to 0 for an integer, and ipDays 0 means "store no IPs, clear those
 * stored": a period given as null is refused before that, rather than read as the most drastic setting.
 */
async function refuseNullPeriods(request: { body: unknown }): Promise<void> {
  const retention = (request.body as { retention?: unknown } | null)?.retention;
  if (retention === null || typeof retention !== 'object') return;
  for (const [field, value] of Object.entries(retention)) {
    if (value === null) throw invalid(`retention.${field}`, `retention.${field} must be a whole number of days`);
  }
}

const errors = accessErrors;
const common = ownerRoute('admin');
// The account's settings hold for both modes' data: no test key reaches them (../../http/permissions.ts).
const config = { access: 'secret' as const, accountWide: true as const };

export const accountSettingsAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/admin/getAccountSettings',
    {
      config,
      schema: {
        ...common,
        summary: "The account's settings: how many days IP addresses, delivered webhook events and the email log are kept, and the defaults",
        response: { 200: AccountSettings, ...errors },
      },
    },
    async (request) => getAccountSettings(request.ctx, requireActor(request)),
  );

  app.post(
    '/api/v1/admin/updateAccountSettings',
    {
      config: { ...config, idempotent: true },
      bodyLimit: BLOCKLIST_BODY_LIMIT,
      preValidation: refuseNullPeriods,
      schema: {
        ...common,
        summary: 'Change how long data is kept (the periods given; the others stay). ipDays 0: sign-up IP addresses are not stored at all',
        body: UpdateAccountSettingsBody,
        response: { 200: AccountSettings, ...errors },
      },
    },
    async (request) => updateAccountSettings(request.ctx, requireActor(request), request.body),
  );
};
