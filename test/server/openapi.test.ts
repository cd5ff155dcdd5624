/**
 * The OpenAPI document as clients are generated from it (src/server/http/openapi-document.ts): Redocly's
 * recommended lint finds no error in it; every operation has a unique operationId derived from its path,
 * a security requirement (none on the public routes) and a named 200 answer; Request-Id on every answer,
 * Link on the paged lists, the Stripe receiver's body, and the webhook events as `webhooks`. And the
 * Request-Id itself: on every answer and in the request's log records. The docs page's rendering and axe
 * are test/e2e/security-headers.test.ts's. And the wire contract generated from it (scripts/api-contract.ts):
 * the committed packages/node/src files are what the served document makes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import { finishDocument, operationIdOf, operationIdProblems } from '../../src/server/http/openapi-document.js';
import { DOCS_CSP } from '../../src/server/http/security-headers.js';
import { openRuntime } from '../../src/server/runtime.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/api/schemas.js';
import { contractFiles, secretKeyOperations } from '../../scripts/api-contract.js';
import { databaseKinds } from './helpers/databases.js';
import { ROOT } from './helpers/root.js';
import { startService, type TestService } from './helpers/service.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is walked as plain JSON */
type Json = Record<string, any>;

const PUBLIC_URL = 'https://referrals.shop.example';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every operation of the document's paths, by operationId. */
const byId = (doc: Json) => new Map(Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => [op.operationId as string, { method, path, op: op as Json }])));

