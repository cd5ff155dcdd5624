/**
 * The Idempotency-Key header, on routes whose config says `idempotent: true` (one line opts a POST in).
 *
 * A call with a key (secret key or owner session; keyless browser calls ignore the header) claims it for
 * its account with one insert that does nothing on a taken key, runs, and stores its status, replayable
 * headers and body before the answer leaves (the onSend hook awaits the write). A later call with the same
 * key gets that answer again with `Idempotent-Replayed: true` and does nothing; one with another method,
 * route, query or body gets 409 idempotency_conflict; one while the first is still running gets 409
 * idempotency_in_progress with Retry-After, as Stripe answers (waiting would hold a connection per
 * duplicate). 4xx answers are stored and replayed; a 5xx, or a refusal that asks to be sent again later
 * (campaign_paused), releases the key so a retry runs. Keys
 * last 24 hours from their claim; expired ones are taken over when reused and purged by whichever keyed
 * call comes first after PURGE_EVERY_MS. A claim left unanswered for ABANDONED_AFTER_MS (its process
 * died mid-request) may be taken over by a retry: docs/architecture.md says what that window means.
 * Calls without the header do no work here beyond reading it.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import stringify from 'safe-stable-stringify';
import type { ApiErrorBody, ErrorCode } from '../../api/schemas.js';
import type { Ctx } from '../kernel/context.js';
import { AppError } from '../kernel/errors.js';
import { campaignIdOf } from './campaign-time.js';
import { joinUnit, REPLAYED_HEADER, replayableHeaders, type UnitAnswer } from './change-unit.js';
import { IdempotencyStore, TEST_MODE_KEYS, type IdempotencyRow } from '../store/idempotency-store.js';
import { DAY_MS } from '../kernel/time.js';
import { isDatabaseUnavailable } from '../kernel/unavailable.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export { REPLAYED_HEADER };
/** How long a key's answer is kept and replayed. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;
/** An unanswered claim this old belongs to a request that will never answer (its process is gone). */
export const ABANDONED_AFTER_MS = 5 * 60_000;
const PURGE_EVERY_MS = 10 * 60_000;
/** How often a release the database refused (it was away) is tried again. */
const RELEASE_RETRY_MS = 1_000;
/** Printable ASCII, 1 to 255 characters, as Stripe takes them. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honours the Idempotency-Key header on POST (./idempotency.ts); GETs change nothing to repeat. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The key this request claimed, to be answered or released when its answer is sent. */
    idempotencyClaim: Claim | undefined;
    /** The key this request claimed in its unit's transaction: gone if that rolled back, so a refusal is stored anew. */
    idempotencyUnitClaim: (Claim & { print: string }) | undefined;
  }
}

interface Claim {
  accountId: number;
  key: string;
  claimedOn: number;
}

const badKey = () =>
  new AppError(400, 'invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters', 'Idempotency-Key');
const conflict = () =>
  new AppError(
    409,
    'idempotency_conflict',
    'This Idempotency-Key was used with another request; use a new key for a different request',
    'Idempotency-Key',
  );
const inProgress = () =>
  new AppError(
    409,
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still running; retry after the time in Retry-After to get its answer',
    'Idempotency-Key',
    { 'retry-after': '1' },
  );

/**
 * Refusals that say nothing was done and to send the call again later: replaying them for a day would
 * refuse the retry they ask for, so they release the key as a 5xx does. (Keyed calls are never rate
 * limited, so no 429 reaches here.)
 */
const RETRY_LATER: ReadonlySet<string> = new Set<ErrorCode>(['campaign_paused']);
const asksForRetry = (status: number, payload: string) =>
  status >= 500 || (status === 409 && RETRY_LATER.has((JSON.parse(payload) as ApiErrorBody).error.code));

