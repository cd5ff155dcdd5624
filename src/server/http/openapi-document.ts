/**
 * The OpenAPI document as clients are generated from it, finished in one place from what @fastify/swagger
 * makes of the route schemas (./openapi.ts): an operationId on every operation, derived from its path
 * (routes need not name theirs), and none given twice; `security: []` on the routes that declare none (the
 * public ones); each 200 answer named; the headers every answer carries (Request-Id, ./request-id.ts),
 * the paged lists' `Link` (./link-next.ts) and the refusals' `Retry-After`; and the webhook events the
 * service sends, as the 3.1 `webhooks` map.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import stableStringify from 'safe-stable-stringify';
import { ApiErrorBody, ParticipantErasedEvent, RewardCodesLowEvent, WEBHOOK_EVENT_TYPES, WebhookEvent, type WebhookEventType } from '../../api/schemas.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON, walked by key */
type Json = Record<string, any>;

const API = '/api/v1/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `stripe-connect` -> `StripeConnect`, `signIn` -> `SignIn`. */
const pascal = (segment: string) => segment.split(/[-_]/).map(upperFirst).join('');

/**
 * An operation's id, from its path: `/api/v1/<op>` and `/api/v1/admin/<op>` are `<op>`; another namespace
 * prefixes its name (`/api/v1/auth/signIn`: `authSignIn`); a webhook receiver (`/api/v1/integrations/
 * <provider>/...`) is `receive<Provider>Event`. Outside the API (`/healthz`, `/email/unsubscribe`) its last
 * segment, and a GET beside another method on the same path is `get<Segment>`. A route whose schema names
 * its operationId keeps it (a provider spelled otherwise than its path: `receivePayPalEvent`).
 */
export function operationIdOf(method: string, path: string, methodsOnPath: number): string {
  const segments = path.split('/').filter((s) => s !== '' && !s.startsWith('{'));
  if (path.startsWith(API)) {
    const [first, ...rest] = segments.slice(2);
    if (first === 'integrations' && rest[0]) return `receive${pascal(rest[0])}Event`;
    if (rest.length === 0 || (first === 'admin' && rest.length === 1)) return rest.at(-1) ?? first!;
    return first + rest.map(pascal).join('');
  }
  const last = segments.at(-1) ?? 'root';
  return method === 'get' && methodsOnPath > 1 ? `get${pascal(last)}` : last;
}

/** Every operation of the document's paths, with its method and path. */
export function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op: op as Json })),
  );
}

/** The operations with no operationId, and the ids given to more than one operation; both empty in a good document. */
export function operationIdProblems(doc: Json): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const all = [...operationsOf(doc), ...Object.entries(doc.webhooks ?? {}).flatMap(([name, item]) => Object.entries(item as Json).map(([method, op]) => ({ method, path: `webhook ${name}`, op: op as Json })))];
  for (const { method, path, op } of all) {
    const where = `${method.toUpperCase()} ${path}`;
    if (typeof op.operationId !== 'string' || op.operationId === '') problems.push(`${where} has no operationId`);
    else if (seen.has(op.operationId)) problems.push(`${where} and ${seen.get(op.operationId)} share the operationId ${op.operationId}`);
    else seen.set(op.operationId, where);
  }
  return problems;
}

/**
 * What the 200 answer of a change (and of the reads whose summary does not name their answer) is. The
 * other reads are named by their summary, an answer whose schema has a description by that, and a change
 * that answers {"ok":true} is "Done". A route added with none of these is caught by test/server/openapi.test.ts.
 */