describe('the OpenAPI document', () => {
  let s: TestService;
  let doc: Json;
  before(async () => {
    const [sqlite] = await databaseKinds();
    // Demo mode and metrics on: their routes (/demo/, /metrics) are there, and must stay out of the document.
    s = await startService(sqlite!, { publicUrl: PUBLIC_URL, demo: true, metrics: { token: 'metrics-token' } });
    const res = await fetch(`${s.url}/api/openapi.json`);
    assert.equal(res.status, 200);
    doc = (await res.json()) as Json;
  });
  after(() => s?.close());

  it("passes Redocly's recommended lint with no error, and no warning but the health routes' (they refuse nothing)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      // execFile rejects on a non-zero exit: the lint's exit code is checked by getting here.
      const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--extends', 'recommended', '--format', 'json', file], { env, maxBuffer: 16 * 1024 * 1024 });
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; location: { pointer: string }[] }[] };
      const found = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}`);
      assert.equal(report.totals.errors, 0, found.join('\n'));
      assert.deepEqual(found.sort(), ['warn operation-4xx-response #/paths/~1healthz/get/responses', 'warn operation-4xx-response #/paths/~1readyz/get/responses']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is what the committed wire contract was generated from (packages/node/src: npm run api:generate)', async () => {
    for (const [path, text] of Object.entries(await contractFiles(doc))) {
      // Not assert.equal on the texts: a failure would print both files (about 800 KB).
      const committed = readFileSync(join(ROOT, path), 'utf8');
      const line = committed.split('\n').findIndex((l, i) => l !== text.split('\n')[i]);
      assert.ok(committed === text, `${path} differs from what the served document makes, from line ${line + 1}: run npm run api:generate`);
    }
  });

  it("gives a secret key's client every keyed operation and the public ones a backend calls, none of a browser's, a participant's or a provider's", () => {
    const table = secretKeyOperations(doc);
    const ids = Object.keys(table);
    for (const id of ['addParticipant', 'getCampaign', 'validateCode', 'qualifyParticipant', 'createCampaign', 'getAllParticipants', 'importParticipants']) assert.ok(ids.includes(id), id);
    for (const id of ['getMyReferrals', 'verifyEmail', 'authSignIn', 'portalMe', 'receiveStripeEvent', 'healthz']) assert.ok(!ids.includes(id), id);
    assert.deepEqual(table.getAllParticipants, { method: 'GET', path: '/api/v1/getAllParticipants', query: ['id', 'page', 'pageSize', 'cursor'], idempotent: false, paged: true, body: 'none', answer: 'json' });
    assert.equal(table.qualifyParticipant!.idempotent, true);
    assert.equal(table.importParticipants!.body, 'csv');
    assert.equal(table.exportParticipants!.answer, 'text');
  });

  it('is OpenAPI 3.1 with the public URL as its server, and lists no route outside the API (docs, demo, metrics, assets)', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers.map((server: Json) => server.url), [PUBLIC_URL]);
    const paths = Object.keys(doc.paths);
    assert.deepEqual(paths.filter((p) => !p.startsWith('/api/v1/')).sort(), ['/email/unsubscribe', '/healthz', '/readyz']);
  });

  it('gives every operation a unique operationId, derived from its path', () => {
    assert.deepEqual(operationIdProblems(doc), []);
    const ops = byId(doc);
    const expected: Record<string, string> = {
      addParticipant: 'post /api/v1/addParticipant',
      getAllParticipants: 'get /api/v1/getAllParticipants',
      createCampaign: 'post /api/v1/admin/createCampaign',
      listRewardEntries: 'get /api/v1/admin/listRewardEntries',
      authSignIn: 'post /api/v1/auth/signIn',
      authSignOut: 'post /api/v1/auth/signOut',
      signOut: 'post /api/v1/signOut',
      receiveStripeEvent: 'post /api/v1/integrations/stripe/{campaignId}',
      unsubscribe: 'post /email/unsubscribe',
      getUnsubscribe: 'get /email/unsubscribe',
      healthz: 'get /healthz',
      readyz: 'get /readyz',
    };
    for (const [id, where] of Object.entries(expected)) assert.equal(`${ops.get(id)?.method} ${ops.get(id)?.path}`, where, id);
    // Namespaces and receivers to come take the same rule.
    assert.equal(operationIdOf('post', '/api/v1/portal/signIn', 1), 'portalSignIn');
    assert.equal(operationIdOf('get', '/api/v1/portal/me', 1), 'portalMe');
    assert.equal(operationIdOf('post', '/api/v1/integrations/stripe-connect/{campaignId}', 1), 'receiveStripeConnectEvent');
  });

  it('refuses a document where two operations share an id, or one has none', () => {
    const answer = { responses: { 200: { description: 'x' } } };
    const twice = { paths: { '/api/v1/getThing': { get: { ...structuredClone(answer) } }, '/api/v1/admin/getThing': { get: { ...structuredClone(answer) } } } };
    assert.throws(() => finishDocument(twice), /GET \/api\/v1\/admin\/getThing and GET \/api\/v1\/getThing share the operationId getThing/);
    assert.deepEqual(operationIdProblems({ paths: { '/x': { get: {} } } }), ['GET /x has no operationId']);
  });

  it('says how each operation is called: no security on the public routes, a key or a session on the rest', () => {
    const ops = byId(doc);
    const open = [...ops].filter(([, { op }]) => Array.isArray(op.security) && op.security.length === 0).map(([id]) => id);
    assert.deepEqual(open.sort(), [
      'addParticipant', 'authAcceptInvitation', 'authSignIn', 'getCampaign', 'getLeaderboard', 'getMyReferrals', 'getPromotionCode', 'getUnsubscribe', 'getWidgetSettings',
      'healthz', 'portalSignIn', 'portalVerify', 'readyz', 'receiveChargebeeEvent', 'receiveLemonSqueezyEvent', 'receivePaddleEvent', 'receivePayPalEvent', 'receiveSegmentEvent', 'receiveShopifyEvent', 'receiveStripeConnectEvent', 'receiveStripeEvent', 'setMyReferralCode', 'signOut', 'unsubscribe', 'validateCode', 'verifyEmail',
    ]);
    for (const [id, { op }] of ops) assert.ok(Array.isArray(op.security), `${id} has security`);
    assert.deepEqual(ops.get('getParticipant')!.op.security, [{ bearerAuth: [] }]);
    assert.deepEqual(ops.get('createCampaign')!.op.security, [{ bearerAuth: [] }, { sessionCookie: [] }]);
    assert.deepEqual(ops.get('portalMe')!.op.security, [{ portalCookie: [] }]);
  });

  it('names every 200 answer, and declares Request-Id on every answer, Link on the paged lists, Retry-After on 429 and 503', () => {
    const unnamed: string[] = [];
    const paged: string[] = [];
    for (const [id, { op }] of byId(doc)) {
      for (const [status, given] of Object.entries(op.responses as Json)) {
        // A refusal that answers the plain envelope is a reference to the one of its status (components.responses).
        const answer = given.$ref ? doc.components.responses[given.$ref.replace('#/components/responses/', '')] : given;
        assert.deepEqual(answer.headers['Request-Id'], { $ref: '#/components/headers/Request-Id' }, `${id} ${status}`);
        if (status === '429' || status === '503') assert.ok(answer.headers['Retry-After'], `${id} ${status} Retry-After`);
      }
      // portalSignIn answers 202 (sent, or not: it never says).
      const ok = op.responses['200'] ?? op.responses['202'];
      if (!ok.description || ok.description === 'Default Response') unnamed.push(id);
      if (ok.headers.Link) paged.push(id);
    }
    assert.deepEqual(unnamed, [], 'name these answers in ANSWERS (src/server/http/openapi-document.ts), or give their schema a description');
    assert.deepEqual(paged.sort(), ['getAllParticipants', 'getReferrals', 'listAuditLog', 'listPayouts', 'listRewardEntries', 'listStripePayouts']);
    assert.match(doc.components.headers['Request-Id'].description, /log/);
    assert.equal(byId(doc).get('getCampaign')!.op.responses['200'].description, 'A campaign');
  });

  it('names the refusals once: the error envelope in components, each status a named response with what it means', () => {
    assert.deepEqual(doc.components.schemas.Error.required, ['error']);
    const refusals = doc.components.responses as Json;
    assert.deepEqual(Object.keys(refusals).sort(), ['BadGateway', 'BadRequest', 'Conflict', 'Forbidden', 'NotFound', 'PayloadTooLarge', 'ServiceUnavailable', 'TooManyRequests', 'Unauthorized']);
    for (const [name, r] of Object.entries(refusals)) {
      assert.deepEqual(r.content['application/json'].schema, { $ref: '#/components/schemas/Error' }, name);
      assert.notEqual(r.description, 'Default Response', name);
    }
    const add = byId(doc).get('addParticipant')!.op.responses;
    assert.deepEqual(add['400'], { $ref: '#/components/responses/BadRequest' });
    // An import's refusal lists its rows: its own schema, not the envelope's.
    assert.ok(byId(doc).get('importParticipants')!.op.responses['400'].content['application/json'].schema.properties.error.properties.rows);
  });

  it("documents the Stripe receiver's body: a Stripe Event", () => {
    const body = byId(doc).get('receiveStripeEvent')!.op.requestBody.content['application/json'].schema;
    for (const field of ['id', 'type', 'created', 'livemode', 'data']) assert.ok(body.required.includes(field), field);
    assert.deepEqual(body.properties.object.enum, ['event']);
    assert.ok(body.properties.data.properties.object.properties.currency);
  });

  it('lists each webhook event the service sends in `webhooks`, with its body', () => {
    assert.deepEqual(Object.keys(doc.webhooks), [...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      const body = post.requestBody.content['application/json'].schema;
      const eventType = body.properties.eventType;
      assert.deepEqual(eventType.const ?? eventType.enum?.[0], type, type);
      assert.ok(body.properties.data, type);
      assert.deepEqual(post.parameters.map((p: Json) => p.$ref), ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => `#/components/parameters/${h}`));
    }
    assert.ok(doc.webhooks.participant_erased.post.requestBody.content['application/json'].schema.properties.livemode, "a test campaign's erasure says livemode: false too");
  });

  it('answers every request with its Request-Id: a new UUID, or the caller\'s own when well formed', async () => {
    const id = await s.campaign();
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${s.url}${path}`, { headers });
      await res.arrayBuffer();
      return res.headers.get('request-id');
    };
    const ids = [await get(`/api/v1/getCampaign?id=${id}`), await get(`/api/v1/getCampaign?id=${id}`)];
    for (const one of ids) assert.match(one ?? '', UUID);
    assert.notEqual(ids[0], ids[1]);
    assert.equal(await get('/healthz', { 'request-id': 'req_7f3a:9.B-x' }), 'req_7f3a:9.B-x');
    assert.equal(await get('/healthz', { 'x-request-id': 'b1c2d3' }), 'b1c2d3');
    for (const bad of ['two words', 'x'.repeat(129), 'a"b', 'ä']) assert.match((await get('/healthz', { 'request-id': bad })) ?? '', UUID, bad);
    // Refusals too: no route, a bad key, a path that is no valid percent-encoding (refused before any hook).
    assert.match((await get('/api/v1/nope')) ?? '', UUID);
    assert.match((await get(`/api/v1/getParticipant?id=${id}&email=a@example.com`, { authorization: 'Bearer sk_wrong' })) ?? '', UUID);
    assert.match((await get('/api/v1/%zz')) ?? '', UUID);
  });

  it('serves the docs page (Redoc, from the installed package) under its CSP', async () => {
    for (const path of ['/api/docs', '/api/docs/']) {
      const res = await fetch(`${s.url}${path}`);
      const html = await res.text();
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-security-policy'), DOCS_CSP);
      const bundle = /<script src="(\/api\/docs\/redoc-[\d.]+\.js)">/.exec(html)?.[1];
      assert.ok(bundle, html);
      const script = await fetch(`${s.url}${bundle}`);
      assert.match(script.headers.get('content-type')!, /javascript/);
      assert.match(script.headers.get('cache-control')!, /immutable/);
      assert.doesNotMatch(await script.text(), /cdn\.redoc\.ly/, 'nothing loaded from Redocly');
    }
    assert.match(await (await fetch(`${s.url}/api/docs/docs.js`)).text(), /Redoc\.init\(/);
  });
});

describe('the Request-Id in the log', () => {
  it("is each request's reqId, on its log records", async () => {
    const [sqlite] = await databaseKinds();
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const database = await sqlite!.create();
    const runtime = await openRuntime({ databaseUrl: database.url });
    const app = await buildApp({ ctx: runtime.ctx, config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'info', webhookAllowPrivate: true }, logger: { stream } });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/getCampaign?id=none', headers: { 'x-request-id': 'log-check-1' } });
      assert.equal(res.headers['request-id'], 'log-check-1');
      const records = lines.flatMap((l) => l.split('\n')).filter(Boolean).map((l) => JSON.parse(l) as { reqId?: string; msg: string });
      assert.deepEqual(records.filter((r) => r.reqId === 'log-check-1').map((r) => r.msg), ['incoming request', 'request completed']);
    } finally {
      await app.close();
      await runtime.close();
      await database.drop();
    }
  });
});
