import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachDatabase } from './helpers/suite.js';

const post = (url: string, body: string, contentType = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });

/** Reads an error answer and checks it is exactly the envelope. */
async function envelope(res: Response) {
  const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.ok(Object.keys(body.error).every((k) => ['code', 'message', 'field'].includes(k)), JSON.stringify(body));
  assert.equal(typeof body.error.message, 'string');
  assert.ok(!/\bat .+:\d+:\d+/.test(body.error.message), 'no stack trace');
  return body.error;
}

eachDatabase('errors', (service) => {
  it('bad bodies are 400 invalid_request; oversize is 413; unknown routes 404', async () => {
    const s = service();
    const id = await s.campaign();
    const url = `${s.url}/api/v1/addParticipant`;
    let res = await post(url, '{"id":');
    assert.equal(res.status, 400);
    assert.equal((await envelope(res)).code, 'invalid_request');
    res = await post(url, 'id=x', 'text/plain');
    assert.equal(res.status, 400);
    assert.equal((await envelope(res)).code, 'invalid_request');
    res = await post(url, JSON.stringify({ id, email: 'a@example.com', firstName: 'x'.repeat(20_000) }));
    assert.equal(res.status, 413);
    assert.equal((await envelope(res)).code, 'payload_too_large');
    res = await post(url, JSON.stringify({ id, email: 'a@example.com', firstName: 'x'.repeat(101) }));
    assert.equal(res.status, 400);
    assert.equal((await envelope(res)).field, 'firstName');
    res = await post(url, JSON.stringify({ email: 'a@example.com' }));
    assert.deepEqual(await envelope(res), { code: 'invalid_request', message: 'id is required', field: 'id' });
    res = await fetch(`${s.url}/api/v1/nope`);
    assert.equal(res.status, 404);
    assert.equal((await envelope(res)).code, 'not_found');
    assert.equal((await s.browser.getCampaign(id)).participants, 0, 'no failed call created anything');
  });

  it('an internal failure is 500 internal, logged, with no details on the wire', async () => {
    const s = service();
    const id = await s.campaign();
    // Break the store underneath the running service.
    const original = s.ctx.store.findCampaign.bind(s.ctx.store);
    s.ctx.store.findCampaign = async () => {
      throw new Error('disk on fire at /secret/path.ts:1:2');
    };
    try {
      const res = await fetch(`${s.url}/api/v1/getCampaign?id=${id}`);
      assert.equal(res.status, 500);
      const error = await envelope(res);
      assert.equal(error.code, 'internal');
      assert.ok(!error.message.includes('disk on fire'));
    } finally {
      s.ctx.store.findCampaign = original;
    }
  });

  it('serves the OpenAPI document, the docs page, and health/readiness', async () => {
    const s = service();
    const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: unknown; security?: unknown; responses?: Record<string, unknown> }>>;
    };
    assert.match(doc.openapi, /^3\./);
    for (const op of ['addParticipant', 'qualifyParticipant']) assert.ok(doc.paths[`/api/v1/${op}`]!.post!.requestBody, op);
    for (const op of ['getCampaign', 'validateCode', 'getParticipant', 'getAllParticipants', 'getReferrals']) assert.ok(doc.paths[`/api/v1/${op}`]!.get, op);
    assert.deepEqual(doc.paths['/api/v1/getAllParticipants']!.get!.parameters!.map((p) => p.name).sort(), ['cursor', 'id', 'page', 'pageSize']);
    assert.ok(doc.paths['/api/v1/getParticipant']!.get!.security);
    for (const op of ['createCampaign', 'updateCampaign', 'setCampaignStatus', 'redeemReward', 'approveParticipant', 'grantAccess', 'createApiKey', 'revokeApiKey', 'createWebhookEndpoint', 'redeliverWebhook']) {
      assert.ok(doc.paths[`/api/v1/admin/${op}`]!.post, op);
    }
    // Every owner route can be called with a key or the dashboard's session, and refused with 401 and 403.
    const adminOps = Object.entries(doc.paths).filter(([path]) => path.startsWith('/api/v1/admin/'));
    assert.ok(adminOps.length > 50, `${adminOps.length} admin paths`);
    const undocumented: string[] = [];
    for (const [path, ops] of adminOps) {
      for (const [method, op] of Object.entries(ops)) {
        if (JSON.stringify(op.security) !== JSON.stringify([{ bearerAuth: [] }, { sessionCookie: [] }])) undocumented.push(`${method} ${path}: security`);
        for (const code of ['400', '401', '403']) if (!op.responses?.[code]) undocumented.push(`${method} ${path}: ${code}`);
      }
    }
    assert.deepEqual(undocumented, []);
    const docs = await fetch(`${s.url}/api/docs/`);
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type')!, /html/);
    assert.deepEqual(await (await fetch(`${s.url}/healthz`)).json(), { ok: true });
    assert.equal((await fetch(`${s.url}/readyz`)).status, 200);
    const ping = s.ctx.store.ping.bind(s.ctx.store);
    s.ctx.store.ping = async () => {
      throw new Error('down');
    };
    try {
      const res = await fetch(`${s.url}/readyz`);
      assert.equal(res.status, 503);
      assert.equal((await envelope(res)).code, 'unavailable');
    } finally {
      s.ctx.store.ping = ping;
    }
  });
});
