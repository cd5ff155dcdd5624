/**
 * @refkit/node as users get it: the built workspace packed and installed into a fresh project (one
 * install for the file), then
 *   - a user's script run with plain `node` against a real service (SQLite, a webhook dispatcher): a
 *     referral, a typed error, a CSV import (and its refusal) and export, a paged list walked across pages
 *     with `for await`, and a webhook the service delivered, verified (and a tampered copy refused);
 *   - the retries, timeouts, aborts and paging against a stand-in server on loopback that answers as each
 *     case needs (the installed package imported here, so that each try can be counted and its headers read);
 *   - a TypeScript file in the project compiled with the repository's tsc (strict, NodeNext): wrong fields
 *     and types are compile errors (`@ts-expect-error` lines, so the check fails when the types stop
 *     catching them), and answers are typed.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { databaseKinds } from '../server/helpers/databases.js';
import { startReceiver, waitFor, type Receiver } from '../server/helpers/receiver.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { ROOT, freshProject, type Project } from './helpers/project.js';

type Sdk = typeof import('../../packages/node/src/index.js');

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'packages/node/package.json'), 'utf8')) as { version: string }).version;

/** What a user writes: the README's referral, an error, a CSV round trip and a paged list. */
const REFERRAL_SCRIPT = `
import { Refkit, RefkitError } from '@refkit/node';

const refkit = new Refkit({ apiKey: process.env.REFKIT_SECRET_KEY, baseUrl: process.env.REFKIT_URL });
const out = {};

const endpoint = await refkit.createWebhookEndpoint({ url: process.env.HOOK_URL, eventTypes: ['referee_added'] });
out.webhookSecret = endpoint.secret;

const { campaignId } = await refkit.createCampaign({ campaignName: 'Launch', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5 });
const referrer = await refkit.addParticipant({ id: campaignId, email: 'ada@example.com', firstName: 'Ada' });
const friend = await refkit.addParticipant({ id: campaignId, email: 'grace@example.com', referredByCode: referrer.referralCode });
const qualified = await refkit.qualifyParticipant({ id: campaignId, email: 'grace@example.com' });
const after = await refkit.getParticipant({ id: campaignId, email: 'ada@example.com' });
out.referral = { code: referrer.referralCode, friendReferredBy: friend.referredByCode, qualified: qualified.rewardEventCompleted, referrerTotal: after.totalReferrals };

const caught = async (call) => {
  try {
    await call();
    return 'no error';
  } catch (e) {
    return { isRefkitError: e instanceof RefkitError, name: e.name, status: e.status, code: e.code, field: e.field, requestId: e.requestId, message: e.message, body: e.body };
  }
};
out.error = await caught(() => refkit.addParticipant({ id: campaignId, email: 'not-an-email' }));

out.imported = await refkit.importParticipants({ id: campaignId, csv: 'email,firstName\\nc1@example.com,C1\\nc2@example.com,C2\\nc3@example.com,C3\\n' });
out.importRefused = await caught(() => refkit.importParticipants({ id: campaignId, csv: 'email\\nnot-an-email\\n' }));
out.exported = await refkit.exportParticipants({ id: campaignId });

// The fetch option: the same client, counting what it asks for.
const asked = [];
const counting = new Refkit({ apiKey: process.env.REFKIT_SECRET_KEY, baseUrl: process.env.REFKIT_URL, fetch: (url, init) => (asked.push(String(url)), fetch(url, init)) });
const list = counting.getAllParticipants({ id: campaignId, pageSize: 2 });
out.firstPage = (await list).map((p) => p.email);
out.everyone = [];
for await (const p of list) out.everyone.push(p.email);
out.pagesAsked = asked.map((u) => new URL(u).searchParams.get('cursor') ? 'cursor' : 'first');

console.log(JSON.stringify(out));
`;

