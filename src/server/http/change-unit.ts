/**
 * A change is one transaction. On a route that changes something, a call that holds an Idempotency-Key
 * (./idempotency.ts) or is recorded in the audit log (./audit-trail.ts) runs its handler in one database
 * transaction together with what those layers write about it: the key's claim and its answer, the audit
 * entry. A crash or a lost connection leaves all of them or none, so a retry with the same key finds the
 * stored answer (the change is done) or finds no claim (nothing was done) and runs; it never runs a
 * change twice, and every change that stands has its entry. The answer is made, and stored, from what
 * the transaction wrote, before it commits.
 *
 * The handler reaches the database through `request.ctx`, whose store is the transaction's (outside a
 * unit, the service's own: route handlers always use `request.ctx`). Operations that open a transaction
 * of their own join this one (../store/store.ts). A route whose work cannot hold a transaction (it
 * streams an upload, or waits on the network: mail, a name lookup) says `atomic: false`: its key is
 * claimed before it runs and its answer and entry are written after its change commits, as each layer
 * does on its own (docs/architecture.md says what that leaves).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Ctx } from '../kernel/context.js';

/** What a unit's answer is: what the client is sent and what a replay sends again. */
export interface UnitAnswer {
  status: number;
  /** The headers a replay repeats (./idempotency.ts replayable). */
  headers: Record<string, string>;
  /** The serialised body, as sent. */
  body: string;
}

/** A layer's share of a unit: run in its transaction, in the order the layers joined. */
export interface UnitPart {
  /** Before the handler: an answer to send instead of running it (a replay); may throw to refuse the call. */
  begin?(tx: Ctx): Promise<UnitAnswer | undefined>;
  /** After the handler succeeded, with its answer, before the commit. */
  finish(tx: Ctx, answer: UnitAnswer): Promise<void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: this change route's work does not run in one transaction with its key and audit entry
     * (./change-unit.ts), because it cannot hold one (an upload, mail, a name lookup). Say why beside it.
     */
    atomic?: false;
  }
  interface FastifyRequest {
    /** The context the handler works in: the unit's transaction, else the service's. */
    readonly ctx: Ctx;
    /** Set while a unit's handler runs. */
    unitCtx: Ctx | undefined;
    /** The parts of this request's unit, once a layer joined one. */
    unitParts: UnitPart[] | undefined;
    /** The unit's transaction committed with its answer: the layers have written their share. */
    unitCommitted: boolean;
    /** The unit answered with a stored answer instead of running. */
    unitReplayed: boolean;
  }
}

const isPost = (method: RouteOptions['method']) => [method].flat().includes('POST');

/** Whether a route's calls can be units: a POST that changes something (protected or audited) or takes a key. */
const mayBeUnit = (route: Pick<RouteOptions, 'method' | 'config'>): boolean =>
  isPost(route.method) && route.config?.atomic !== false && (route.config?.access === 'secret' || route.config?.idempotent === true || route.config?.audit !== undefined);

/**
 * Joins this request's unit with `part`: false when its route cannot run as one (the layer then does
 * its work on its own).
 */
export function joinUnit(request: FastifyRequest, part: UnitPart): boolean {
  if (request.method !== 'POST' || !mayBeUnit({ method: request.method, config: request.routeOptions.config })) return false;
  (request.unitParts ??= []).push(part);
  return true;
}

/** The answer headers a replay repeats: its type and Refkit's outcome headers (e.g. Refkit-Signup). */
export const replayable = (name: string) => name === 'content-type' || name.startsWith('refkit-');

export function replayableHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (replayable(name) && value !== undefined) headers[name] = String(value);
  return headers;
}

export const REPLAYED_HEADER = 'idempotent-replayed';

async function changeUnit(app: FastifyInstance, { ctx }: { ctx: Ctx }) {
  app.decorateRequest('unitCtx', undefined);
  app.decorateRequest('unitParts', undefined);
  app.decorateRequest('unitCommitted', false);
  app.decorateRequest('unitReplayed', false);
  app.decorateRequest('ctx', {
    getter(this: FastifyRequest) {
      return this.unitCtx ?? ctx;
    },
  });

  /** Runs the handler and the parts in one transaction; the answer, as sent. */
  async function run(request: FastifyRequest, reply: FastifyReply, parts: UnitPart[], handler: () => unknown): Promise<string> {
    let nudge = false;
    const outcome = await ctx.store.transaction(async (store) => {
      // Outboxes written in the unit are sent once it has committed, not while it may still roll back.
      const tx: Ctx = { ...ctx, store, onEventsCommitted: () => void (nudge = true) };
      for (const part of parts) {
        const stored = await part.begin?.(tx);
        if (stored) return { replayed: true, answer: stored };
      }
      request.unitCtx = tx;
      let value: unknown;
      try {
        value = await handler();
      } finally {
        request.unitCtx = undefined;
      }
      reply.type('application/json; charset=utf-8');
      const answer: UnitAnswer = { status: reply.statusCode, headers: {}, body: typeof value === 'string' ? value : (reply.serialize(value) as string) };
      answer.headers = replayableHeaders(reply);
      for (const part of parts) await part.finish(tx, answer);
      return { replayed: false, answer };
    });
    if (nudge) ctx.onEventsCommitted?.();
    const { replayed, answer } = outcome;
    if (replayed) {
      request.unitReplayed = true;
      reply.status(answer.status).headers(answer.headers).header(REPLAYED_HEADER, 'true');
    } else request.unitCommitted = true;
    return answer.body;
  }

  app.addHook('onRoute', (route) => {
    if (!mayBeUnit(route)) return;
    const handler = route.handler;
    route.handler = async function unitOrHandler(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const parts = request.unitParts;
      if (!parts) return handler.call(this, request, reply);
      return run(request, reply, parts, () => handler.call(this, request, reply));
    };
  });
}

export default fp(changeUnit, { name: 'refkit-change-unit' });