const ANSWERS: Record<string, string> = {
  addParticipant: 'The participant, new or existing: every field with a secret key or proof, else the shared ones (Refkit-Signup says created, existing or pending)',
  validateCode: "true when the code is a participant's of the campaign, else false",
  qualifyParticipant: 'The participant after the qualifying event, with held and heldReason when its rewards are held back',
  verifyEmail: 'The participant the link confirmed or proved (a new participant token is in Refkit-Participant-Token)',
  getMyReferrals: "The participant's own record, referrals and rewards, and their leaderboard and waitlist standing when the campaign has them",
  createCampaign: "The new campaign's settings, as listCampaigns shows them",
  updateCampaign: "The campaign's settings after the change, as listCampaigns shows them",
  setCampaignStatus: "The campaign's settings in its new state",
  advanceClock: "The test campaign's clock after the move: its time now, and how far ahead of the real time",
  grantAccess: 'Who was let in by this call, and the emails that named nobody',
  redeemReward: 'The participant after the redemption, with the balances it left',
  setPayoutMethod: "The participant's payout method after the change",
  createPayouts: "The run's payouts, and who was skipped and why",
  approvePayouts: 'The payouts named, as they are after the approval',
  cancelPayouts: 'The payouts named, as they are after the cancellation',
  listPayouts: "A page of the campaign's cash payouts, newest first",
  approveParticipant: 'The participant, approved',
  rejectParticipant: 'The participant, rejected',
  resolveFraudCase: 'The fraud case, decided: approved or rejected, with who decided and when',
  setReferralCode: 'The participant with the code they asked for (the old one keeps working)',
  matchPaymentEvent: 'The payment event, applied to the participant',
  setExchangeRates: 'The rates as set, and how many held events they converted and applied',
  setMyReferralCode: 'The participant, as getMyReferrals shows them, with the code they chose',
  portalSetReferralCode: 'The signed-in participant with the code they chose',
  searchParticipants: 'A page of the participants that match, and the cursor of the next page',
  importParticipants: 'How many participants were created, and how many rows were skipped',
  createApiKey: 'The new secret key: `key` is in this answer only',
  getSigningSecret: "The campaign's email-signing secret",
  rotateSigningSecret: "The campaign's new email-signing secret",
  revokeParticipantTokens: 'How many participant tokens were revoked',
  erasePerson: 'When, and which participants were erased (none when nobody had the address)',
  authSignIn: "The signed-in owner, the session's CSRF token and when the session expires (its cookie is set)",
  authAcceptInvitation: "The new member, signed in: the session's CSRF token and when it expires",
  authChangePassword: 'Done, with how many other sessions ended',
  authSignOutEverywhere: 'Done, with how many sessions ended',
  refundPayment: 'The referee after the refund',
  backtestRules: 'Month by month and in total, what the current and the proposed rules would have cost, and what the replay could not know',
  disputePayment: 'The dispute, open',
  closeDispute: 'The dispute, closed: won or lost',
  receiveStripeEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  receivePaddleEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  receiveLemonSqueezyEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  receiveShopifyEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  receiveChargebeeEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  receiveSegmentEvent: 'Received: what became of the event (outcome), with the reason when it was held or ignored',
  matchStripeEvent: 'The Stripe event, applied to the participant',
  retryStripePayout: 'The payout, to be sent again',
  addRewardCodes: 'How many codes were added, skipped as duplicates and given to credits that waited, and the pool after',
  importRewardCodes: 'How many codes were added, skipped as duplicates and given to credits that waited, and the pool after',
  createWebhookEndpoint: 'The new endpoint, with its signing secret (in this answer only)',
  updateEmailSettings: "The campaign's lifecycle email settings and texts after the change",
  putEmailText: "The campaign's lifecycle email settings and texts after the change",
  resetEmailText: "The campaign's lifecycle email settings and texts after the change",
  previewEmail: 'The rendered email: its subject, HTML and text',
  inviteMember: 'The new invitation',
  revokeInvitation: 'The invitation, revoked',
  changeMemberRole: 'The member, with the new role',
  removeMember: 'Who was removed, and the secret keys they made as they are now',
  updateAccountSettings: "The account's retention periods after the change, and the defaults",
};

/** A read's answer, from its summary: `List the participants of a campaign` names `The participants of a campaign`. */
const fromSummary = (summary: string) => upperFirst(summary.replace(/^(List|Read) /, ''));

