import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { createApiKey } from '../../src/server/accounts/domain/keys.js';
import { hashSecret } from '../../src/server/kernel/secrets.js';
import { rejects } from './helpers/assert.js';
import { databaseKinds } from './helpers/databases.js';
import { startService } from './helpers/service.js';
import { eachDatabase } from './helpers/suite.js';

const PROTECTED: [string, string, unknown?][] = [
  ['GET', '/api/v1/getParticipant?id=x&email=a@example.com'],
  ['GET', '/api/v1/getAllParticipants?id=x'],
  ['GET', '/api/v1/getReferrals?id=x&email=a@example.com'],
  ['POST', '/api/v1/qualifyParticipant', { id: 'x', email: 'a@example.com' }],
  ['POST', '/api/v1/admin/createCampaign', { campaignName: 'x', hostURL: 'https://x.example' }],
  ['POST', '/api/v1/admin/updateCampaign', { id: 'x' }],
  ['POST', '/api/v1/admin/setCampaignStatus', { id: 'x', status: 'End' }],
  ['POST', '/api/v1/admin/redeemReward', { id: 'x', email: 'a@example.com', kind: 'referral', amount: 1 }],
  ['POST', '/api/v1/admin/approveParticipant', { id: 'x', email: 'a@example.com' }],
  ['POST', '/api/v1/admin/grantAccess', { id: 'x', count: 1 }],
  ['GET', '/api/v1/admin/getWaitlist?id=x'],
  ['POST', '/api/v1/admin/createApiKey', { name: 'x' }],
  ['POST', '/api/v1/admin/revokeApiKey', { id: 'x' }],
  ['GET', '/api/v1/admin/listApiKeys'],
  ['POST', '/api/v1/admin/createWebhookEndpoint', { url: 'https://x.example', eventTypes: ['referrer_added'] }],
  ['GET', '/api/v1/admin/listWebhookEndpoints'],
  ['POST', '/api/v1/admin/deleteWebhookEndpoint', { id: 'x' }],
  ['GET', '/api/v1/admin/listWebhookDeliveries'],
  ['POST', '/api/v1/admin/redeliverWebhook', { id: 'x' }],
];