/** What makes two requests the same request: method, route, query and body, with keys in a fixed order. */
function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url}\n${stringify(request.query ?? null)}\n${stringify(request.body ?? null)}`)
    .digest('hex');
}

const isPost = (method: RouteOptions['method']) => (Array.isArray(method) ? method.includes('POST') : method === 'POST');

/** The header in the OpenAPI document of an idempotent route, beside the route's own headers. */
function documentHeader(route: RouteOptions): void {
  if (!route.config?.idempotent || !isPost(route.method)) return;
  const schema = route.schema ?? {};
  const headers = (schema.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  route.schema = {
    ...schema,
    headers: {
      ...headers,
      properties: {
        ...headers.properties,
        [IDEMPOTENCY_HEADER]: {
          type: 'string',
          description:
            'With a secret key or session: a unique key (1-255 printable ASCII) per operation. A retry with the same key and body within 24 h ' +
            'gets the first answer again (header Idempotent-Replayed: true) and changes nothing; another body: 409 idempotency_conflict; ' +
            'while the first still runs: 409 idempotency_in_progress. Keyless calls ignore it.',
        },
      },
    },
  };
}

async function idempotency(app: FastifyInstance, { ctx }: { ctx: Ctx }) {
  const store = new IdempotencyStore(ctx.store.db);
  let nextPurge = 0;
  app.decorateRequest('idempotencyClaim', undefined);
  app.decorateRequest('idempotencyUnitClaim', undefined);
  app.addHook('onRoute', documentHeader);

  const answerOf = (row: IdempotencyRow): UnitAnswer => ({ status: row.status!, headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? '' });

  const replay = (reply: FastifyReply, row: IdempotencyRow) => {
    const { status, headers, body } = answerOf(row);
    reply.status(status).headers(headers).header(REPLAYED_HEADER, 'true').send(body);
  };

  /**
   * The key as stored: test mode's keys apart from live mode's, so that a test run's `order-5555` never
   * blocks (or is replayed to) the live call with the same key. The mode is the campaign's for a call
   * about a campaign (the one its `id` names, of the caller's account), else the caller's: a test key's,
   * live for a live key, a session or the CLI. Live keys are stored as sent (as before there were modes);
   * a test key's behind a prefix that no valid key can begin with (a control character).
   */
  const namespaced = async (request: FastifyRequest, key: string, accountId: number): Promise<string> => {
    const id = campaignIdOf(request);
    const campaign = id === undefined ? undefined : await ctx.store.findCampaign(id);
    const test = campaign !== undefined && campaign.account_id === accountId ? campaign.test === 1 : request.actor?.test === true;
    return test ? `${TEST_MODE_KEYS}${key}` : key;
  };

  /**
   * Claims the key in `keys` (the service's store, or a unit's transaction): undefined when this call is
   * to run, the stored answer when it is done already; throws when it is another request's or running.
   */
  const claimIn = async (keys: IdempotencyStore, claim: Claim, print: string): Promise<IdempotencyRow | undefined> => {
    const { accountId, key, claimedOn: now } = claim;
    let claimed = await keys.claim(accountId, key, print, now);
    if (claimed) return undefined;
    const row = await keys.find(accountId, key);
    // Gone between the two statements (purged, or released by a failed first request): one more claim.
    if (!row) claimed = await keys.claim(accountId, key, print, now);
    else if (now - row.created_on >= IDEMPOTENCY_WINDOW_MS) claimed = await keys.takeOver(accountId, key, row.created_on, print, now);
    else if (row.fingerprint !== print) throw conflict();
    else if (row.status !== null) return row;
    // Claimed by a call that runs outside a unit (atomic: false) and is still running, or died.
    else if (now - row.created_on >= ABANDONED_AFTER_MS) claimed = await keys.takeOver(accountId, key, row.created_on, print, now);
    // Another duplicate won the race for the row as it was read.
    if (!claimed) throw inProgress();
    return undefined;
  };

  /** Claims the key, or answers: true when the handler is to run. */
  const begin = async (request: FastifyRequest, reply: FastifyReply, key: string, accountId: number): Promise<boolean> => {
    if (!VALID_KEY.test(key)) throw badKey();
    const now = ctx.now();
    if (now >= nextPurge) {
      nextPurge = now + PURGE_EVERY_MS;
      await store.purge(now - IDEMPOTENCY_WINDOW_MS);
    }
    const print = fingerprint(request);
    const claim: Claim = { accountId, key: await namespaced(request, key, accountId), claimedOn: now };
    // In a unit (./change-unit.ts) the claim and the answer are written in the change's own transaction.
    const inUnit = joinUnit(request, {
      begin: async (tx) => {
        const done = await claimIn(new IdempotencyStore(tx.store.db), claim, print);
        if (done) return answerOf(done);
        request.idempotencyUnitClaim = { ...claim, print };
        return undefined;
      },
      finish: (tx, answer) => new IdempotencyStore(tx.store.db).answer(claim.accountId, claim.key, claim.claimedOn, answer),
    });
    if (inUnit) return true;
    const done = await claimIn(store, claim, print);
    if (done) {
      replay(reply, done);
      return false;
    }
    request.idempotencyClaim = claim;
    return true;
  };

  // Callback-style, returning at once on routes that do not opt in and on calls without the header: an
  // async hook costs every request a promise and a turn of the microtask queue. After access's
  // preHandler, so the actor is known, and after validation, so the body is the parsed one.
  app.addHook('preHandler', (request, reply, done) => {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !request.routeOptions.config.idempotent || request.method !== 'POST' || !request.actor) return done();
    // Node joins repeated headers it does not know into one string; an array is refused as no valid key.
    begin(request, reply, typeof key === 'string' ? key : '', request.actor.accountId).then((run) => {
      // A replayed answer has been sent: the handler must not run.
      if (run) done();
    }, done);
  });

  /**
   * Releases the claim of a call that failed. When the database is away (the call's 503 was that), the
   * release is tried again every RELEASE_RETRY_MS until it is back, so that the client's retry with the
   * key runs once it can, not only after ABANDONED_AFTER_MS; the claim's age still ends the tries.
   */
  let closing = false;
  app.addHook('onClose', async () => void (closing = true));
  const release = (claim: Claim): Promise<void> =>
    store.release(claim.accountId, claim.key, claim.claimedOn).catch((err: unknown) => {
      if (!isDatabaseUnavailable(err)) throw err;
      const retry = () => {
        if (closing || ctx.now() - claim.claimedOn >= ABANDONED_AFTER_MS) return;
        store.release(claim.accountId, claim.key, claim.claimedOn).catch(() => setTimeout(retry, RELEASE_RETRY_MS).unref());
      };
      setTimeout(retry, RELEASE_RETRY_MS).unref();
    });

  /** Stores the answer (or releases the key after a failure on our side) before it is sent. */
  const settle = async (claim: Claim, reply: FastifyReply, payload: unknown) => {
    const status = reply.statusCode;
    if (typeof payload !== 'string' || asksForRetry(status, payload)) return release(claim);
    return store.answer(claim.accountId, claim.key, claim.claimedOn, { status, headers: replayableHeaders(reply), body: payload });
  };

  /**
   * A unit's call that was refused (4xx) rolled its claim back with its transaction: the refusal is
   * stored now, as a claim with its answer, unless it asks for a retry or a duplicate has claimed the key
   * meanwhile (that one's answer stands).
   */
  const storeRefusal = async (claim: Claim & { print: string }, reply: FastifyReply, payload: unknown) => {
    const status = reply.statusCode;
    if (typeof payload !== 'string' || asksForRetry(status, payload)) return;
    await store.insertAnswered(claim.accountId, claim.key, claim.print, claim.claimedOn, { status, headers: replayableHeaders(reply), body: payload });
  };

  const settled = (request: FastifyRequest, payload: unknown, done: (err: null, payload: unknown) => void) => (err: unknown) => {
    // The operation's effects stand and its answer still goes out; a retry after ABANDONED_AFTER_MS
    // would run again, as after a crash at this point.
    if (isDatabaseUnavailable(err)) request.log.warn({ err }, 'could not store the answer of an Idempotency-Key: the database is away');
    else request.log.error({ err }, 'could not store the answer of an Idempotency-Key');
    done(null, payload);
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    const unitClaim = request.idempotencyUnitClaim;
    if (unitClaim) {
      request.idempotencyUnitClaim = undefined;
      // Committed with its answer, or replayed: nothing is left to store.
      if (request.unitCommitted || request.unitReplayed) return done(null, payload);
      return void storeRefusal(unitClaim, reply, payload).then(() => done(null, payload), settled(request, payload, done));
    }
    const claim = request.idempotencyClaim;
    if (!claim) return done(null, payload);
    request.idempotencyClaim = undefined;
    settle(claim, reply, payload).then(() => done(null, payload), settled(request, payload, done));
  });
}

export default fp(idempotency, { name: 'refkit-idempotency', dependencies: ['refkit-access', 'refkit-change-unit'] });