const isOk = (schema: Json | undefined) => schema?.type === 'object' && Object.keys(schema.properties ?? {}).join() === 'ok';

function answerName(method: string, op: Json): string | undefined {
  const answer = op.responses?.['200'] as Json | undefined;
  if (!answer) return undefined;
  if (answer.description && answer.description !== 'Default Response') return answer.description;
  const schema = (Object.values(answer.content ?? {})[0] as Json | undefined)?.schema as Json | undefined;
  if (ANSWERS[op.operationId]) return ANSWERS[op.operationId];
  if (method === 'get' && op.summary) return fromSummary(op.summary);
  if (isOk(schema)) return 'Done: {"ok":true}';
  return undefined;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The response headers the document declares once, in components.headers. */
export const SHARED_HEADERS: Json = {
  'Request-Id': {
    description:
      "This request's id, also in each of its log lines (reqId): the caller's Request-Id (or X-Request-Id) when it is 1 to 128 letters, digits, " +
      '`.`, `_`, `:` or `-`, else a new UUID. Quote it when reporting a problem.',
    schema: { type: 'string', maxLength: 128 },
  },
  Link: {
    description: 'The next page, when there is one: `<...&cursor=...>; rel="next"` (the same query with the next cursor). Absent on the last page.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before sending the request again', schema: { type: 'integer', minimum: 0 } },
};

/** The Standard Webhooks headers of every webhook request (docs/webhooks.md), in components.parameters. */
const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
export const WEBHOOK_PARAMETERS: Json = {
  'webhook-id': header('webhook-id', 'The event id: the same on every attempt (dedupe on it)'),
  'webhook-timestamp': header('webhook-timestamp', 'When this attempt was signed, in epoch seconds'),
  'webhook-signature': header('webhook-signature', "`v1,<base64 HMAC-SHA256>` with the endpoint's signing secret (whsec_...), per Standard Webhooks"),
};

/** When each event is sent (docs/webhooks.md says more). */
const SENT_WHEN: Record<WebhookEventType, string> = {
  referrer_added: 'addParticipant created a participant with no referrer',
  referee_added: 'addParticipant created a participant with a referrer',
  reward_unlocked: 'A credit became available (a referral, a commission or a milestone; after the hold, with holdDays); carries rewardCode(s) when it took codes',
  milestone_reached: "A referrer's credited referrals reached one of the campaign's milestones",
  reward_reversed: 'A credit was cancelled or reversed by a refund or a dispute',
  reward_codes_low: "One of the campaign's reward code pools fell below its rewardCodesLowThreshold",
  access_granted: "grantAccess let the participant in from the campaign's waitlist",
  participant_erased: 'erasePerson erased the participant: one event per campaign the address had joined',
  dispute_opened: "A payment of the participant was disputed; data.dispute is the dispute",
  dispute_closed: 'The dispute closed, won or lost; data.dispute.status says which',
  payout_sent: 'A cash payout was taken by PayPal or Stripe; data.payout is the payout',
  payout_paid: 'A cash payout was paid (and redeemed from the balance); data.payout is the payout',
  payout_failed: 'A cash payout failed, was returned or went unclaimed (its amount is back on the balance); data.payout.reason says why',
};

/** The body of one event type: the participant events' shape with its type fixed, or the two of their own. */
function eventBody(type: WebhookEventType): TSchema {
  if (type === 'reward_codes_low') return RewardCodesLowEvent;
  if (type === 'participant_erased') return ParticipantErasedEvent;
  return { ...WebhookEvent, properties: { ...WebhookEvent.properties, eventType: Type.Literal(type) } };
}

const camel = (type: string) => type.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());

