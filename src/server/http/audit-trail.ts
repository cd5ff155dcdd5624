/**
 * The audit log, written at the route layer, generically: every protected route whose permission is
 * `change` or `manage` (./permissions.ts) writes exactly one entry for each call that succeeds (2xx),
 * and none for a refused call or a replayed Idempotency-Key answer (nothing ran). A route refines what
 * is recorded with a declaration in its config, `audit` (AuditSpec below): which campaign and target
 * the call is about, and a snapshot of that target, read before the handler and again after it. Routes
 * that declare nothing are still recorded: action, the campaign named by `id`/`campaignId`, the target
 * named by `email`, and the answer (secrets redacted) as "after". docs/architecture.md says why at this
 * layer and what it costs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { recordAudit } from '../accounts/domain/audit.js';
import type { Actor, Ctx } from '../kernel/context.js';
import { joinUnit, REPLAYED_HEADER } from './change-unit.js';

/** The fields of a call: its query and its JSON body together. */
export type CallFields = Record<string, unknown>;

/** What a change route declares about its audit entries (all optional). */
export interface AuditSpec {
  /** The action's name; default the route's last path segment (the operation id: updateCampaign). */
  action?: string;
  /** The campaign it is about; default the `id` or `campaignId` field, or the answer's campaignId. `null`: none (ids of keys, endpoints ...). */
  campaign?: ((fields: CallFields, answer: unknown) => string | undefined) | null;
  /** What it changed; default the `email` field. */
  target?: (fields: CallFields, answer: unknown) => string | undefined;
  /**
   * The target's state, read before the handler runs and again after it succeeds (default: before null,
   * after the answer), through `ctx`: in a unit (./change-unit.ts), its transaction.
   */
  snapshot?: (ctx: Ctx, actor: Actor, fields: CallFields) => Promise<unknown>;
  /**
   * false: not recorded, though roles still apply. Only for the referral interface's own traffic from the
   * product's backend (qualifyParticipant), which is not an owner's change and comes by the thousand.
   */
  record?: false;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * How this route's audit entries are made (./audit-trail.ts). On a route that is not protected, declaring
     * it records the route too, as the actor its handler sets on request.actor (acceptInvitation: who joined).
     */
    audit?: AuditSpec;
  }
  interface FastifyRequest {
    /** The snapshot read before the handler ran, when the route declares one. */
    auditBefore: unknown;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const fieldsOf = (request: FastifyRequest): CallFields => ({
  ...(request.query as CallFields | undefined),
  ...(request.body !== null && typeof request.body === 'object' && typeof (request.body as { pipe?: unknown }).pipe !== 'function' ? (request.body as CallFields) : {}),
});

/** Whether a request's route is recorded: a change route, or a route that declares `audit` (acceptInvitation). */
export function isAudited(request: FastifyRequest): boolean {
  return request.server.routeRules.get(`${request.method} ${request.routeOptions.url}`)?.audited ?? false;
}

const defaultCampaign = (f: CallFields, answer: unknown) => str(f.id) ?? str(f.campaignId) ?? str((answer as { campaignId?: unknown } | null)?.campaignId);
const defaultTarget = (f: CallFields) => str(f.email);

async function auditTrail(app: FastifyInstance, { ctx }: { ctx: Ctx }) {
  app.decorateRequest('auditBefore', undefined);

  /** The entry of a change that succeeded, with its answer as sent (`payload`), written through `c`. */
  const write = async (c: Ctx, request: FastifyRequest, actor: Actor, contentType: string, payload: unknown) => {
    const spec = request.routeOptions.config.audit ?? {};
    const fields = fieldsOf(request);
    let answer: unknown = null;
    if (typeof payload === 'string' && contentType.startsWith('application/json')) {
      try {
        answer = JSON.parse(payload);
      } catch {
        answer = null;
      }
    }
    const after = spec.snapshot ? await spec.snapshot(c, actor, fields).catch(() => null) : answer;
    await recordAudit(c, actor, {
      action: spec.action ?? request.routeOptions.url!.slice(request.routeOptions.url!.lastIndexOf('/') + 1),
      campaignId: spec.campaign === null ? undefined : (spec.campaign ?? defaultCampaign)(fields, answer),
      target: (spec.target ?? defaultTarget)(fields, answer),
      before: request.auditBefore,
      after,
    });
  };

  /** The target's state before the change; none when it cannot be read (an unknown campaign: the handler answers the 404). */
  const before = async (c: Ctx, request: FastifyRequest, actor: Actor) => {
    const snapshot = request.routeOptions.config.audit?.snapshot;
    if (snapshot) request.auditBefore = await snapshot(c, actor, fieldsOf(request)).catch(() => undefined);
  };

  // After validation and access (and after idempotency: a replay writes no entry), before the handler.
  // In a unit (./change-unit.ts) the snapshots and the entry are read and written in the change's own
  // transaction: an answered change always has its entry, and a change that rolled back has none.
  app.addHook('preHandler', (request, _reply, done) => {
    const actor = request.actor;
    if (!actor || !isAudited(request)) return done();
    const inUnit = joinUnit(request, {
      begin: async (tx) => void (await before(tx, request, actor)),
      finish: (tx, answer) => write(tx, request, actor, answer.headers['content-type'] ?? '', answer.body),
    });
    if (inUnit) return done();
    before(ctx, request, actor).then(() => done(), done);
  });

  // Outside a unit: once the answer is made and before it is sent, awaited, so an answer a client got has
  // its entry. A callback-style hook that returns at once on every other request (no promise per request).
  app.addHook('onSend', (request, reply, payload, done) => {
    const actor = request.actor;
    if (!actor || reply.statusCode >= 300 || !isAudited(request) || reply.hasHeader(REPLAYED_HEADER) || request.unitParts) return done(null, payload);
    write(ctx, request, actor, String(reply.getHeader('content-type') ?? ''), payload).then(
      () => done(null, payload),
      (err: unknown) => {
        // The change has committed: failing its answer now would tell the caller it did not happen. Logged.
        request.log.error({ err }, 'the audit log entry of a change could not be written');
        done(null, payload);
      },
    );
  });
}

export default fp(auditTrail, { name: 'refkit-audit-trail', dependencies: ['refkit-access', 'refkit-change-unit'] });
