/**
 * Security headers on every kind of answer, and what the request log holds: no emails, no secrets from
 * query strings. (test/e2e/security-headers.test.ts checks in Chromium that the pages work under the CSP.)
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import { redactUrl } from '../../src/server/http/logging.js';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { eachDatabaseShared } from './helpers/suite.js';

eachDatabaseShared('security headers', (service) => {
  it('CSP on the demo page and the docs, nosniff and a referrer policy everywhere; the widget is loadable from any origin', async () => {
    const s = service();
    const id = await s.campaign();
    // Each body is read to the end: a response left unread holds its connection open, and closing the
    // service then waits for it (up to the 72 s keep-alive timeout).
    const get = async (path: string) => {
      const res = await fetch(`${s.url}${path}`);
      await res.arrayBuffer();
      return res;
    };
    const answers = {
      demo: await get('/demo/'),
      docs: await get('/api/docs/'),
      docsAsset: await get('/api/docs/docs.js'),
      api: await get(`/api/v1/getCampaign?id=${id}`),
      error: await get('/api/v1/getCampaign'),
      notFound: await get('/nope'),
      widget: await get('/widget/referral-widget.js'),
      widgetClassic: await get('/widget/referral-widget.iife.js'),
    };
    for (const [name, res] of Object.entries(answers)) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', name);
      assert.ok(res.headers.get('content-security-policy'), `${name} has a CSP`);
      assert.match(res.headers.get('strict-transport-security') ?? '', /max-age=\d+/, name);
      if (name === 'api' || name === 'error') continue;
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', name);
    }
    // The JSON API's own set (OWASP's REST cheat sheet), on answers and errors alike: nothing to load,
    // no framing, not stored anywhere (answers may hold private fields).
    for (const res of [answers.api, answers.error]) {
      assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin');
      assert.equal(res.headers.get('x-dns-prefetch-control'), null, 'page-only headers are left out');
    }
    assert.equal(answers.demo.status, 200);
    const demoCsp = answers.demo.headers.get('content-security-policy')!;
    assert.match(demoCsp, /default-src 'self'/);
    assert.match(demoCsp, /script-src 'self'(;|$)/, 'no inline or foreign scripts on the demo page');
    assert.match(demoCsp, /object-src 'none'/);
    assert.match(answers.docs.headers.get('content-security-policy')!, /script-src 'self';/, 'the docs run only their own scripts');
    // The dashboard's own headers win over the service-wide ones, on the page and on its assets alike.
    const dashboardPage = await get('/admin/');
    const script = /src="\/admin\/([^"]+\.js)"/.exec(await (await fetch(`${s.url}/admin/`)).text())?.[1];
    assert.ok(script, 'the dashboard page loads a script');
    for (const res of [dashboardPage, await get(`/admin/${script}`)]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('referrer-policy'), 'same-origin');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const csp = res.headers.get('content-security-policy')!;
      assert.match(csp, /style-src 'self' 'unsafe-inline'/, 'lit and the charts style elements inline');
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /base-uri 'none'/, 'no injected <base> can redirect the relative URLs of scripts and calls');
      assert.match(csp, /form-action 'self'/, 'no injected form can post to another site');
      assert.doesNotMatch(csp, /script-src[^;]*unsafe/, 'no inline scripts');
    }
    for (const res of [answers.widget, answers.widgetClassic]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
  });
}, { demo: true });

describe('request log', () => {
  let runtime: Runtime;
  let database: TestDatabase;
  before(async () => {
    const [sqlite] = await databaseKinds();
    database = await sqlite!.create();
    runtime = await openRuntime({ databaseUrl: database.url });
  });
  after(async () => {
    await runtime.close();
    await database.drop();
  });

  it('redacts emails and secret query parameters in URLs', () => {
    assert.equal(redactUrl('/api/v1/getParticipant?id=demo&email=ann%40example.com'), '/api/v1/getParticipant?id=demo&email=[email]');
    assert.equal(redactUrl('/x?token=abc&api_key=def&secret=ghi&note=mail+bob@example.com+now&page=2'), '/x?token=[redacted]&api_key=[redacted]&secret=[redacted]&note=mail [email] now&page=2');
    assert.equal(redactUrl('/x/ann@example.com'), '/x/[email]');
  });

  it('the log of real requests holds no email and no secret from a query string, also when a request fails', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const app = await buildApp({
      ctx: runtime.ctx,
      config: { secretKeyHash: undefined, trustProxy: false, logLevel: 'info', webhookAllowPrivate: true },
      logger: { stream },
    });
    const { key } = await createApiKey(runtime.ctx, DEFAULT_ACCOUNT, 'log');
    try {
      const auth = { authorization: `Bearer ${key}` };
      const created = await app.inject({ method: 'POST', url: '/api/v1/admin/createCampaign', headers: auth, payload: { campaignName: 'Log', hostURL: 'https://log.example' } });
      const id = (created.json() as { campaignId: string }).campaignId;
      await app.inject({ method: 'POST', url: '/api/v1/addParticipant', payload: { id, email: 'ann.secret@example.com' } });
      await app.inject({ method: 'GET', url: `/api/v1/getParticipant?id=${id}&email=ann.secret%40example.com`, headers: auth });
      await app.inject({ method: 'GET', url: `/api/v1/getCampaign?id=${id}&access_token=tok_very_secret&ref=ann.secret@example.com` });
      const findCampaign = runtime.ctx.store.findCampaign.bind(runtime.ctx.store);
      runtime.ctx.store.findCampaign = async () => {
        throw new Error('no row for ann.secret@example.com');
      };
      const failed = await app.inject({ method: 'GET', url: `/api/v1/getCampaign?id=${id}` });
      runtime.ctx.store.findCampaign = findCampaign;
      assert.equal(failed.statusCode, 500);
    } finally {
      await app.close();
    }
    const log = lines.join('');
    assert.match(log, /getParticipant\?id=.*&email=\[email\]/, 'requests are logged');
    assert.match(log, /unhandled error/, 'the failure is logged');
    for (const secret of ['ann.secret@example.com', 'ann.secret%40example.com', 'tok_very_secret', key]) assert.ok(!log.includes(secret), `log holds ${secret}: ${log.split('\n').filter((l) => l.includes(secret)).join('\n')}`);
  });
});