eachDatabase('secret keys', (service) => {
  it('every protected route is 401 without a key and with a wrong one', async () => {
    const s = service();
    for (const [method, path, body] of PROTECTED) {
      for (const headers of [{}, { authorization: 'Bearer sk_wrong' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
        const res = await fetch(s.url + path, {
          method,
          headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        assert.equal(res.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
      }
    }
  });

  it('a wrong key is refused on public routes too, never ignored', async () => {
    const s = service();
    const id = await s.campaign();
    const wrong = new RefkitClient({ baseUrl: s.url, secretKey: 'sk_wrong' });
    await rejects(() => wrong.getCampaign(id), 401, 'unauthorized');
    await rejects(() => wrong.addParticipant({ id, email: 'a@example.com' }), 401, 'unauthorized');
    assert.equal((await s.browser.getCampaign(id)).participants, 0);
  });

  it('keys are shown once, stored hashed, listed without the key, and revocable', async () => {
    const s = service();
    const created = await s.admin.createApiKey('backend');
    assert.match(created.key, /^sk_live_[A-Za-z0-9_-]{32}$/);
    assert.equal(created.prefix, created.key.slice(0, 13));
    const client = new RefkitClient({ baseUrl: s.url, secretKey: created.key });
    await client.listApiKeys();
    const listed = (await s.admin.listApiKeys()).find((k) => k.id === created.id)!;
    assert.equal(listed.key, undefined);
    assert.equal(listed.name, 'backend');
    const rows = await s.ctx.store.db.selectFrom('api_keys').selectAll().execute();
    assert.ok(rows.every((r) => !JSON.stringify(r).includes(created.key)));
    assert.ok(rows.some((r) => r.hash === hashSecret(created.key)));

    await s.admin.revokeApiKey(created.id);
    await rejects(() => client.listApiKeys(), 401, 'unauthorized');
    assert.ok((await s.admin.listApiKeys()).find((k) => k.id === created.id)!.revokedOn);
    await rejects(() => s.admin.revokeApiKey(created.id), 404, 'api_key_not_found');
    await rejects(() => s.admin.revokeApiKey('key_nope'), 404, 'api_key_not_found');
  });
});

it('REFKIT_SECRET_KEY is accepted as a key of the default account', async () => {
  const [sqlite] = await databaseKinds();
  const envKey = 'sk_env_0123456789abcdefghij';
  const s = await startService(sqlite!, { secretKeyHash: hashSecret(envKey) });
  try {
    const client = new RefkitClient({ baseUrl: s.url, secretKey: envKey });
    const c = await client.createCampaign({ campaignName: 'Env', hostURL: 'https://env.example' });
    assert.equal((await s.admin.getCampaign(c.campaignId!)).campaignName, 'Env');
    await rejects(() => new RefkitClient({ baseUrl: s.url, secretKey: `${envKey}x` }).listApiKeys(), 401, 'unauthorized');
  } finally {
    await s.close();
  }
});

eachDatabase('origins and CORS', (service) => {
  const call = (url: string, origin: string | undefined, init: RequestInit = {}) =>
    fetch(url, { ...init, headers: { ...(origin ? { origin } : {}), ...(init.headers as Record<string, string>) } });

  it('keyless calls from the campaign origin get CORS headers; others are 403, readable so the page can say why', async () => {
    const s = service();
    const id = await s.campaign({ hostURL: 'https://shop.example/join' });
    const ok = await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://shop.example');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://shop.example');
    const post = await call(`${s.url}/api/v1/addParticipant`, 'https://shop.example', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, email: 'a@example.com' }),
    });
    assert.equal(post.status, 200);
    assert.equal(post.headers.get('access-control-allow-origin'), 'https://shop.example');

    for (const path of [`/api/v1/getCampaign?id=${id}`, `/api/v1/validateCode?campaignId=${id}&code=X`]) {
      const bad = await call(s.url + path, 'https://evil.example');
      assert.equal(bad.status, 403);
      assert.equal(bad.headers.get('access-control-allow-origin'), 'https://evil.example');
      assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'forbidden_origin');
    }
    const badPost = await call(`${s.url}/api/v1/addParticipant`, 'https://evil.example', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, email: 'evil@example.com' }),
    });
    assert.equal(badPost.status, 403);
    assert.equal((await s.browser.getCampaign(id)).participants, 1, 'the refused sign-up changed nothing');
  });

  it("allowedOrigins adds to the landing page's origin, never replaces it; the service origin, keyed calls and no Origin pass", async () => {
    const s = service();
    const id = await s.campaign({ hostURL: 'https://shop.example/join' });
    await s.admin.updateCampaign({ id, allowedOrigins: ['https://www.shop.example'] });
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://www.shop.example')).status, 200);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://shop.example')).status, 200);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://evil.example')).status, 403);
    // Emptied, the landing page's origin still is.
    await s.admin.updateCampaign({ id, allowedOrigins: [] });
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://shop.example')).status, 200);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://www.shop.example')).status, 403);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, s.url)).status, 200);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://evil.example', { headers: { authorization: `Bearer ${s.secretKey}` } })).status, 200);
    assert.equal((await call(`${s.url}/api/v1/getCampaign?id=${id}`, undefined)).status, 200);
  });

  it('preflights are answered for origins some campaign allows, refused otherwise', async () => {
    const s = service();
    await s.campaign({ hostURL: 'https://shop.example/join' });
    const ok = await call(`${s.url}/api/v1/addParticipant`, 'https://shop.example', {
      method: 'OPTIONS',
      headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://shop.example');
    assert.match(ok.headers.get('access-control-allow-methods')!, /POST/);
    assert.match(ok.headers.get('access-control-allow-headers')!, /content-type/);
    const bad = await call(`${s.url}/api/v1/addParticipant`, 'https://evil.example', { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
    assert.equal(bad.status, 403);
    assert.equal(bad.headers.get('access-control-allow-origin'), null);
  });
});

eachDatabase('accounts', (service) => {
  it("a key of another account cannot add participants to this account's campaign (404, nothing created)", async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const [account] = await s.ctx.store.db.insertInto('accounts').values({ name: 'other', created_on: Date.now() }).returning('id').execute();
    const other = new RefkitClient({ baseUrl: s.url, secretKey: (await createApiKey(s.ctx, { accountId: Number(account!.id) }, 'other')).key });
    await rejects(() => other.addParticipant({ id, email: 'mallory@example.com' }), 404, 'campaign_not_found');
    await rejects(() => other.addParticipant({ id, email: 'mallory@example.com', referredByCode: ann.referralCode! }), 404, 'campaign_not_found');
    await rejects(() => other.addParticipant({ id, email: 'ann@example.com' }), 404, 'campaign_not_found');
    assert.equal((await s.admin.getAllParticipants(id)).length, 1);
    // Its own campaigns work as usual.
    const own = (await other.createCampaign({ campaignName: 'Own', hostURL: 'https://own.example' })).campaignId!;
    assert.equal((await other.addParticipant({ id: own, email: 'mallory@example.com' })).fraudScore, '');
  });
});