/** The 3.1 `webhooks` map: one POST per event type, as the service sends it to an endpoint that selected the type. */
function webhooks(): Json {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${camel(type)}Webhook`,
          tags: ['events'],
          summary: `${type}: ${SENT_WHEN[type]}`,
          description: 'Sent to each endpoint that selected this type (createWebhookEndpoint), signed per Standard Webhooks; verify the raw body before trusting it.',
          security: [],
          parameters: Object.keys(WEBHOOK_PARAMETERS).map((name) => ref('parameters', name)),
          requestBody: { required: true, content: { 'application/json': { schema: eventBody(type) } } },
          responses: {
            '2XX': { description: 'Received: the delivery is done' },
            '4XX': { description: 'Refused (a signature that does not verify, say): retried as any other answer but a 2xx, or none within 10 s, is, then marked failed' },
          },
        },
      },
    ]),
  );
}

/** The finishing of ./openapi.ts's document (its transformObject); throws when two operations share an id. */
/** What each refusal status means (and its name in components.responses), for the refusals that answer the plain error envelope. */
const REFUSALS: Record<string, [name: string, description: string]> = {
  '400': ['BadRequest', 'Refused: malformed, or against a rule (error.field names the field or parameter)'],
  '401': ['Unauthorized', 'No valid secret key, session or proof'],
  '403': ['Forbidden', 'Not allowed for this caller (its role, origin or CSRF token, or the campaign refuses it)'],
  '404': ['NotFound', 'Not found'],
  '409': ['Conflict', 'In conflict with the current state (or the same Idempotency-Key still in flight)'],
  '413': ['PayloadTooLarge', 'Too large'],
  '429': ['TooManyRequests', 'Too many requests: retry after Retry-After seconds'],
  '502': ['BadGateway', 'A provider the service called did not answer as it should'],
  '503': ['ServiceUnavailable', 'Unavailable for now (the database): retry after Retry-After seconds'],
};

/**
 * The plain error envelope and its refusals, named once in components: an operation's refusal that answers
 * it is a reference to the refusal of its status, instead of spelling the envelope, its headers and
 * "Default Response" again (they were four tenths of the document, and of the types generated from it).
 * A refusal with more (an import's rows) keeps its own schema.
 */
function nameRefusals(doc: Json): void {
  doc.components ??= {};
  const envelope = stableStringify(ApiErrorBody);
  const responses: Json = {};
  for (const { op } of operationsOf(doc)) {
    for (const [status, answer] of Object.entries(op.responses as Json)) {
      const json = (answer as Json).content?.['application/json'];
      const refusal = REFUSALS[status];
      if (!refusal || !json || stableStringify(json.schema) !== envelope) continue;
      const [name, description] = refusal;
      responses[name] ??= { description, headers: answer.headers, content: { 'application/json': { schema: ref('schemas', 'Error') } } };
      op.responses[status] = ref('responses', name);
    }
  }
  doc.components.schemas = { ...doc.components.schemas, Error: { ...JSON.parse(envelope), description: 'A refusal: {"error":{"code","message","field?"}}' } };
  doc.components.responses = { ...doc.components.responses, ...responses };
}

export function finishDocument(doc: Json): Json {
  const ops = operationsOf(doc);
  for (const { method, path, op } of ops) {
    op.operationId ??= operationIdOf(method, path, Object.keys(doc.paths[path]).filter((m) => METHODS.includes(m)).length);
    // A route that declares no security is public: said, so that no client (or linter) reads it as unknown.
    op.security ??= [];
    const name = answerName(method, op);
    if (name) op.responses['200'].description = name;
    const paged = (op.parameters as Json[] | undefined)?.filter((p) => p.in === 'query' && (p.name === 'page' || p.name === 'cursor')).length === 2;
    for (const [status, answer] of Object.entries(op.responses as Json)) {
      answer.headers = {
        ...answer.headers,
        'Request-Id': ref('headers', 'Request-Id'),
        ...(status === '200' && paged && { Link: ref('headers', 'Link') }),
        ...((status === '429' || status === '503') && { 'Retry-After': ref('headers', 'Retry-After') }),
      };
    }
  }
  nameRefusals(doc);
  doc.webhooks = webhooks();
  const problems = operationIdProblems(doc);
  if (problems.length > 0) throw new Error(`The OpenAPI document's operationIds: ${problems.join('; ')}`);
  return doc;
}