/** The user's webhook handler's core: the raw body, the headers as node:http gives them, the secret. */
const VERIFY_SCRIPT = `
import { readFileSync } from 'node:fs';
import { RefkitError, WebhookVerificationError, verifyWebhook } from '@refkit/node';

const { body, headers, secret } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const event = verifyWebhook(body, headers, secret);
const fromBuffer = verifyWebhook(Buffer.from(body), new Headers(headers), secret);
const refused = (payload, h = headers) => {
  try {
    verifyWebhook(payload, h, secret);
    return 'verified';
  } catch (e) {
    return { isRefkitError: e instanceof RefkitError, isVerificationError: e instanceof WebhookVerificationError, code: e.code, message: e.message };
  }
};
console.log(JSON.stringify({
  eventType: event.eventType,
  email: event.data.email,
  referredByCode: event.data.referredByCode,
  sameFromBufferAndHeaders: JSON.stringify(fromBuffer) === JSON.stringify(event),
  tampered: refused(body.replace('grace@example.com', 'mallory@example.com')),
  parsedNotRaw: refused(JSON.parse(body)),
  unsigned: refused(body, { ...headers, 'webhook-signature': undefined }),
}));
`;

/** Compiled, not run: what the types let through and what they refuse. */
const TYPES_CHECK = `
import type { IncomingHttpHeaders } from 'node:http';
import { Refkit, RefkitError, verifyWebhook, type Params, type WebhookEvent } from '@refkit/node';

// @ts-expect-error the secret key is required
new Refkit({ baseUrl: 'http://localhost:8787' });
const refkit = new Refkit({ apiKey: 'sk', baseUrl: 'http://localhost:8787' });

export async function referral(): Promise<string | undefined> {
  const campaign = await refkit.createCampaign({ campaignName: 'Launch', hostURL: 'https://shop.example/join', referrerRewardValue: 10 });
  const id: string = campaign.campaignId!;
  const referrer = await refkit.addParticipant({ id, email: 'ada@example.com' });
  const code: string | undefined = referrer.referralCode;
  // @ts-expect-error answers are typed: a referral code is a string
  const wrong: number = referrer.referralCode;
  // @ts-expect-error a misspelt field
  await refkit.addParticipant({ id, emial: 'grace@example.com' });
  // @ts-expect-error a field of the wrong type
  await refkit.addParticipant({ id, email: 42 });
  // @ts-expect-error a required field left out
  await refkit.addParticipant({ id });
  // @ts-expect-error no such operation
  await refkit.addParticipants({ id, email: 'grace@example.com' });
  await refkit.addParticipant({ id, email: 'grace@example.com', referredByCode: code }, { idempotencyKey: 'signup-42', headers: { 'refkit-locale': 'de' } });
  const qualified = await refkit.qualifyParticipant({ id, email: 'grace@example.com', amountPaid: '19.90' });
  const done: boolean | undefined = qualified.rewardEventCompleted;

  // Operations without a required field take no argument; one without any field refuses one.
  const campaigns = await refkit.listCampaigns();
  // @ts-expect-error listCampaigns has no fields
  await refkit.listCampaigns({ nope: 1 });

  const csv: string = await refkit.exportParticipants({ id });
  // @ts-expect-error an upload needs its csv
  await refkit.importParticipants({ id });
  const { created }: { created: number } = await refkit.importParticipants({ id, csv: 'email\\nx@example.com\\n' });

  const firstPage = await refkit.getAllParticipants({ id, pageSize: 10 });
  const n: number = firstPage.length;
  for await (const p of refkit.getAllParticipants({ id })) {
    const email: string | undefined = p.email;
    // @ts-expect-error items are typed
    const no: number = p.email;
  }
  // @ts-expect-error pageSize is a number
  refkit.getAllParticipants({ id, pageSize: '10' });
  type AddParams = Params<'addParticipant'>;
  const params: AddParams = { id, email: 'x@example.com' };

  try {
    await refkit.getCampaign({ id });
  } catch (e) {
    if (e instanceof RefkitError) {
      const status: number = e.status;
      const errorCode: string = e.code;
      const field: string | undefined = e.field;
      const requestId: string | undefined = e.requestId;
    }
  }
  return code ?? String(done) + campaigns.length + csv + created + n + String(wrong) + params.email;
}

export function handle(raw: Buffer, headers: IncomingHttpHeaders): string {
  const event: WebhookEvent = verifyWebhook(raw, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  if (event.eventType === 'referee_added') return event.data.email;
  // @ts-expect-error not an event type
  if (event.eventType === 'referee_addded') return '';
  verifyWebhook('{}', new Headers(), 'whsec_x');
  return event.eventType;
}
`;

