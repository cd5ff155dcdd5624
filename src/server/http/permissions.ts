/**
 * Roles, enforced in one place. Every protected route (access `secret`) needs a permission: the one its
 * config declares (`permission: 'read' | 'change' | 'manage'`), else `read` for GET and `change` for any
 * other method. A caller whose role does not allow it is refused 403 `forbidden` before anything runs
 * (before the Idempotency-Key is claimed, so the refusal writes nothing). Sessions carry the user's role;
 * secret keys and the CLI act as owners (../kernel/roles.ts, docs/team.md).
 *
 * A test key (sk_test_) is an owner of test mode only (../kernel/test-mode.ts): routes that act on the
 * whole account, beyond any campaign and so beyond any mode (members, invitations, account settings),
 * say `accountWide: true` and refuse it 403 `forbidden` the same way (docs/security.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiErrorBody } from '../../api/schemas.js';
import { AppError } from '../kernel/errors.js';
import { allows, type Permission } from '../kernel/roles.js';

/** What a route needs and whether it is recorded in the audit log: for tests that walk every route, and for the docs. */
export interface RouteRule {
  permission?: Permission;
  audited: boolean;
  /** Acts on the whole account (members, settings): refused to test keys. */
  accountWide?: true;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `POST /api/v1/admin/updateCampaign` -> its permission and whether it writes audit entries. */
    routeRules: ReadonlyMap<string, RouteRule>;
  }
  interface FastifyContextConfig {
    /** What a protected route needs (./permissions.ts): read (GET's default), change (other methods' default) or manage (members, keys). */
    permission?: Permission;
    /** The route acts on the whole account, beyond any mode (members, invitations, account settings): test keys are refused. */
    accountWide?: true;
  }
}

const READS = new Set(['GET', 'HEAD']);

/** The permission a request's route needs, or undefined when it is not a protected route. */
export function permissionOf(request: Pick<FastifyRequest, 'method' | 'routeOptions'>): Permission | undefined {
  const { access, permission } = request.routeOptions.config;
  if (access !== 'secret') return undefined;
  return permission ?? (READS.has(request.method) ? 'read' : 'change');
}

const WHAT: Record<Permission, string> = {
  read: 'read this',
  change: 'change anything (viewers only read)',
  manage: 'manage members or secret keys (owners only)',
};

async function permissions(app: FastifyInstance) {
  const rules = new Map<string, RouteRule>();
  app.decorate('routeRules', rules);
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    for (const method of [route.method].flat()) {
      const request = { method, routeOptions: { config } } as Pick<FastifyRequest, 'method' | 'routeOptions'>;
      const permission = permissionOf(request);
      const audited = permission === 'change' || permission === 'manage' ? config.audit?.record !== false : config.audit !== undefined;
      if (permission !== undefined || audited) rules.set(`${method} ${route.url}`, { ...(permission && { permission }), audited, ...(config.accountWide && { accountWide: true as const }) });
    }
    // The OpenAPI document tells the truth: every protected route may answer 403 forbidden.
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (config.access === 'secret' && response && !('403' in response)) response[403] = ApiErrorBody;
  });

  // After access's onRequest (plugins' hooks run in the order registered), which names the actor and role.
  app.addHook('onRequest', (request, _reply, done) => {
    const role = request.actor?.role;
    if (role === undefined) return done();
    const needed = permissionOf(request);
    if (needed === undefined) return done();
    if (request.actor?.test === true && request.routeOptions.config.accountWide) {
      return done(new AppError(403, 'forbidden', 'A test key acts on test mode only, never on the whole account (members, invitations, settings): use a live key or the dashboard'));
    }
    if (allows(role, needed)) return done();
    done(new AppError(403, 'forbidden', `Your role (${role}) may not ${WHAT[needed]}`));
  });
}

export default fp(permissions, { name: 'refkit-permissions', dependencies: ['refkit-access'] });