const TSCONFIG = {
  compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2023'], types: ['node'], noEmit: true, skipLibCheck: true },
  include: ['types-check.ts'],
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | 'reset' | 'hang';

/** A stand-in for the service: records each request and answers the n-th (1-based) as `reply` says. */
async function standIn(reply: (n: number, req: Seen) => Reply) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      const answer = reply(seen.length, request);
      if (answer === 'reset') return req.socket.destroy();
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req-${seen.length}`, ...answer.headers });
      res.end(answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const envelope = (code: string, message: string, field?: string) => ({ error: { code, message, ...(field && { field }) } });
const PARTICIPANT = { email: 'ada@example.com', referralCode: 'ADA1' };

describe('@refkit/node, installed from its tarball', { concurrency: 1 }, () => {
  let project: Project;
  let service: TestService;
  let receiver: Receiver;
  let sdk: Sdk;
  /** The signing secret of the endpoint the referral script made. */
  let webhookSecret: string | undefined;
  const started = Date.now();

  before(async () => {
    const sqlite = (await databaseKinds()).find((k) => k.name === 'sqlite')!;
    receiver = await startReceiver();
    [project, service] = await Promise.all([
      freshProject(['node'], ['@types/node']),
      startService(sqlite, { dispatcher: { retryDelaysMs: [100, 100], timeoutMs: 500, pollMs: 50, leaseMs: 3_000 } }),
    ]);
    sdk = (await import(pathToFileURL(join(project.dir, 'node_modules/@refkit/node/dist/index.js')).href)) as Sdk;
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
    project?.remove();
    console.log(`# node-sdk.test.ts: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('a referral, a typed error, a CSV import and export and a paged list, from a plain node script', async () => {
    writeFileSync(join(project.dir, 'referral.mjs'), REFERRAL_SCRIPT);
    const { stdout } = await project.exec('node', ['referral.mjs'], { REFKIT_URL: service.url, REFKIT_SECRET_KEY: service.secretKey, HOOK_URL: receiver.url });
    const out = JSON.parse(stdout);
    webhookSecret = out.webhookSecret;

    assert.match(out.referral.code, /^\S+$/);
    assert.equal(out.referral.friendReferredBy, out.referral.code);
    assert.equal(out.referral.qualified, true);
    assert.equal(out.referral.referrerTotal, 1);

    const { error } = out;
    assert.deepEqual({ ...error, message: undefined, requestId: undefined, body: undefined }, { isRefkitError: true, name: 'RefkitError', status: 400, code: 'invalid_request', field: 'email', message: undefined, requestId: undefined, body: undefined });
    assert.ok(error.message);
    assert.match(error.requestId, /^[\w.:-]{1,128}$/);
    assert.deepEqual(error.body.error.code, 'invalid_request');

    assert.deepEqual(out.imported, { created: 3, skipped: 0 });
    assert.equal(out.importRefused.status, 400);
    assert.equal(out.importRefused.body.error.rows[0].line, 2, JSON.stringify(out.importRefused));
    assert.match(out.exported, /^.*email.*\r?\n/);
    assert.match(out.exported, /c3@example\.com/);

    // Five participants two by two: three pages, the first one asked for once though awaited and iterated.
    assert.deepEqual(out.firstPage, ['ada@example.com', 'grace@example.com']);
    assert.deepEqual(out.everyone, ['ada@example.com', 'grace@example.com', 'c1@example.com', 'c2@example.com', 'c3@example.com']);
    assert.deepEqual(out.pagesAsked.slice(0, 3), ['first', 'cursor', 'cursor']);
  });

  it("the README's client, referral and error examples run as written", async () => {
    const readme = readFileSync(join(ROOT, 'packages/node/README.md'), 'utf8');
    const example = (heading: string) => {
      const section = readme.split(`\n## ${heading}\n`)[1]!.split('\n## ')[0]!;
      return /```js\n([\s\S]*?)```/.exec(section)![1]!;
    };
    const script = [example('Create the client').replace("'https://refkit.example.com'", 'process.env.REFKIT_URL'), example('A referral'), example('Errors')].join('\n');
    // The error example reads the error's fields; print them to see it ran to there.
    writeFileSync(join(project.dir, 'readme.mjs'), script.replace('error.retryAfter;', 'error.retryAfter;\n  console.log(JSON.stringify({ status: error.status, field: error.field }));'));
    const { stdout } = await project.exec('node', ['readme.mjs'], { REFKIT_URL: service.url, REFKIT_SECRET_KEY: service.secretKey });
    assert.deepEqual(stdout.trim().split('\n'), ['true', JSON.stringify({ status: 400, field: 'email' })]);
  });

  it("the project README's backend example runs as written, on a campaign of its own in place of the demo's", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('\n## From your backend: @refkit/node\n')[1]!.split('\n## ')[0]!;
    const example = /```js\n([\s\S]*?)```/.exec(section)![1]!;
    const admin = new sdk.Refkit({ apiKey: service.secretKey, baseUrl: service.url });
    const { campaignId } = (await admin.createCampaign({ campaignName: 'Demo', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5 })) as { campaignId: string };
    writeFileSync(join(project.dir, 'backend.mjs'), example.replaceAll("'demo'", JSON.stringify(campaignId)).replace("'http://localhost:8787'", 'process.env.REFKIT_URL'));
    const { stdout } = await project.exec('node', ['backend.mjs'], { REFKIT_URL: service.url, REFKIT_SECRET_KEY: service.secretKey });
    const [dee, eve, error, ...rest] = stdout.trim().split('\n');
    assert.equal(dee, 'dee@example.com 10');
    assert.equal(eve, 'eve@example.com 0');
    assert.match(error!, /^400 invalid_request email \S+$/);
    assert.deepEqual(rest, []);
  });

  it("verifies the webhook the service delivered, from node:http's raw body and headers; refuses a tampered one", async () => {
    assert.ok(webhookSecret, 'the script before made the endpoint');
    const delivery = await waitFor(() => receiver.received.find((x) => x.body.includes('"referee_added"')), 'the referee_added delivery');
    writeFileSync(join(project.dir, 'verify.mjs'), VERIFY_SCRIPT);
    writeFileSync(join(project.dir, 'delivery.json'), JSON.stringify({ body: delivery.body, headers: delivery.headers, secret: webhookSecret }));
    const out = JSON.parse((await project.exec('node', ['verify.mjs', 'delivery.json'])).stdout);
    assert.equal(out.eventType, 'referee_added');
    assert.equal(out.email, 'grace@example.com');
    assert.ok(out.referredByCode);
    assert.equal(out.sameFromBufferAndHeaders, true);
    for (const refusal of [out.tampered, out.parsedNotRaw, out.unsigned]) {
      assert.deepEqual({ ...refusal, message: undefined }, { isRefkitError: true, isVerificationError: true, code: 'invalid_signature', message: undefined });
    }
    assert.match(out.tampered.message, /signature/i);
    assert.match(out.parsedNotRaw.message, /raw body/);
  });

  it('a TypeScript project: wrong fields and types do not compile, answers are typed', async () => {
    writeFileSync(join(project.dir, 'types-check.ts'), TYPES_CHECK);
    writeFileSync(join(project.dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    // Rejects with tsc's output when a line does not compile, or an @ts-expect-error line does.
    await project.exec(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json']);
  });

  describe('retries, timeouts and paging, against a stand-in server', () => {
    const idempotencyKeys = (seen: Seen[]) => seen.map((r) => r.headers['idempotency-key']);

    it('the options are checked when the client is made: a key, an http(s) address (default: the service\'s port)', () => {
      assert.throws(() => new sdk.Refkit({} as never), { name: 'TypeError', message: /apiKey/ });
      assert.throws(() => new sdk.Refkit({ apiKey: 'sk', baseUrl: 'localhost:8787' }), { name: 'TypeError', message: /http\(s\)/ });
      assert.equal(new sdk.Refkit({ apiKey: 'sk' }).baseUrl, 'http://localhost:8787');
      assert.equal(new sdk.Refkit({ apiKey: 'sk', baseUrl: 'https://refkit.example.com/api-gw/' }).baseUrl, 'https://refkit.example.com/api-gw');
    });

    it('429, 503 and 409 idempotency_in_progress are tried again after Retry-After, with the one Idempotency-Key of the call', async () => {
      const server = await standIn((n) =>
        // Retry-After as an HTTP date (in the past: at once), then as seconds.
        n === 1 ? { status: 429, headers: { 'retry-after': new Date(0).toUTCString() }, body: envelope('rate_limited', 'Too many requests') }
        : n === 2 ? { status: 429, headers: { 'retry-after': '1' }, body: envelope('rate_limited', 'Too many requests') }
        : n === 3 || n === 6 ? { status: 200, body: PARTICIPANT }
        : n === 4 ? { status: 503, headers: { 'retry-after': '0' }, body: envelope('service_closing', 'Closing') }
        : n === 5 ? { status: 409, headers: { 'retry-after': '0' }, body: envelope('idempotency_in_progress', 'Still running') }
        : { status: 500, body: envelope('internal', 'Not expected') },
      );
      try {
        const refkit = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: server.url });
        const t0 = Date.now();
        assert.deepEqual(await refkit.addParticipant({ id: 'c', email: 'ada@example.com' }), PARTICIPANT);
        assert.ok(Date.now() - t0 >= 950, 'Retry-After: 1 was waited');
        assert.equal(server.seen.length, 3);
        const [key] = idempotencyKeys(server.seen);
        assert.match(String(key), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.deepEqual(idempotencyKeys(server.seen), [key, key, key]);
        for (const r of server.seen) {
          assert.equal(r.headers['user-agent'], `@refkit/node/${VERSION}`);
          assert.equal(r.headers.authorization, 'Bearer sk_test');
          assert.deepEqual(JSON.parse(r.body), { id: 'c', email: 'ada@example.com' });
        }

        // A 503, then the first attempt still running (409 idempotency_in_progress), then the answer: the caller's own key on every try.
        await refkit.qualifyParticipant({ id: 'c', email: 'ada@example.com' }, { idempotencyKey: 'order-1001' });
        assert.deepEqual(idempotencyKeys(server.seen.slice(3)), ['order-1001', 'order-1001', 'order-1001']);
        assert.equal(server.seen.length, 6);
      } finally {
        await server.close();
      }
    });

    it('the retries run out; a 400 and a long Retry-After are not tried again', async () => {
      const answers: Reply[] = [
        ...Array<Reply>(3).fill({ status: 503, headers: { 'retry-after': '0' }, body: envelope('database_unavailable', 'No database') }),
        { status: 400, body: envelope('invalid_request', 'email must be an email address', 'email') },
        { status: 429, headers: { 'retry-after': '3600' }, body: envelope('rate_limited', 'Try again tomorrow', 'code') },
        { status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' },
      ];
      const server = await standIn((n) => answers[n - 1]!);
      try {
        const refkit = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: server.url });
        const call = () => refkit.addParticipant({ id: 'c', email: 'ada@example.com' });
        const unavailable = await rejection(call());
        assert.deepEqual(pick(unavailable), { status: 503, code: 'database_unavailable', field: undefined, requestId: 'req-3', retryAfter: 0 });
        assert.equal(server.seen.length, 3);

        const invalid = await rejection(call());
        assert.deepEqual(pick(invalid), { status: 400, code: 'invalid_request', field: 'email', requestId: 'req-4', retryAfter: undefined });
        assert.equal(invalid.message, 'email must be an email address');
        assert.deepEqual(invalid.body, envelope('invalid_request', 'email must be an email address', 'email'));
        assert.equal(server.seen.length, 4);

        const t0 = Date.now();
        const tomorrow = await rejection(call());
        assert.deepEqual(pick(tomorrow), { status: 429, code: 'rate_limited', field: 'code', requestId: 'req-5', retryAfter: 3600 });
        assert.ok(Date.now() - t0 < 1000, 'an hour is said, not slept');
        assert.equal(server.seen.length, 5);

        // Not the service's envelope (a proxy's page): still a RefkitError, the text kept.
        const gateway = await rejection(call());
        assert.deepEqual(pick(gateway), { status: 502, code: 'http_error', field: undefined, requestId: 'req-6', retryAfter: undefined });
        assert.equal(gateway.body, '<h1>Bad gateway</h1>');
      } finally {
        await server.close();
      }
    });

    it('no answer: tried again only when harmless (a read, an idempotent operation); a timeout; an abort', async () => {
      let reply: (n: number) => Reply = () => 'reset';
      const server = await standIn((n) => reply(n));
      try {
        // The waits between tries after no answer are backoffs, capped by maxRetryWait.
        const refkit = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: server.url, maxRetryWait: 20 });
        const failed = await rejection(refkit.addParticipant({ id: 'c', email: 'ada@example.com' }));
        assert.deepEqual(pick(failed), { status: 0, code: 'network_error', field: undefined, requestId: undefined, retryAfter: undefined });
        assert.ok(failed.cause, 'the network error is kept as the cause');
        assert.equal(server.seen.length, 3);
        assert.equal(new Set(idempotencyKeys(server.seen)).size, 1);

        await rejection(refkit.getCampaign({ id: 'c' }));
        assert.equal(server.seen.length, 6, 'a read is sent again');

        // createApiKey takes no Idempotency-Key: sent again, it could make two keys.
        const once = await rejection(refkit.createApiKey({ name: 'ci' }));
        assert.equal(once.code, 'network_error');
        assert.equal(server.seen.length, 7);
        assert.equal(server.seen[6]!.headers['idempotency-key'], undefined);

        reply = () => 'hang';
        const slow = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: server.url, timeout: 150, maxRetries: 0 });
        assert.deepEqual(pick(await rejection(slow.getCampaign({ id: 'c' }))), { status: 0, code: 'timeout', field: undefined, requestId: undefined, retryAfter: undefined });
        assert.equal(server.seen.length, 8);

        // Aborted while waiting for a Retry-After: at once, not after it.
        reply = () => ({ status: 429, headers: { 'retry-after': '20' }, body: envelope('rate_limited', 'Too many requests') });
        const patient = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: server.url });
        const t0 = Date.now();
        const aborted = await rejection(patient.getCampaign({ id: 'c' }, { signal: AbortSignal.timeout(100) }));
        assert.equal(aborted.code, 'aborted');
        assert.ok(Date.now() - t0 < 2_000);
      } finally {
        await server.close();
      }
    });

    it('paged lists follow Link on the client\'s own address; the first page is asked for once', async () => {
      const server = await standIn((_n, req) => {
        const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
        // The service writes the Link from the Host it saw: behind a proxy, an address the client cannot use.
        if (!cursor) return { status: 200, headers: { link: '<http://refkit.internal:9/api/v1/getAllParticipants?id=c&pageSize=2&cursor=p2>; rel="next"' }, body: [{ email: 'a' }, { email: 'b' }] };
        if (cursor === 'p2') return { status: 200, headers: { link: '</api/v1/getAllParticipants?id=c&pageSize=2&cursor=p3>; rel="next"' }, body: [{ email: 'c' }, { email: 'd' }] };
        return { status: 200, body: [{ email: 'e' }] };
      });
      try {
        const refkit = new sdk.Refkit({ apiKey: 'sk_test', baseUrl: `${server.url}/` });
        const list = refkit.getAllParticipants({ id: 'c', pageSize: 2 });
        assert.equal(server.seen.length, 0, 'nothing is asked before the list is used');
        assert.deepEqual((await list).map((p) => p.email), ['a', 'b']);
        const all: (string | undefined)[] = [];
        for await (const p of list) all.push(p.email);
        assert.deepEqual(all, ['a', 'b', 'c', 'd', 'e']);
        assert.deepEqual(server.seen.map((r) => r.url), [
          '/api/v1/getAllParticipants?id=c&pageSize=2',
          '/api/v1/getAllParticipants?id=c&pageSize=2&cursor=p2',
          '/api/v1/getAllParticipants?id=c&pageSize=2&cursor=p3',
        ]);
        // Stopping early asks for no more pages.
        for await (const p of refkit.getAllParticipants({ id: 'c', pageSize: 2 })) if (p.email === 'a') break;
        assert.equal(server.seen.length, 4);
      } finally {
        await server.close();
      }
    });
  });
});

/** The RefkitError a call rejected with. */
async function rejection(call: PromiseLike<unknown>): Promise<InstanceType<Sdk['RefkitError']>> {
  try {
    await call;
  } catch (error) {
    assert.equal((error as Error).name, 'RefkitError');
    return error as InstanceType<Sdk['RefkitError']>;
  }
  assert.fail('the call did not reject');
}

const pick = (e: InstanceType<Sdk['RefkitError']>) => ({ status: e.status, code: e.code, field: e.field, requestId: e.requestId, retryAfter: e.retryAfter });
